/* Unit tests for user/session/raw_delta.c: the interval deltas of raw
 * snapshots (`idlescope top`) against hand-computed periods. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "session/raw_delta.h"
#include "fake_raw.h"

/* One CPU, interval [1000, 2000] ns:
 *   a state-1 period 900..1100 in flight at 1000 (prev: 10 periods, 1000 ns);
 *   a state-1 period 1200..1500;
 *   a state-0 period from 1800, in flight at 2000.
 * cur's state-1 counters: 12 periods, 1000 + 200 + 300 = 1500 ns.
 * Interval: state 1 = 100 (1000..1100) + 300 = 400 ns, 2 periods;
 * state 0 = 200 ns (1800..2000), no completed period. */
static void test_delta_cuts_periods(void **state)
{
	struct idle_raw prev, cur, d;

	(void)state;
	raw_alloc(&prev, 1, 1);
	raw_alloc(&cur, 1, 1);
	prev.stats[1].entries = 10;
	prev.stats[1].time_ns = 1000;
	prev.stats[1].below = 4;
	prev.slots[0].enter_ns = 900;
	prev.slots[0].state = 1;
	cur.stats[1].entries = 12;
	cur.stats[1].time_ns = 1500;
	cur.stats[1].below = 5;
	prev.stats[1].early = 2; /* 1 early period of 300 ns in the interval */
	prev.stats[1].early_ns = 500;
	cur.stats[1].early = 3;
	cur.stats[1].early_ns = 800;
	prev.stats[1].fx_entered = 10; /* fexit's counts are deltas too */
	cur.stats[1].fx_entered = 12;
	cur.stats[1].min_ns = 7;
	cur.slots[0].enter_ns = 1800;
	cur.slots[0].state = 0;
	/* wakeups: 3 timer causes in the interval; one still pending */
	prev.wake[0].count[WAKE_TIMER] = 5;
	cur.wake[0].count[WAKE_TIMER] = 8;
	cur.slots[0].wake_pending = 1;
	/* details: A 4 -> 6, B new with 2, C unchanged */
	detail(&prev, WDETAIL_TIMER_FN, 0xa, 4);
	detail(&prev, WDETAIL_TIMER_FN, 0xc, 3);
	detail(&cur, WDETAIL_TIMER_FN, 0xc, 3);
	detail(&cur, WDETAIL_TIMER_FN, 0xb, 2);
	detail(&cur, WDETAIL_TIMER_FN, 0xa, 6);
	/* group of 2 CPUs all idle 950..1050 (prev 100 ns in total), then
	 * all idle again from 1900 in state 0 */
	prev.groups[0].time_ns = 100;
	prev.groups[0].state_time_ns[1] = 100;
	prev.group_slots[0] = (struct group_slot){ .word = 2, .nr_children = 2, .state = 1,
						   .idle_since = 950 };
	cur.groups[0].time_ns = 200;
	cur.groups[0].periods = 1;
	cur.groups[0].state_time_ns[1] = 200;
	cur.group_slots[0] = (struct group_slot){ .word = 2, .nr_children = 2, .state = 0,
						  .idle_since = 1900 };

	assert_int_equal(idle_raw_delta(&prev, &cur, 1000, 2000, &d), 0);
	assert_int_equal(d.stats[1].entries, 2);
	assert_int_equal(d.stats[1].time_ns, 400);
	assert_int_equal(d.stats[1].below, 1);
	assert_int_equal(d.stats[1].min_ns, 0);
	assert_int_equal(d.stats[1].early, 1);
	assert_int_equal(d.stats[1].early_ns, 300);
	assert_int_equal(d.stats[1].fx_entered, 2);
	assert_int_equal(d.stats[0].entries, 0);
	assert_int_equal(d.stats[0].time_ns, 200);
	assert_int_equal(d.slots[0].enter_ns, 0);
	assert_int_equal(d.wake[0].count[WAKE_TIMER], 3);
	assert_int_equal(d.slots[0].wake_pending, 0);
	assert_int_equal(d.nr_details, 2);
	for (int i = 0; i < d.nr_details; i++)
		assert_int_equal(d.details[i].val.count, d.details[i].key.detail == 0xa ? 2 : 2);
	/* group: 1000..1050 = 50, plus 1900..2000 = 100 in state 0 */
	assert_int_equal(d.groups[0].time_ns, 150);
	assert_int_equal(d.groups[0].state_time_ns[1], 50);
	assert_int_equal(d.groups[0].state_time_ns[0], 100);
	assert_int_equal(d.groups[0].periods, 1);
	assert_int_equal(d.group_slots[0].idle_since, 0);
	idle_raw_free(&d);
	idle_raw_free(&prev);
	idle_raw_free(&cur);
}

