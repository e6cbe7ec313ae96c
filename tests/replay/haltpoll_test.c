/* Replay test for guest halt-polling (bpf/haltpoll.bpf.h): the hand-written
 * trace tests/fixtures/traces/haltpoll.ftrace, parsed by the real importer
 * (replay/trace_parse.c, guest_halt_poll_ns's own text format) and fed
 * through the BPF handlers; every figure below is worked out by hand in the
 * trace's header, never taken from the tool. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "replay.h"
#include "replay/replay_feed.h"
#include "replay/timer_match.h"
#include "replay/trace_parse.h"

/* The fixture beside this file's folder, whatever the working directory's
 * depth below the tree: __FILE__ is the path the compiler was given. */
static char *read_fixture(size_t *len)
{
	char path[512];
	const char *f = __FILE__, *slash = strrchr(f, '/');
	FILE *fp;
	char *buf;

	snprintf(path, sizeof(path), "%.*s/../fixtures/traces/haltpoll.ftrace",
		 slash ? (int)(slash - f) : 1, slash ? f : ".");
	fp = fopen(path, "r");
	assert_non_null(fp);
	buf = calloc(1, 1 << 16);
	assert_non_null(buf);
	*len = fread(buf, 1, (1 << 16) - 1, fp);
	fclose(fp);
	return buf;
}

/* POLL 0/0 and "haltpoll idle" 1/1 us, the haltpoll driver's table */
static struct idle_params haltpoll_table(void)
{
	struct idle_params p = {
		.nr_states = 2, .flags = IS_PARAMS_VALID, .poll_mask = 1,
		.qos_limit_ns = UINT64_MAX,
		.exit_latency_ns = { 0, 1 * US },
		.target_residency_ns = { 0, 1 * US },
	};
	return p;
}

static void feed(struct idle_session *s, struct idle_raw *raw, bool haltpoll)
{
	struct session_opts o = { .replay = true, .haltpoll = haltpoll };
	struct idle_params p = haltpoll_table();
	struct trace_data td;
	struct timer_match tm;
	struct replay_feed fed;
	size_t len;
	char *buf = read_fixture(&len), err[256];

	memset(&td, 0, sizeof(td));
	memset(&tm, 0, sizeof(tm));
	assert_int_equal(trace_parse_buffer(buf, len, &td), 0);
	free(buf);
	assert_int_equal(td.garbled, 0);
	trace_sort_events(&td);
	assert_int_equal(idle_session_open(s, 2, &o, err, sizeof(err)), 0);
	for (int c = 0; c < 2; c++)
		assert_int_equal(idle_session_set_params(s, c, &p), 0);
	assert_int_equal(timer_match_events(&td, &tm), 0);
	assert_int_equal(tm.unmatched, 0);
	assert_int_equal(replay_feed(s, &td, &fed), 0);
	assert_int_equal(fed.rejected, 0);
	assert_int_equal(idle_session_read(s, raw), 0);
	trace_data_free(&td);
}

static const struct idle_state_stats *st(const struct idle_raw *raw, int cpu, int state)
{
	return &raw->stats[cpu * IS_MAX_STATES + state];
}

static void test_haltpoll_trace(void **state)
{
	struct idle_session s;
	struct idle_raw raw;
	const struct haltpoll_cpu *h0, *h1;

	(void)state;
	feed(&s, &raw, true);
	assert_non_null(raw.haltpoll);
	h0 = &raw.haltpoll[0];
	h1 = &raw.haltpoll[1];
	/* poll count and time: the POLL state's periods */
	assert_int_equal(st(&raw, 0, 0)->entries, 5);
	assert_int_equal(st(&raw, 0, 0)->time_ns, 210 * US);
	assert_int_equal(st(&raw, 1, 0)->entries, 2);
	assert_int_equal(st(&raw, 1, 0)->time_ns, 60 * US);
	assert_int_equal(st(&raw, 0, 1)->entries, 2);
	assert_int_equal(st(&raw, 0, 1)->time_ns, 400 * US);
	assert_int_equal(st(&raw, 1, 1)->entries, 3);
	assert_int_equal(st(&raw, 1, 1)->time_ns, 1119 * US);
	/* how the polls ended */
	assert_int_equal(h0->woken, 2);
	assert_int_equal(h0->timed_out, 2);
	assert_int_equal(h1->woken, 1);
	assert_int_equal(h1->timed_out, 1);
	/* the limit's moves */
	assert_int_equal(h0->grow, 1);
	assert_int_equal(h0->shrink, 1);
	assert_int_equal(h0->limit_first_ns, 50000);
	assert_int_equal(h0->limit_ns, 50000);
	assert_int_equal(h0->limit_min_ns, 50000);
	assert_int_equal(h0->limit_max_ns, 100000);
	assert_int_equal(h1->grow, 2);
	assert_int_equal(h1->shrink, 1);
	assert_int_equal(h1->limit_first_ns, 50000);
	assert_int_equal(h1->limit_ns, 100000);
	assert_int_equal(h1->limit_min_ns, 0);
	assert_int_equal(h1->limit_max_ns, 100000);
	/* the wakes' causes: a timed-out poll is poll-timeout, told at the
	 * next entry; nothing else in the trace but CPU 1's timer, so the
	 * woken polls and the halts are unknown, the last periods pending */
	assert_int_equal(raw.wake[0].count[WAKE_POLL_TIMEOUT], 2);
	assert_int_equal(raw.wake[0].count[WAKE_UNKNOWN], 4);
	assert_int_equal(raw.slots[0].wake_pending, 1);
	assert_int_equal(raw.wake[1].count[WAKE_POLL_TIMEOUT], 1);
	assert_int_equal(raw.wake[1].count[WAKE_UNKNOWN], 2);
	assert_int_equal(raw.wake[1].count[WAKE_TIMER], 1);
	assert_int_equal(raw.slots[1].wake_pending, 1);
	idle_raw_free(&raw);
	idle_session_close(&s);
}

