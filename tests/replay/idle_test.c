/* Replay tests: hand-written idle event sequences fed through the real BPF
 * handlers with BPF_PROG_TEST_RUN; every expected number is computed by hand
 * in the comment next to it. Needs root. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "replay.h"

#define NR_CPUS 6

/* x86-like table with a poll state: POLL 0/0, C1 2/4 us, C2 50/150 us; poll
 * limit 4 us, PM QoS limit 10 us (C2 barred). */
static struct idle_params poll_table(void)
{
	struct idle_params p = {
		.nr_states = 3, .flags = IS_PARAMS_VALID, .poll_mask = 1,
		.qos_limit_ns = 10 * US, .poll_limit_ns = 4 * US,
		.exit_latency_ns = { 0, 2 * US, 50 * US },
		.target_residency_ns = { 0, 4 * US, 150 * US },
	};
	return p;
}

static void ev(struct idle_session *s, uint64_t cpu, uint64_t now, uint64_t state)
{
	replay_idle(s, cpu, now, state);
}

static void period(struct idle_session *s, uint64_t cpu, uint64_t enter, uint64_t exit,
		   uint64_t state)
{
	ev(s, cpu, enter, state);
	ev(s, cpu, exit, EXIT);
}

static const struct idle_state_stats *st(const struct replay_fixture *f, int cpu, int state)
{
	return &f->raw.stats[cpu * IS_MAX_STATES + state];
}

static int setup(void **state)
{
	static struct replay_fixture f;
	char err[256];
	struct idle_params a = replay_arm_table(0), mid = replay_arm_table(1u << 1),
			   two = replay_arm_table(3),
			   poll = poll_table();

	memset(&f, 0, sizeof(f));
	/* three state slots per CPU, as record sizes them for these tables:
	 * every read below goes through the strided per-state maps */
	if (idle_session_open(&f.s, NR_CPUS, &(struct session_opts){ .replay = true, .state_slots = 3 },
			      err, sizeof(err))) {
		fprintf(stderr, "replay: %s\n", err);
		return -1;
	}
	idle_session_set_params(&f.s, 0, &a);
	idle_session_set_params(&f.s, 1, &mid);
	idle_session_set_params(&f.s, 2, &two);
	idle_session_set_params(&f.s, 3, &poll);
	idle_session_set_params(&f.s, 4, &a);
	/* CPU 5 has no params: counted, never classified. */

	/* CPU 0, ARM table, all enabled. */
	ev(&f.s, 0, 500 * US, EXIT);                  /* began before the window */
	period(&f.s, 0, 1 * MS, 1 * MS + 500, 0);     /* 500 ns WFI: nothing shallower */
	period(&f.s, 0, 2 * MS, 3500 * US, 0);        /* 1.5 ms WFI: 1.5ms-1us >= 1ms -> below */
	period(&f.s, 0, 4 * MS, 4200 * US, 1);        /* 200 us CPU_PD < 1 ms -> above */
	period(&f.s, 0, 5 * MS, 25 * MS, 2);          /* 20 ms CLS_PD: deepest, fine */
	period(&f.s, 0, 30 * MS, 41500 * US, 1);      /* 11.5 ms CPU_PD: 11.4 ms >= 10 ms -> below */
	{
		struct replay_event m = { .kind = RE_IDLE_MISS, .cpu = 0, .now_ns = 42 * MS,
					  .miss.state = 1, .miss.below = 0 };
		assert_int_equal(idle_session_replay(&f.s, &m), 0);
	}

	/* A miss after an uncounted (unmatched) exit is not counted either. */
	ev(&f.s, 2, 500 * US, EXIT);
	{
		struct replay_event m = { .kind = RE_IDLE_MISS, .cpu = 2, .now_ns = 501 * US,
					  .miss.state = 2, .miss.below = 1 };
		assert_int_equal(idle_session_replay(&f.s, &m), 0);
	}

	/* CPU 1, ARM table with CPU_PD disabled. */
	period(&f.s, 1, 1 * MS, 2500 * US, 0);   /* 1.5 ms WFI: next enabled is CLS_PD (10 ms) -> fine */
	period(&f.s, 1, 3 * MS, 14 * MS, 0);     /* 11 ms WFI: 11ms-1us >= 10 ms -> below */
	period(&f.s, 1, 20 * MS, 20500 * US, 2); /* 500 us CLS_PD: WFI enabled -> above */

	/* CPU 2, WFI and CPU_PD disabled: a short CLS_PD has nothing shallower. */
	period(&f.s, 2, 1 * MS, 1100 * US, 2);

	/* CPU 3, poll table. */
	period(&f.s, 3, 1 * MS, 1 * MS + 4200, 0);  /* 4.2 us POLL >= 4 us: below, at poll limit */
	period(&f.s, 3, 2 * MS, 2 * MS + 1000, 0);  /* 1 us POLL: fine */
	period(&f.s, 3, 3 * MS, 3200 * US, 1);      /* 200 us C1: 198 us >= 150 us -> below, C2 barred by QoS */

	/* CPU 4, exact thresholds. */
	period(&f.s, 4, 1 * MS, 2 * MS, 1);          /* r == target 1 ms: not above */
	period(&f.s, 4, 3 * MS, 3 * MS + 1001 * US, 0); /* r - 1 us == 1 ms: below */

	/* CPU 5: no table. */
	period(&f.s, 5, 1 * MS, 2 * MS, 1);
	/* a state beyond the slots: a bad state, its exit unmatched */
	period(&f.s, 5, 3 * MS, 4 * MS, 3);
	/* an enter while a period is open: that period's exit was lost; the
	 * period from 5 ms is not counted, the one from 6 ms is (1 ms) */
	ev(&f.s, 5, 5 * MS, 1);
	period(&f.s, 5, 6 * MS, 7 * MS, 1);

	/* A CPU beyond the maps. */
	ev(&f.s, 7, 1 * MS, 0);

	/* After stop: a period that ends later is not counted, one before is. */
	idle_session_stop(&f.s, 100 * MS);
	period(&f.s, 4, 90 * MS, 95 * MS, 2);   /* 5 ms CLS_PD, counted: above */
	period(&f.s, 4, 99 * MS, 101 * MS, 2);  /* ends after stop: dropped, stays in flight */
	ev(&f.s, 4, 102 * MS, 0);               /* after stop: ignored */
	{	/* a miss after stop is not counted, although the last exit before stop was */
		struct replay_event m = { .kind = RE_IDLE_MISS, .cpu = 4, .now_ns = 103 * MS,
					  .miss.state = 2, .miss.below = 0 };
		assert_int_equal(idle_session_replay(&f.s, &m), 0);
	}

	if (idle_session_read(&f.s, &f.raw))
		return -1;
	*state = &f;
	return 0;
}


