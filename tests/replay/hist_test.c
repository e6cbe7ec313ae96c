/* Replay tests for `idlescope hist`: scheduler latencies (with the
 * waking/wakeup split and the -c filter) and idle entry/exit overhead,
 * through the real handlers; expected values worked out by hand. Root. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "replay.h"

#define NR_CPUS 2

#define send replay_send

static void ready(struct idle_session *s, uint64_t now, uint64_t pid, const char *comm)
{
	struct replay_event e = { .kind = RE_TASK_READY, .now_ns = now, .task.pid = pid,
				  .task.tgid = pid };

	replay_comm(comm, e.task.comm);
	send(s, e);
}

static void sw(struct idle_session *s, uint64_t cpu, uint64_t now, uint64_t prev, uint64_t next,
	       uint64_t runnable)
{
	send(s, (struct replay_event){ .kind = RE_SWITCH, .cpu = cpu, .now_ns = now,
				       .sw.prev_pid = prev, .sw.next_pid = next,
				       .sw.prev_runnable = runnable });
}

static struct hist_slot *run(struct session_opts *o, void (*events)(struct idle_session *))
{
	struct hist_slot *h = calloc(NR_CPUS * IS_MAX_STATES, sizeof(*h));
	struct idle_session s;
	char err[256];

	assert_non_null(h);
	o->replay = true;
	assert_int_equal(idle_session_open(&s, NR_CPUS, o, err, sizeof(err)), 0);
	events(&s);
	assert_int_equal(idle_session_read_hist(&s, h, false), 0);
	idle_session_close(&s);
	return h;
}

static void wakeup_events(struct idle_session *s)
{
	/* pid 5 "sched-pipe": waking at 100 us, wakeup at 130 us, running on
	 * CPU 1 at 200 us: total 100 us = 30 us wakeup path + 70 us run queue */
	ready(s, 100 * US, 5, "sched-pipe");
	send(s, (struct replay_event){ .kind = RE_TASK_WAKEUP, .now_ns = 130 * US, .task.pid = 5 });
	sw(s, 1, 200 * US, 0, 5, 0);
	/* pid 6 "other" does not match -c sched-pipe: not timed */
	ready(s, 300 * US, 6, "other");
	sw(s, 0, 350 * US, 0, 6, 0);
	/* pid 5 switched in again without a new wakeup: nothing */
	sw(s, 1, 400 * US, 0, 5, 0);
}

static void test_wakeup_split_and_filter(void **state)
{
	/* a 2-state machine, as on the dev guest: the loader still keeps the
	 * three parts, which live in the state dimension */
	struct session_opts o = { .hist = { .metric = HM_WAKEUP_LATENCY, .comm = "sched-pipe" },
				  .state_slots = 2 };
	struct hist_slot *h = run(&o, wakeup_events);
	const struct hist_slot *total = &h[1 * IS_MAX_STATES + WP_TOTAL];

	(void)state;
	assert_int_equal(total->count, 1);
	assert_int_equal(total->sum_ns, 100 * US);
	assert_int_equal(h[1 * IS_MAX_STATES + WP_WAKEUP].sum_ns, 30 * US);
	assert_int_equal(h[1 * IS_MAX_STATES + WP_RUNQ].sum_ns, 70 * US);
	assert_int_equal(h[0 * IS_MAX_STATES + WP_TOTAL].count, 0); /* pid 6 filtered */
	/* 100 us in us, log2: 100 in [64, 128) -> display bucket msb(100)+1 = 7 */
	assert_int_equal(total->disp[7], 1);
	free(h);
}

static void runq_events(struct idle_session *s)
{
	/* pid 7 woken at 10 us, runs on CPU 0 at 25 us (15 us); preempted
	 * while runnable at 40 us, back at 100 us (60 us) */
	ready(s, 10 * US, 7, "t");
	sw(s, 0, 25 * US, 0, 7, 0);
	sw(s, 0, 40 * US, 7, 9, 1);
	sw(s, 0, 100 * US, 9, 7, 0);
}

static void test_runq_with_preemption(void **state)
{
	struct session_opts o = { .hist = { .metric = HM_RUNQ_LATENCY, .linear_ns = 10 * US } };
	struct hist_slot *h = run(&o, runq_events);

	(void)state;
	assert_int_equal(h[0].count, 2);
	assert_int_equal(h[0].sum_ns, 75 * US);
	assert_int_equal(h[0].min_ns, 15 * US);
	assert_int_equal(h[0].max_ns, 60 * US);
	/* linear 10 us: 15 us -> bucket 1, 60 us -> bucket 6 */
	assert_int_equal(h[0].disp[1], 1);
	assert_int_equal(h[0].disp[6], 1);
	free(h);
}

static void idle_events(struct idle_session *s)
{
	/* CPU 0 switches to idle at 10 us, enters state 1 at 14 us (entry 4 us),
	 * exits at 500 us, switches to pid 3 at 509 us (exit 9 us) */
	idle_session_start(s, 1);
	sw(s, 0, 10 * US, 3, 0, 0);
	send(s, (struct replay_event){ .kind = RE_IDLE, .cpu = 0, .now_ns = 14 * US,
				       .idle.state = 1 });
	send(s, (struct replay_event){ .kind = RE_IDLE, .cpu = 0, .now_ns = 500 * US,
				       .idle.state = EXIT });
	sw(s, 0, 509 * US, 0, 3, 0);
}

static void test_idle_entry(void **state)
{
	struct session_opts o = { .hist = { .metric = HM_IDLE_ENTRY } };
	struct hist_slot *h = run(&o, idle_events);

	(void)state;
	assert_int_equal(h[0 * IS_MAX_STATES + 1].count, 1);
	assert_int_equal(h[0 * IS_MAX_STATES + 1].sum_ns, 4 * US);
	free(h);
}

static void test_idle_exit(void **state)
{
	struct session_opts o = { .hist = { .metric = HM_IDLE_EXIT } };
	struct hist_slot *h = run(&o, idle_events);

	(void)state;
	assert_int_equal(h[0 * IS_MAX_STATES + 1].count, 1);
	assert_int_equal(h[0 * IS_MAX_STATES + 1].sum_ns, 9 * US);
	free(h);
}

static void test_residency(void **state)
{
	struct session_opts o = { .hist = { .metric = HM_RESIDENCY } };
	struct hist_slot *h = run(&o, idle_events);

	(void)state;
	/* 500 - 14 = 486 us in state 1 */
	assert_int_equal(h[0 * IS_MAX_STATES + 1].count, 1);
	assert_int_equal(h[0 * IS_MAX_STATES + 1].sum_ns, 486 * US);
	free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wakeup_split_and_filter),
		cmocka_unit_test(test_runq_with_preemption),
		cmocka_unit_test(test_idle_entry),
		cmocka_unit_test(test_idle_exit),
		cmocka_unit_test(test_residency),
	};

	return cmocka_run_group_tests_name("replay-hist", tests, NULL, NULL);
}
