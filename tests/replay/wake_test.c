/* Replay tests for wakeup attribution: hand-written sequences of idle and
 * interrupt events through the real BPF handlers; every expected number is
 * worked out in the comment next to it. Needs root. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "replay.h"

#define NR_CPUS 6
#define FN_TICK 0xffffffff81000100ULL
#define FN_WAKEUP 0xffffffff81000200ULL



#define send replay_send
#define idle replay_idle

/* kind: one of the wakeup causes, RE_LOCAL_TIMER to RE_IPI_SEND */
static void wake(struct idle_session *s, uint64_t cpu, uint64_t now, uint32_t kind, uint64_t detail)
{
	send(s, (struct replay_event){ .kind = kind, .cpu = cpu, .now_ns = now,
				       .wake.detail = detail });
}

static void hrtimer(struct idle_session *s, uint64_t cpu, uint64_t now, uint64_t fn,
		    uint64_t expires)
{
	send(s, (struct replay_event){ .kind = RE_HRTIMER, .cpu = cpu, .now_ns = now,
				       .timer.fn = fn, .timer.expires = expires, .timer.now = now });
}

static void wakeup(struct idle_session *s, uint64_t this_cpu, uint64_t target, uint64_t pid,
		   const char *comm)
{
	struct replay_event e = { .kind = RE_SCHED_WAKEUP, .cpu = target, .task.pid = pid,
				  .task.waker_cpu = this_cpu };

	replay_comm(comm, e.task.comm);
	send(s, e);
}

static const struct wake_detail *detail(const struct replay_fixture *f, uint32_t cpu, uint32_t kind,
					uint32_t aux, uint64_t d)
{
	for (int i = 0; i < f->raw.nr_details; i++) {
		const struct wake_detail_key *k = &f->raw.details[i].key;

		if (k->cpu == cpu && k->kind == kind && k->aux == aux && k->detail == d)
			return &f->raw.details[i];
	}
	return NULL;
}

static int setup(void **state)
{
	static struct replay_fixture f;
	struct idle_session *s = &f.s;
	char err[256];

	memset(&f, 0, sizeof(f));
	if (idle_session_open(s, NR_CPUS, &(struct session_opts){ .replay = true }, err,
			      sizeof(err))) {
		fprintf(stderr, "replay: %s\n", err);
		return -1;
	}
	const struct idle_params arm = replay_arm_table(0);

	for (int c = 0; c < NR_CPUS; c++)
		idle_session_set_params(s, c, &arm);

	/* CPU 0, HLT-style timer: the interrupt runs inside the period. Timer
	 * expired at 11.001 ms - 37 us, handler at 11.001 ms: 37 us late. */
	idle(s, 0, 1 * MS, 2);
	wake(s, 0, 11 * MS, RE_LOCAL_TIMER, 0);
	hrtimer(s, 0, 11 * MS + 1 * US, FN_TICK, 11 * MS + 1 * US - 37 * US);
	idle(s, 0, 11 * MS + 10 * US, EXIT); /* 10.01 ms >= 10 ms target: not early */

	/* CPU 1, MWAIT-style: the IRQ comes 5 us after the exit (window 50 us). */
	idle(s, 1, 1 * MS, 1);
	idle(s, 1, 1500 * US, EXIT);           /* 500 us < 1000 us target: early */
	wake(s, 1, 1505 * US, RE_IRQ, 24);
	/* an event 80 us after the exit is too late: unknown */
	idle(s, 1, 2 * MS, 0);
	idle(s, 1, 2100 * US, EXIT);
	wake(s, 1, 2180 * US, RE_IRQ, 25);
	/* nothing before the next enter: unknown */
	idle(s, 1, 3 * MS, 0);
	idle(s, 1, 3010 * US, EXIT);
	idle(s, 1, 3020 * US, 0);
	idle(s, 1, 3030 * US, EXIT);           /* still pending at the end */

	/* CPU 2, reschedule IPI from CPU 0 waking pid 4242 "sched-pipe". */
	idle(s, 2, 1 * MS, 1);
	wake(s, 2, 1500 * US, RE_IPI_SEND, 0);
	wake(s, 2, 1502 * US, RE_RESCHED, 0);
	wakeup(s, 0, 2, 4242, "sched-pipe");
	idle(s, 2, 1505 * US, EXIT);           /* 505 us < 1000 us: early */
	idle(s, 2, 2 * MS, 1);                 /* closes the wake: wakee counted */

	/* CPU 3, wakelist: CPU 1 sends a single-call IPI, the wakeup runs on CPU 3. */
	idle(s, 3, 1 * MS, 0);
	wake(s, 3, 1100 * US, RE_IPI_SEND, 1);
	wake(s, 3, 1200 * US, RE_CALL_SINGLE, 0);
	wakeup(s, 3, 3, 77, "kworker/3:1");
	idle(s, 3, 1300 * US, EXIT);
	idle(s, 3, 2 * MS, 0);

	/* CPU 4, polling: told to reschedule without an IPI by CPU 1. */
	idle(s, 4, 1 * MS, 0);
	wake(s, 4, 1400 * US, RE_NO_IPI, 1);
	idle(s, 4, 1410 * US, EXIT);

	/* CPU 5: a softirq first; then an IRQ after the exit followed by an
	 * hrtimer (arm64's arch timer): lateness 16.004 ms - 15.99 ms = 14 us. */
	idle(s, 5, 1 * MS, 1);
	wake(s, 5, 1200 * US, RE_SOFTIRQ, 3);
	idle(s, 5, 1300 * US, EXIT);
	idle(s, 5, 5 * MS, 2);
	idle(s, 5, 16 * MS, EXIT);             /* 11 ms: not early */
	wake(s, 5, 16 * MS + 3 * US, RE_IRQ, 11);
	hrtimer(s, 5, 16 * MS + 4 * US, FN_WAKEUP, 15990 * US);
	hrtimer(s, 5, 16 * MS + 5 * US, FN_TICK, 15 * MS); /* second timer: ignored */

	if (idle_session_read(s, &f.raw))
		return -1;
	*state = &f;
	return 0;
}