static void test_arm_table(void **state)
{
	const struct replay_fixture *f = *state;
	const struct idle_state_stats *wfi = st(f, 0, 0), *pd = st(f, 0, 1), *cls = st(f, 0, 2);

	assert_int_equal(wfi->entries, 2);
	assert_int_equal(wfi->time_ns, 1500500);
	assert_int_equal(wfi->min_ns, 500);
	assert_int_equal(wfi->max_ns, 1500000);
	assert_int_equal(wfi->above, 0);
	assert_int_equal(wfi->below, 1);
	assert_int_equal(wfi->ideal[0], 1); /* 500 ns: nothing fits, shallowest */
	assert_int_equal(wfi->ideal[1], 1); /* 1.5 ms: CPU_PD (1 ms) fits, CLS_PD not */
	/* early: shorter than the target (1 us): the 500 ns period, nothing
	 * shallower to be "above" but time wasted all the same */
	assert_int_equal(wfi->early, 1);
	assert_int_equal(wfi->early_ns, 500);

	assert_int_equal(pd->entries, 2);
	assert_int_equal(pd->time_ns, 200000 + 11500000);
	assert_int_equal(pd->min_ns, 200000);
	assert_int_equal(pd->max_ns, 11500000);
	assert_int_equal(pd->above, 1);
	assert_int_equal(pd->below, 1);
	assert_int_equal(pd->ideal[0], 1);
	assert_int_equal(pd->ideal[2], 1);
	assert_int_equal(pd->miss_above, 1);
	assert_int_equal(pd->miss_below, 0);
	assert_int_equal(pd->early, 1);          /* 200 us < 1 ms */
	assert_int_equal(pd->early_ns, 200000);

	assert_int_equal(cls->entries, 1);
	assert_int_equal(cls->time_ns, 20000000);
	assert_int_equal(cls->above + cls->below, 0);
	assert_int_equal(cls->ideal[2], 1);
	assert_int_equal(cls->early + cls->early_ns, 0); /* 20 ms >= 10 ms */
}

