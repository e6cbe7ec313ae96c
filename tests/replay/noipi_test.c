/* Replay tests of wakeups without an IPI. From a trace
 * (sched_wake_idle_without_ipi, bpf/wake.bpf.h handle_no_ipi and
 * noipi_take): the waker marks the polling CPU's sender line, and the CPU
 * takes the mark as its wake's cause only when nothing came before it,
 * inside the period or in the wake window after the exit. Live (an exit's
 * RE_EXIT_NOIPI, noipi_at_exit): the CPU finds it at its exit, when no
 * interrupt came inside. Every expected cause worked out by hand next to
 * its events. Needs root. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "replay.h"

#define NR_CPUS 10

/* kind: a wakeup cause, RE_LOCAL_TIMER to RE_NO_IPI (detail: the waker) */
static void wake(struct idle_session *s, uint64_t cpu, uint64_t now, uint32_t kind,
		 uint64_t detail)
{
	replay_send(s, (struct replay_event){ .kind = kind, .cpu = (uint32_t)cpu, .now_ns = now,
					      .wake.detail = detail });
}

static struct replay_fixture f;

static int setup(void **state)
{
	struct idle_session *s = &f.s;
	char err[256];

	memset(&f, 0, sizeof(f));
	/* the default wake window: 50 us after the exit */
	if (idle_session_open(s, NR_CPUS, &(struct session_opts){ .replay = true }, err,
			      sizeof(err))) {
		fprintf(stderr, "replay: %s\n", err);
		return -1;
	}
	for (int c = 0; c < NR_CPUS; c++) {
		struct idle_params p = replay_arm_table(0);

		idle_session_set_params(s, c, &p);
	}

	/* CPU 0: an IRQ first, the waker's mark after it: irq */
	replay_idle(s, 0, 1 * MS, 0);
	wake(s, 0, 1100 * US, RE_IRQ, 9);
	wake(s, 0, 1200 * US, RE_NO_IPI, 1);
	replay_idle(s, 0, 1300 * US, EXIT);

	/* CPU 1: the mark after the exit, within the window (MWAIT-style:
	 * nothing came inside); taken at the next entry: no-ipi from CPU 3 */
	replay_idle(s, 1, 1 * MS, 1);
	replay_idle(s, 1, 1300 * US, EXIT);
	wake(s, 1, 1320 * US, RE_NO_IPI, 3);
	replay_idle(s, 1, 2 * MS, 0);

	/* CPU 2: the mark within the window, then a timer interrupt: the
	 * mark came first: no-ipi from CPU 0 */
	replay_idle(s, 2, 1 * MS, 1);
	replay_idle(s, 2, 1300 * US, EXIT);
	wake(s, 2, 1310 * US, RE_NO_IPI, 0);
	wake(s, 2, 1320 * US, RE_LOCAL_TIMER, 0);

	/* CPU 3: the mark 60 us after the exit, past the window: unknown at
	 * the next entry */
	replay_idle(s, 3, 1 * MS, 1);
	replay_idle(s, 3, 1300 * US, EXIT);
	wake(s, 3, 1360 * US, RE_NO_IPI, 2);
	replay_idle(s, 3, 2 * MS, 0);

	/* CPU 4: a mark in one period, none in the next: the stale mark (an
	 * older wake's) is not the next period's cause; that one is unknown */
	replay_idle(s, 4, 1 * MS, 0);
	wake(s, 4, 1100 * US, RE_NO_IPI, 5);
	replay_idle(s, 4, 1200 * US, EXIT);
	replay_idle(s, 4, 2 * MS, 0);
	replay_idle(s, 4, 2500 * US, EXIT);
	replay_idle(s, 4, 3 * MS, 0);

	/* CPU 5: the mark within the window and the read before anything
	 * else: the period in flight, its cause the mark's */
	replay_idle(s, 5, 1 * MS, 1);
	replay_idle(s, 5, 1300 * US, EXIT);
	wake(s, 5, 1330 * US, RE_NO_IPI, 4);

	/* CPU 6: the exit finds work queued, nothing came inside: poll-resched
	 * at the exit; a timer interrupt 10 us later is not its cause */
	replay_idle(s, 6, 1 * MS, 0);
	replay_exit_noipi(s, 6, 1300 * US);
	wake(s, 6, 1310 * US, RE_LOCAL_TIMER, 0);
	replay_idle(s, 6, 2 * MS, 0);

	/* CPU 7: an IRQ inside, then the exit finds work queued (the IRQ's
	 * handler woke a task): irq */
	replay_idle(s, 7, 1 * MS, 0);
	wake(s, 7, 1100 * US, RE_IRQ, 11);
	replay_exit_noipi(s, 7, 1300 * US);

	/* CPU 8: the same periods without the fact: the exit leaves the cause
	 * pending, and the timer in the window is it */
	replay_idle(s, 8, 1 * MS, 0);
	replay_idle(s, 8, 1300 * US, EXIT);
	wake(s, 8, 1310 * US, RE_LOCAL_TIMER, 0);
	replay_idle(s, 8, 2 * MS, 0);

	/* CPU 9: a waker's mark inside and the fact at the exit: one
	 * poll-resched, the marker's (CPU 2) */
	replay_idle(s, 9, 1 * MS, 0);
	wake(s, 9, 1100 * US, RE_NO_IPI, 2);
	replay_exit_noipi(s, 9, 1300 * US);
	replay_idle(s, 9, 2 * MS, 0);

	*state = &f;
	return idle_session_read(s, &f.raw);
}