static void test_hlt_timer_lateness(void **state)
{
	const struct replay_fixture *f = *state;
	const struct wake_lat_stats *l = &f->raw.lat[0 * IS_MAX_STATES + 2];
	const struct wake_detail *d = detail(f, 0, WDETAIL_TIMER_FN, 0, FN_TICK);

	assert_int_equal(f->raw.wake[0].count[WAKE_TIMER], 1);
	assert_int_equal(f->raw.wake[0].early[WAKE_TIMER], 0);
	assert_int_equal(l->count, 1);
	assert_int_equal(l->sum_ns, 37000);
	/* 37000: msb 15, (37000 >> 13) & 3 = 0 -> bucket 4*14 + 0 = 56 */
	assert_int_equal(l->hist[56], 1);
	assert_non_null(d);
	assert_int_equal(d->val.count, 1);
}

static void test_after_exit_window_and_unknown(void **state)
{
	const struct replay_fixture *f = *state;
	const struct wake_cpu_stats *w = &f->raw.wake[1];
	const struct wake_detail *d = detail(f, 1, WDETAIL_IRQ, 0, 24);

	assert_int_equal(w->count[WAKE_IRQ], 1);
	assert_int_equal(w->early[WAKE_IRQ], 1);
	assert_int_equal(w->count[WAKE_UNKNOWN], 2);
	assert_non_null(d);
	assert_int_equal(d->val.early, 1);
	assert_null(detail(f, 1, WDETAIL_IRQ, 0, 25)); /* outside the window */
	/* 4 exits: 3 counted causes + 1 still pending at the end */
	assert_int_equal(f->raw.slots[1].wake_pending, 1);
	assert_int_equal(f->raw.stats[1 * IS_MAX_STATES + 0].entries +
				 f->raw.stats[1 * IS_MAX_STATES + 1].entries, 4);
}