static void test_histogram_buckets(void **state)
{
	const struct replay_fixture *f = *state;
	const struct idle_state_stats *wfi = st(f, 0, 0);
	uint64_t total = 0;

	/* 500 ns: msb 8, next two bits 11 -> bucket 4*7+3 = 31, [448, 512).
	 * 1.5 ms: msb 20, (1500000 >> 18) & 3 = 1 -> bucket 4*19+1 = 77. */
	assert_int_equal(wfi->hist[31], 1);
	assert_int_equal(wfi->hist[77], 1);
	for (int b = 0; b < IS_HIST_BUCKETS; b++)
		total += wfi->hist[b];
	assert_int_equal(total, 2);
}

static void test_disabled_states(void **state)
{
	const struct replay_fixture *f = *state;

	assert_int_equal(st(f, 1, 0)->entries, 2);
	assert_int_equal(st(f, 1, 0)->below, 1);
	assert_int_equal(st(f, 1, 0)->ideal[0], 1); /* 1.5 ms: CPU_PD disabled */
	assert_int_equal(st(f, 1, 0)->ideal[2], 1);
	assert_int_equal(st(f, 1, 2)->above, 1);
	assert_int_equal(st(f, 2, 2)->entries, 1);
	assert_int_equal(st(f, 2, 2)->above, 0);
	assert_int_equal(st(f, 2, 2)->early, 1);     /* 100 us < 10 ms: early, not above */
	assert_int_equal(st(f, 2, 2)->early_ns, 100000);
	assert_int_equal(st(f, 2, 2)->ideal[2], 1); /* only enabled state */
	assert_int_equal(st(f, 2, 2)->miss_below, 0); /* its period was not counted */
}

static void test_poll_and_qos(void **state)
{
	const struct replay_fixture *f = *state;

	assert_int_equal(st(f, 3, 0)->entries, 2);
	assert_int_equal(st(f, 3, 0)->time_ns, 5200);
	assert_int_equal(st(f, 3, 0)->below, 1);
	assert_int_equal(st(f, 3, 0)->poll_limit, 1);
	assert_int_equal(st(f, 3, 0)->below_qos, 0);
	assert_int_equal(st(f, 3, 0)->ideal[1], 1);
	assert_int_equal(st(f, 3, 0)->ideal[0], 1);
	assert_int_equal(st(f, 3, 1)->below, 1);
	assert_int_equal(st(f, 3, 1)->below_qos, 1);
	assert_int_equal(st(f, 3, 1)->poll_limit, 0);
}

static void test_exact_thresholds(void **state)
{
	const struct replay_fixture *f = *state;

	assert_int_equal(st(f, 4, 1)->entries, 1);
	assert_int_equal(st(f, 4, 1)->above, 0);
	assert_int_equal(st(f, 4, 1)->below, 0);
	assert_int_equal(st(f, 4, 0)->below, 1);
}

