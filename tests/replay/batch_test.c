/* The trace-import path: replay_idle_batch (events through the mmapped
 * replay_batch map, many per BPF_PROG_TEST_RUN) must give exactly what
 * replay_idle gives one event at a time, across batch boundaries, and count
 * what it rejects. Hand-computed totals as well. Root. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "replay.h"

#define NR_CPUS 4
/* enter/exit pairs per CPU: 3 full batches and a bit, over 4 CPUs */
#define PAIRS ((3 * IS_REPLAY_BATCH + 10) / 2 / NR_CPUS + 1)
#define NR_EV (PAIRS * 2 * NR_CPUS)

/* CPU c: period k enters state k % 3 at 100 us * k + c us and lasts
 * 10 + k % 7 us; an IRQ inside every third period. */
static size_t build(struct replay_event *ev)
{
	size_t n = 0;

	for (uint64_t k = 0; k < PAIRS; k++)
		for (uint64_t c = 0; c < NR_CPUS; c++) {
			uint64_t t = 1 * MS + k * 100 * US + c * US;

			ev[n++] = (struct replay_event){ .kind = RE_IDLE, .cpu = c, .now_ns = t,
							 .idle.state = k % 3 };
			if (k % 3 == 0)
				ev[n++] = (struct replay_event){ .kind = RE_IRQ, .cpu = c,
								 .now_ns = t + 5 * US,
								 .wake.detail = 42 };
			ev[n++] = (struct replay_event){ .kind = RE_IDLE, .cpu = c,
							 .now_ns = t + (10 + k % 7) * US,
							 .idle.state = EXIT };
		}
	return n;
}

static int open_session(struct idle_session *s)
{
	struct session_opts o = { .replay = true };
	const struct idle_params arm = replay_arm_table(0);
	char err[256];

	if (idle_session_open(s, NR_CPUS, &o, err, sizeof(err))) {
		fprintf(stderr, "replay: %s\n", err);
		return -1;
	}
	for (int c = 0; c < NR_CPUS; c++)
		idle_session_set_params(s, c, &arm);
	return 0;
}

static void test_batch_equals_single(void **state)
{
	struct replay_event *ev = calloc(NR_EV * 2, sizeof(*ev));
	struct idle_session a, b;
	struct replay_batch map;
	struct idle_raw ra, rb;
	size_t n;

	(void)state;
	assert_non_null(ev);
	n = build(ev);
	assert_true(n > 3 * IS_REPLAY_BATCH);
	assert_int_equal(open_session(&a), 0);
	assert_int_equal(open_session(&b), 0);
	for (size_t i = 0; i < n; i++)
		replay_send(&a, ev[i]);
	assert_int_equal(replay_batch_open(&map, &b), 0);
	assert_int_equal(replay_batch_run(&map, ev, n), 0);
	replay_batch_close(&map);
	assert_int_equal(idle_session_read(&a, &ra), 0);
	assert_int_equal(idle_session_read(&b, &rb), 0);
	assert_memory_equal(ra.stats, rb.stats, sizeof(*ra.stats) * NR_CPUS * IS_MAX_STATES);
	assert_memory_equal(ra.wake, rb.wake, sizeof(*ra.wake) * NR_CPUS);

	/* by hand: per CPU, state s gets the periods k = s mod 3 */
	for (int c = 0; c < NR_CPUS; c++) {
		uint64_t entries[3] = { 0 }, time[3] = { 0 }, irqs = 0;

		for (uint64_t k = 0; k < PAIRS; k++) {
			entries[k % 3]++;
			time[k % 3] += (10 + k % 7) * US;
			irqs += k % 3 == 0;
		}
		for (int s = 0; s < 3; s++) {
			assert_int_equal(rb.stats[c * IS_MAX_STATES + s].entries, entries[s]);
			assert_int_equal(rb.stats[c * IS_MAX_STATES + s].time_ns, time[s]);
		}
		assert_int_equal(rb.wake[c].count[WAKE_IRQ], irqs);
	}
	idle_raw_free(&ra);
	idle_raw_free(&rb);
	idle_session_close(&a);
	idle_session_close(&b);
	free(ev);
}

static void test_batch_counts_rejects(void **state)
{
	struct replay_event ev[3] = {
		{ .kind = RE_IDLE, .cpu = 0, .now_ns = 1 * MS, .idle.state = 0 },
		{ .kind = 99, .cpu = 0, .now_ns = 1 * MS + 1 },
		{ .kind = RE_IDLE, .cpu = 0, .now_ns = 2 * MS, .idle.state = EXIT },
	};
	struct idle_session s;
	struct replay_batch map;
	struct idle_raw r;

	(void)state;
	assert_int_equal(open_session(&s), 0);
	assert_int_equal(replay_batch_open(&map, &s), 0);
	assert_int_equal(replay_batch_run(&map, ev, 3), 1);
	assert_int_equal(replay_batch_run(&map, ev, 0), 0);
	replay_batch_close(&map);
	assert_int_equal(idle_session_read(&s, &r), 0);
	assert_int_equal(r.stats[0].entries, 1);
	assert_int_equal(r.stats[0].time_ns, 1 * MS - 0);
	idle_raw_free(&r);
	idle_session_close(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_batch_equals_single),
		cmocka_unit_test(test_batch_counts_rejects),
	};

	return cmocka_run_group_tests_name("replay-batch", tests, NULL, NULL);
}