static void test_ipi_and_wakee(void **state)
{
	const struct replay_fixture *f = *state;
	const struct wake_detail *d = detail(f, 2, WDETAIL_WAKEE, 0, 4242);
	const struct wake_detail *k = detail(f, 3, WDETAIL_WAKEE, 1, 77);

	assert_int_equal(f->raw.wake[2].count[WAKE_IPI_RESCHED], 1);
	assert_int_equal(f->raw.wake[2].early[WAKE_IPI_RESCHED], 1);
	assert_non_null(d);
	assert_string_equal(d->val.comm, "sched-pipe");
	assert_int_equal(d->val.early, 1);
	/* wakelist: woken on CPU 3 itself, the waker is the IPI's sender, CPU 1 */
	assert_int_equal(f->raw.wake[3].count[WAKE_IPI_CALL_SINGLE], 1);
	assert_non_null(k);
	assert_string_equal(k->val.comm, "kworker/3:1");
}

static void test_poll_softirq_and_irq_timer(void **state)
{
	const struct replay_fixture *f = *state;
	const struct wake_lat_stats *l = &f->raw.lat[5 * IS_MAX_STATES + 2];

	assert_int_equal(f->raw.wake[4].count[WAKE_NO_IPI], 1);
	assert_int_equal(f->raw.wake[5].count[WAKE_SOFTIRQ], 1);
	assert_non_null(detail(f, 5, WDETAIL_SOFTIRQ, 0, 3));
	assert_int_equal(f->raw.wake[5].count[WAKE_IRQ], 1);
	assert_int_equal(l->count, 1);
	assert_int_equal(l->sum_ns, 14000);
	assert_non_null(detail(f, 5, WDETAIL_TIMER_FN, 0, FN_WAKEUP));
	assert_null(detail(f, 5, WDETAIL_TIMER_FN, 0, FN_TICK));
}

static void test_causes_sum_to_exits(void **state)
{
	const struct replay_fixture *f = *state;

	for (int c = 0; c < NR_CPUS; c++) {
		uint64_t causes = f->raw.slots[c].wake_pending, exits = 0;

		for (int k = 0; k < WAKE_NR_KINDS; k++)
			causes += f->raw.wake[c].count[k];
		for (int i = 0; i < IS_MAX_STATES; i++)
			exits += f->raw.stats[c * IS_MAX_STATES + i].entries;
		assert_int_equal(causes, exits);
	}
}

/* An HLT-style period on cpu ended by IRQ irq: 100 us of WFI-like state 0
 * (target 1 us: never early). */
static void irq_period(struct idle_session *s, uint64_t cpu, uint64_t t, uint64_t irq)
{
	idle(s, cpu, t, 0);
	wake(s, cpu, t + 50 * US, RE_IRQ, irq);
	idle(s, cpu, t + 100 * US, EXIT);
}

/* The per-CPU last-detail slot: a repeated key is counted in place, another
 * key pushes it to the table, and reads add the two. */
static void test_detail_last_slot(void **state)
{
	struct replay_fixture f;
	const uint64_t irqs[] = { 30, 30, 31, 30, 30, 30, 32 };
	char err[256];
	const struct wake_detail *d;

	(void)state;
	memset(&f, 0, sizeof(f));
	assert_int_equal(idle_session_open(&f.s, 2, &(struct session_opts){ .replay = true }, err,
					   sizeof(err)), 0);
	for (size_t i = 0; i < sizeof(irqs) / sizeof(irqs[0]); i++)
		irq_period(&f.s, 1, (1 + i) * MS, irqs[i]);
	assert_int_equal(idle_session_read(&f.s, &f.raw), 0);
	/* 30 x5: 2 flushed by 31, 3 more flushed by 32; 31 x1 in the table;
	 * 32 x1 still in the last slot */
	assert_non_null(d = detail(&f, 1, WDETAIL_IRQ, 0, 30));
	assert_int_equal(d->val.count, 5);
	assert_non_null(d = detail(&f, 1, WDETAIL_IRQ, 0, 31));
	assert_int_equal(d->val.count, 1);
	assert_non_null(d = detail(&f, 1, WDETAIL_IRQ, 0, 32));
	assert_int_equal(d->val.count, 1);
	assert_int_equal(f.raw.wake[1].count[WAKE_IRQ], 7);
	/* each key appears once, though it may sit in the table and the slot */
	assert_int_equal(f.raw.nr_details, 3);
	idle_raw_free(&f.raw);

	/* 32 again (2 in the slot), then 30 moves them to the table */
	irq_period(&f.s, 1, 20 * MS, 32);
	irq_period(&f.s, 1, 21 * MS, 30);
	assert_int_equal(idle_session_read(&f.s, &f.raw), 0);
	assert_int_equal(detail(&f, 1, WDETAIL_IRQ, 0, 32)->val.count, 2);
	assert_int_equal(detail(&f, 1, WDETAIL_IRQ, 0, 30)->val.count, 6);
	assert_int_equal(f.raw.nr_details, 3);
	replay_fixture_teardown(&(void *){ &f });
}