static void test_edges_and_bounds(void **state)
{
	const struct replay_fixture *f = *state;

	assert_int_equal(f->raw.slots[0].unmatched_exits, 1);
	assert_int_equal(f->raw.slots[0].first_exit_ns, 500 * US);
	assert_int_equal(f->raw.cpu_out_of_range, 1);
	/* CPU 5: counted without a table, never classified. */
	assert_int_equal(st(f, 5, 1)->entries, 2);
	assert_int_equal(st(f, 5, 1)->time_ns, 2 * MS);
	assert_int_equal(f->raw.slots[5].lost_exits, 1);
	assert_int_equal(f->raw.slots[0].lost_exits, 0);
	assert_int_equal(st(f, 5, 1)->above + st(f, 5, 1)->below, 0);
	assert_int_equal(st(f, 5, 1)->early + st(f, 5, 1)->early_ns, 0); /* no target to miss */
	assert_int_equal(f->raw.slots[5].bad_state, 1);
	assert_int_equal(f->raw.slots[5].unmatched_exits, 1);
	/* that exit came after CPU 5's first events: its enter was lost, not
	 * before the window, so no edge idle from the start */
	assert_int_equal(f->raw.slots[5].first_exit_ns, 0);
	assert_int_equal(st(f, 5, 3)->entries, 0);
	for (int i = 0; i < IS_MAX_STATES; i++)
		assert_int_equal(st(f, 5, 1)->ideal[i], 0);
	/* stop_ns: the 5 ms period before it counted (above), the later one not. */
	assert_int_equal(st(f, 4, 2)->entries, 1);
	assert_int_equal(st(f, 4, 2)->time_ns, 5 * MS);
	assert_int_equal(st(f, 4, 2)->above, 1);
	assert_int_equal(st(f, 4, 2)->miss_above, 0);
	assert_int_equal(f->raw.slots[4].enter_ns, 99 * MS); /* frozen at stop */
	assert_int_equal(f->raw.slots[4].state, 2);
	/* every idle event moves the slot's sequence count by 2 (odd only while
	 * it runs), those after stop too: CPU 4 had 9; a slot that saw an
	 * event is known; no read was torn; the read was stamped */
	assert_int_equal(f->raw.slots[4].seq, 18);
	assert_int_equal(f->raw.slots[4].known, 1);
	assert_int_equal(f->raw.torn_reads, 0);
	assert_true(f->raw.read_ns > 0);
}

/* Edge exits (kernel_check's allowance): exits outside the window while the
 * sysfs snapshots are read, from edge_from to start and after stop, counted
 * per state, or of unknown state per CPU; never before edge_from. One CPU,
 * ARM table; edge_from 5 ms, start 10 ms, stop 20 ms. */
static void test_edge_exits(void **state)
{
	struct idle_params a = replay_arm_table(0);
	struct replay_fixture f;
	char err[256];

	(void)state;
	memset(&f, 0, sizeof(f));
	assert_int_equal(idle_session_open(&f.s, 1, &(struct session_opts){ .replay = true,
									.state_slots = 3 },
					   err, sizeof(err)),
			 0);
	idle_session_set_params(&f.s, 0, &a);
	idle_session_edge_from(&f.s, 5 * MS);
	idle_session_start(&f.s, 10 * MS);
	period(&f.s, 0, 1 * MS, 2 * MS, 1);          /* before edge_from: nothing */
	period(&f.s, 0, 6 * MS, 7 * MS, 1);          /* edge exit, state 1 */
	ev(&f.s, 0, 8 * MS, EXIT);                   /* edge exit, state unknown */
	period(&f.s, 0, 8500 * US, 12 * MS, 0);      /* counted whole: 3.5 ms */
	idle_session_stop(&f.s, 20 * MS);
	period(&f.s, 0, 19 * MS, 21 * MS, 1);        /* in flight at stop: edge exit, state 1 */
	period(&f.s, 0, 22 * MS, 23 * MS, 0);        /* edge exit, state 0 */
	ev(&f.s, 0, 24 * MS, EXIT);                  /* no enter since: unknown */
	assert_int_equal(idle_session_read(&f.s, &f.raw), 0);
	assert_int_equal(f.raw.stats[1].edge_exits, 2);
	assert_int_equal(f.raw.stats[0].edge_exits, 1);
	assert_int_equal(f.raw.slots[0].edge_unknown, 2);
	assert_int_equal(f.raw.stats[0].entries, 1);
	assert_int_equal(f.raw.stats[0].time_ns, 3500 * US);
	assert_int_equal(f.raw.stats[1].entries, 0);
	/* the slot stays frozen at stop */
	assert_int_equal(f.raw.slots[0].enter_ns, 19 * MS);
	assert_int_equal(f.raw.slots[0].state, 1);
	idle_raw_free(&f.raw);
	idle_session_close(&f.s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arm_table),
		cmocka_unit_test(test_histogram_buckets),
		cmocka_unit_test(test_disabled_states),
		cmocka_unit_test(test_poll_and_qos),
		cmocka_unit_test(test_exact_thresholds),
		cmocka_unit_test(test_edges_and_bounds),
		cmocka_unit_test(test_edge_exits),
	};

	return cmocka_run_group_tests_name("replay", tests, setup, replay_fixture_teardown);
}