/* A period in flight across a whole interval is charged the whole interval
 * and nothing when the same period is still in flight (no double count). */
static void test_delta_long_period(void **state)
{
	struct idle_raw prev, cur, d;

	(void)state;
	raw_alloc(&prev, 1, 0);
	raw_alloc(&cur, 1, 0);
	prev.slots[0].enter_ns = 500;
	prev.slots[0].state = 2;
	cur.slots[0] = prev.slots[0];
	assert_int_equal(idle_raw_delta(&prev, &cur, 1000, 3000, &d), 0);
	assert_int_equal(d.stats[2].time_ns, 2000);
	idle_raw_free(&d);
	/* it ends at 3500, counted whole (3000 ns) at its exit */
	cur.slots[0].enter_ns = 0;
	cur.stats[2].entries = 1;
	cur.stats[2].time_ns = 3000;
	prev.slots[0].enter_ns = 500;
	assert_int_equal(idle_raw_delta(&prev, &cur, 3000, 4000, &d), 0);
	assert_int_equal(d.stats[2].time_ns, 500); /* 3000..3500 */
	idle_raw_free(&d);
	idle_raw_free(&prev);
	idle_raw_free(&cur);
}

/* A group all idle since 400, before the session's start at 500, until
 * 1200: BPF counts it from the start (700 ns, bpf/group.bpf.h), so its part
 * before 1000 comes off as from 500. Interval [1000, 2000]: 1000..1200 and
 * one more interval 1300..1500, 400 ns in state 1. (Issue 22: it was not
 * counted at all, and top showed the group busy while its CPUs idled.) */
static void test_delta_group_before_start(void **state)
{
	struct idle_raw prev, cur, d;

	(void)state;
	raw_alloc(&prev, 1, 1);
	raw_alloc(&cur, 1, 1);
	prev.start_ns = cur.start_ns = 500;
	prev.group_slots[0] = (struct group_slot){ .word = 2, .nr_children = 2, .state = 1,
						   .idle_since = 400 };
	cur.group_slots[0] = (struct group_slot){ .word = 1, .nr_children = 2 };
	cur.groups[0].periods = 2;
	cur.groups[0].time_ns = 900;
	cur.groups[0].state_time_ns[1] = 900;
	assert_int_equal(idle_raw_delta(&prev, &cur, 1000, 2000, &d), 0);
	assert_int_equal(d.groups[0].time_ns, 400);
	assert_int_equal(d.groups[0].state_time_ns[1], 400);
	idle_raw_free(&d);
	/* one that began inside the session (900) and ended at 1200 as well:
	 * its 100 ns before 1000 come off, 600 - 100 */
	prev.group_slots[0].idle_since = 900;
	cur.groups[0].periods = 2;
	cur.groups[0].time_ns = 600;
	cur.groups[0].state_time_ns[1] = 600;
	assert_int_equal(idle_raw_delta(&prev, &cur, 1000, 2000, &d), 0);
	assert_int_equal(d.groups[0].time_ns, 500); /* 600 - (1000 - 900) */
	idle_raw_free(&d);
	idle_raw_free(&prev);
	idle_raw_free(&cur);
}