/* After the stop no wakeup statistic moves, though the interrupt-path
 * programs read the window's `stopped` only where statistics change:
 *   CPU 0: HLT-style, in its period at the stop (2 ms); a timer interrupt
 *          and its hrtimer at 3 ms: no cause, no lateness counted.
 *   CPU 1: exited at 1.99 ms (cause pending), stopped at 2 ms, an IRQ at
 *          2.01 ms (inside the 50 us window): not counted, still pending
 *          (the model counts it as unknown).
 *   CPU 2: in its period at the stop, pid 99 woken onto it at 2.5 ms, exit
 *          at 3 ms, enter at 4 ms: no wakee row.
 * Before the stop, CPU 0's first period (0.5-1 ms, a timer) is the one
 * counted cause: the check is not vacuous. */
static void test_nothing_counted_after_stop(void **state)
{
	struct replay_fixture f;
	char err[256];

	(void)state;
	memset(&f, 0, sizeof(f));
	assert_int_equal(idle_session_open(&f.s, 3, &(struct session_opts){ .replay = true }, err,
					   sizeof(err)), 0);
	for (int c = 0; c < 3; c++)
		idle_session_set_params(&f.s, c, &(struct idle_params){ .nr_states = 0 });
	idle(&f.s, 0, 500 * US, 1);
	wake(&f.s, 0, 1 * MS, RE_LOCAL_TIMER, 0);
	idle(&f.s, 0, 1 * MS + 5 * US, EXIT);
	idle(&f.s, 0, 1500 * US, 1);
	idle(&f.s, 1, 1 * MS, 1);
	idle(&f.s, 1, 1990 * US, EXIT);
	idle(&f.s, 2, 1 * MS, 1);
	idle_session_stop(&f.s, 2 * MS);
	wake(&f.s, 0, 3 * MS, RE_LOCAL_TIMER, 0);
	hrtimer(&f.s, 0, 3 * MS + 1 * US, FN_TICK, 3 * MS - 20 * US);
	wake(&f.s, 1, 2010 * US, RE_IRQ, 24);
	wakeup(&f.s, 0, 2, 99, "late");
	idle(&f.s, 2, 3 * MS, EXIT);
	idle(&f.s, 2, 4 * MS, 1);
	assert_int_equal(idle_session_read(&f.s, &f.raw), 0);
	assert_int_equal(f.raw.wake[0].count[WAKE_TIMER], 1);
	for (int c = 0; c < 3; c++) {
		uint64_t n = 0, lat = 0;

		for (int k = 0; k < WAKE_NR_KINDS; k++)
			n += f.raw.wake[c].count[k];
		for (int st = 0; st < IS_MAX_STATES; st++)
			lat += f.raw.lat[c * IS_MAX_STATES + st].count;
		assert_int_equal(n, c == 0 ? 1 : 0);
		assert_int_equal(lat, 0);
	}
	assert_int_equal(f.raw.slots[1].wake_pending, 1);
	assert_null(detail(&f, 2, WDETAIL_WAKEE, 0, 99));
	assert_null(detail(&f, 1, WDETAIL_IRQ, 0, 24));
	replay_fixture_teardown(&(void *){ &f });
}