/* Off (a host whose driver is not haltpoll): no table read, and the idle
 * figures are the same (the handler's haltpoll path is pruned). */
static void test_haltpoll_off(void **state)
{
	struct idle_session s;
	struct idle_raw raw;

	(void)state;
	feed(&s, &raw, false);
	assert_null(raw.haltpoll);
	assert_int_equal(st(&raw, 0, 0)->entries, 5);
	assert_int_equal(st(&raw, 0, 0)->time_ns, 210 * US);
	assert_int_equal(st(&raw, 1, 1)->time_ns, 1119 * US);
	/* without the governor's choice (and no limit in the table) a
	 * timed-out poll is not told from a woken one: unknown */
	assert_int_equal(raw.wake[0].count[WAKE_POLL_TIMEOUT], 0);
	assert_int_equal(raw.wake[0].count[WAKE_UNKNOWN], 6);
	idle_raw_free(&raw);
	idle_session_close(&s);
}

/* Single events: a poll whose next entry never comes stays unresolved, and
 * limit events outside the window are not counted. */
static void test_haltpoll_window(void **state)
{
	struct session_opts o = { .replay = true, .haltpoll = true };
	struct idle_params p = haltpoll_table();
	struct idle_session s;
	struct idle_raw raw;
	char err[256];

	(void)state;
	assert_int_equal(idle_session_open(&s, 1, &o, err, sizeof(err)), 0);
	assert_int_equal(idle_session_set_params(&s, 0, &p), 0);
	idle_session_start(&s, 1 * MS);
	/* before the start: neither the poll nor the move counts */
	replay_idle(&s, 0, 100 * US, 0);
	replay_idle(&s, 0, 200 * US, EXIT);
	replay_send(&s, (struct replay_event){ .kind = RE_HALT_POLL, .cpu = 0, .now_ns = 300 * US,
					       .halt = { .grow = 1, .new_ns = 20000, .old_ns = 10000 } });
	replay_idle(&s, 0, 1100 * US, 1); /* the entry after an uncounted poll: nothing */
	replay_idle(&s, 0, 1200 * US, EXIT);
	replay_send(&s, (struct replay_event){ .kind = RE_HALT_POLL, .cpu = 0, .now_ns = 1200 * US,
					       .halt = { .grow = 0, .new_ns = 0, .old_ns = 20000 } });
	replay_idle(&s, 0, 1300 * US, 0);
	replay_idle(&s, 0, 1310 * US, EXIT); /* counted, its end unresolved */
	idle_session_stop(&s, 1400 * US);
	replay_idle(&s, 0, 1500 * US, 1); /* after the stop: not told */
	assert_int_equal(idle_session_read(&s, &raw), 0);
	assert_int_equal(raw.stats[0].entries, 1);
	assert_int_equal(raw.haltpoll[0].woken + raw.haltpoll[0].timed_out, 0);
	assert_int_equal(raw.haltpoll[0].grow, 0);
	assert_int_equal(raw.haltpoll[0].shrink, 1);
	assert_int_equal(raw.haltpoll[0].limit_first_ns, 20000);
	assert_int_equal(raw.haltpoll[0].limit_ns, 0);
	idle_raw_free(&raw);
	idle_session_close(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_haltpoll_trace),
		cmocka_unit_test(test_haltpoll_off),
		cmocka_unit_test(test_haltpoll_window),
	};

	return cmocka_run_group_tests_name("replay-haltpoll", tests, NULL, NULL);
}