static const struct wake_cpu_stats *ws(int cpu)
{
	return &f.raw.wake[cpu];
}

static void test_first_event_wins(void **state)
{
	(void)state;
	assert_int_equal(ws(0)->count[WAKE_IRQ], 1);
	assert_int_equal(ws(0)->count[WAKE_NO_IPI], 0);
	assert_int_equal(ws(2)->count[WAKE_NO_IPI], 1);
	assert_int_equal(ws(2)->count[WAKE_TIMER], 0);
}

static void test_after_the_exit(void **state)
{
	(void)state;
	assert_int_equal(ws(1)->count[WAKE_NO_IPI], 1);
	assert_int_equal(ws(1)->count[WAKE_UNKNOWN], 0);
	/* past the window: not the cause */
	assert_int_equal(ws(3)->count[WAKE_NO_IPI], 0);
	assert_int_equal(ws(3)->count[WAKE_UNKNOWN], 1);
}

static void test_a_mark_is_one_wake_s(void **state)
{
	(void)state;
	assert_int_equal(ws(4)->count[WAKE_NO_IPI], 1);
	assert_int_equal(ws(4)->count[WAKE_UNKNOWN], 1);
}

/* The waker is the detail: the wakes' detail rows are per cause, not per
 * waker, so it shows in the slot the read leaves: CPU 5's pending wake,
 * and CPU 1's counted one. */
static void test_in_flight_mark(void **state)
{
	const struct idle_cpu_slot *sl = &f.raw.slots[5];

	(void)state;
	assert_int_equal(ws(5)->count[WAKE_NO_IPI] + ws(5)->count[WAKE_UNKNOWN], 0);
	assert_true(sl->wake_pending);
	assert_int_equal(sl->noipi_from, 4 + 1);
	assert_int_equal(sl->noipi_gen, sl->wake_gen);
	assert_int_equal(f.raw.slots[1].wake_detail, 3);
}

static void test_found_at_the_exit(void **state)
{
	(void)state;
	assert_int_equal(ws(6)->count[WAKE_NO_IPI], 1);
	assert_int_equal(ws(6)->count[WAKE_TIMER], 0);
	assert_int_equal(ws(6)->count[WAKE_UNKNOWN], 0);
	/* counted at the exit: nothing pending after it */
	assert_false(f.raw.slots[7].wake_pending);
	assert_int_equal(ws(7)->count[WAKE_IRQ], 1);
	assert_int_equal(ws(7)->count[WAKE_NO_IPI], 0);
	assert_int_equal(ws(8)->count[WAKE_TIMER], 1);
	assert_int_equal(ws(8)->count[WAKE_NO_IPI], 0);
}

static void test_mark_and_exit_fact_count_once(void **state)
{
	(void)state;
	assert_int_equal(ws(9)->count[WAKE_NO_IPI], 1);
	assert_int_equal(ws(9)->count[WAKE_UNKNOWN], 0);
	assert_int_equal(f.raw.slots[9].wake_detail, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_event_wins),
		cmocka_unit_test(test_after_the_exit),
		cmocka_unit_test(test_a_mark_is_one_wake_s),
		cmocka_unit_test(test_in_flight_mark),
		cmocka_unit_test(test_found_at_the_exit),
		cmocka_unit_test(test_mark_and_exit_fact_count_once),
	};

	return cmocka_run_group_tests_name("replay_noipi", tests, setup, replay_fixture_teardown);
}