/* A poll that reached its time limit with nothing inside is poll-timeout
 * (bpf/wake.bpf.h poll_timed_out): POLL 0/0 and C1 50/100 us, the poll's
 * limit 100 us (cpuidle_poll_time: C1's target residency).
 *   CPU 0: POLL 1.0-1.1 ms (100 us, the limit), nothing inside:
 *            poll-timeout at the exit
 *          POLL 2.0-2.05 ms (50 us), nothing inside or after: unknown at
 *            the next entry (3 ms)
 *          POLL 3.0-3.15 ms (150 us), a timer interrupt at 3.1 ms inside:
 *            timer (the first event of the period)
 *          C1 4.0-4.2 ms (200 us), nothing: not a poll: unknown at 5 ms
 *          C1 5.0-5.01 ms: pending at the end
 *   CPU 1: POLL 1.0-1.2 ms (200 us), work queued at the exit: poll-resched
 *          before the limit's rule
 * CPU 0: poll-timeout 1, unknown 2, timer 1, 1 pending; CPU 1: poll-resched 1. */
static void test_poll_timeout_by_limit(void **state)
{
	struct idle_params p = {
		.nr_states = 2, .flags = IS_PARAMS_VALID, .poll_mask = 1, .noipi_mask = 1,
		.qos_limit_ns = UINT64_MAX, .poll_limit_ns = 100 * US,
		.exit_latency_ns = { 0, 50 * US }, .target_residency_ns = { 0, 100 * US },
	};
	struct replay_fixture f;
	char err[256];

	(void)state;
	memset(&f, 0, sizeof(f));
	assert_int_equal(idle_session_open(&f.s, 2, &(struct session_opts){ .replay = true }, err,
					   sizeof(err)), 0);
	for (int c = 0; c < 2; c++)
		idle_session_set_params(&f.s, c, &p);
	idle(&f.s, 0, 1000 * US, 0);
	idle(&f.s, 0, 1100 * US, EXIT);
	idle(&f.s, 0, 2000 * US, 0);
	idle(&f.s, 0, 2050 * US, EXIT);
	idle(&f.s, 0, 3000 * US, 0);
	wake(&f.s, 0, 3100 * US, RE_LOCAL_TIMER, 0);
	idle(&f.s, 0, 3150 * US, EXIT);
	idle(&f.s, 0, 4000 * US, 1);
	idle(&f.s, 0, 4200 * US, EXIT);
	idle(&f.s, 0, 5000 * US, 1);
	idle(&f.s, 0, 5010 * US, EXIT);
	idle(&f.s, 1, 1000 * US, 0);
	replay_exit_noipi(&f.s, 1, 1200 * US);
	assert_int_equal(idle_session_read(&f.s, &f.raw), 0);
	assert_int_equal(f.raw.wake[0].count[WAKE_POLL_TIMEOUT], 1);
	assert_int_equal(f.raw.wake[0].count[WAKE_UNKNOWN], 2);
	assert_int_equal(f.raw.wake[0].count[WAKE_TIMER], 1);
	assert_int_equal(f.raw.slots[0].wake_pending, 1);
	assert_int_equal(f.raw.wake[1].count[WAKE_NO_IPI], 1);
	assert_int_equal(f.raw.wake[1].count[WAKE_POLL_TIMEOUT], 0);
	replay_fixture_teardown(&(void *){ &f });
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hlt_timer_lateness),
		cmocka_unit_test(test_after_exit_window_and_unknown),
		cmocka_unit_test(test_ipi_and_wakee),
		cmocka_unit_test(test_poll_softirq_and_irq_timer),
		cmocka_unit_test(test_causes_sum_to_exits),
	};
	const struct CMUnitTest detail_tests[] = {
		cmocka_unit_test(test_detail_last_slot),
		cmocka_unit_test(test_nothing_counted_after_stop),
		cmocka_unit_test(test_poll_timeout_by_limit),
	};

	return cmocka_run_group_tests_name("replay-wake", tests, setup, replay_fixture_teardown) ||
	       cmocka_run_group_tests_name("replay-wake-details", detail_tests, NULL, NULL);
}