/* The reads are spread: a period that ended between a CPU's read (in the
 * previous snapshot) and that snapshot's stamp counts in the next interval.
 * Interval [1000, 2000]: state 1 counted 700 ns in periods ending after 1000
 * plus 400 ns of one that ended at 990, after the CPU's read but before the
 * stamp, and state 2 in flight from 1300: 700 ns. 1800 > 1000: the excess
 * 800 comes off the largest state, and so for the group's all-idle time. */
static void test_delta_trim(void **state)
{
	struct idle_raw prev, cur, d;

	(void)state;
	raw_alloc(&prev, 1, 1);
	raw_alloc(&cur, 1, 1);
	cur.stats[1].entries = 3;
	cur.stats[1].time_ns = 1100;
	cur.slots[0].enter_ns = 1300;
	cur.slots[0].state = 2;
	cur.groups[0].periods = 2;
	cur.groups[0].time_ns = 1300;
	cur.groups[0].state_time_ns[1] = 900;
	cur.groups[0].state_time_ns[2] = 400;
	assert_int_equal(idle_raw_delta(&prev, &cur, 1000, 2000, &d), 0);
	assert_int_equal(d.stats[1].time_ns + d.stats[2].time_ns, 1000);
	assert_int_equal(d.stats[1].time_ns, 300);
	assert_int_equal(d.stats[2].time_ns, 700);
	assert_int_equal(d.stats[1].entries, 3);
	assert_int_equal(d.groups[0].time_ns, 1000);
	assert_int_equal(d.groups[0].state_time_ns[1], 600);
	assert_int_equal(d.groups[0].state_time_ns[2], 400);
	idle_raw_free(&d);
	idle_raw_free(&prev);
	idle_raw_free(&cur);
}

/* Halt-polling over an interval: prev had 3 woken, 1 timed out, 1 grow
 * with the limit at 20 us; cur 7, 2, 2 grows and 1 shrink, limit 10 us.
 * Interval: 4 woken, 1 timed out, 1 grow, 1 shrink; the limit 20 us at
 * its start and 10 us at its end. Without the table, none. */
static void test_delta_haltpoll(void **state)
{
	struct idle_raw prev, cur, d;

	(void)state;
	raw_alloc(&prev, 1, 0);
	raw_alloc(&cur, 1, 0);
	assert_int_equal(idle_raw_delta(&prev, &cur, 1000, 2000, &d), 0);
	assert_null(d.haltpoll);
	idle_raw_free(&d);
	prev.haltpoll = calloc(1, sizeof(*prev.haltpoll));
	cur.haltpoll = calloc(1, sizeof(*cur.haltpoll));
	*prev.haltpoll = (struct haltpoll_cpu){ .woken = 3, .timed_out = 1, .grow = 1,
						.limit_ns = 20000, .limit_first_ns = 5000 };
	*cur.haltpoll = (struct haltpoll_cpu){ .woken = 7, .timed_out = 2, .grow = 2, .shrink = 1,
					       .limit_ns = 10000, .limit_first_ns = 5000 };
	assert_int_equal(idle_raw_delta(&prev, &cur, 1000, 2000, &d), 0);
	assert_int_equal(d.haltpoll[0].woken, 4);
	assert_int_equal(d.haltpoll[0].timed_out, 1);
	assert_int_equal(d.haltpoll[0].grow, 1);
	assert_int_equal(d.haltpoll[0].shrink, 1);
	assert_int_equal(d.haltpoll[0].limit_first_ns, 20000);
	assert_int_equal(d.haltpoll[0].limit_ns, 10000);
	idle_raw_free(&d);
	idle_raw_free(&prev);
	idle_raw_free(&cur);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_delta_cuts_periods),
		cmocka_unit_test(test_delta_long_period),
		cmocka_unit_test(test_delta_group_before_start),
		cmocka_unit_test(test_delta_trim),
		cmocka_unit_test(test_delta_haltpoll),
	};

	return cmocka_run_group_tests_name("raw_delta", tests, NULL, NULL);
}
