/* Replay tests of the governor-miss split (bpf/gov.bpf.h, classify in
 * bpf/idle.bpf.h): the governor's inputs (RE_GOV: the sleep length and the
 * tick decision, as the fexit/fentry programs see them live) before hand-
 * written idle periods, through the real handlers; every expected count
 * worked out by hand next to its period. Needs root. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "replay.h"

#define NR_CPUS 5
#define FN_TIMER 0xffffffff81000100ULL

static void gov(struct idle_session *s, uint64_t cpu, uint64_t now, uint64_t sleep, bool kept)
{
	replay_send(s, (struct replay_event){ .kind = RE_GOV, .cpu = (uint32_t)cpu, .now_ns = now,
					      .gov = { .sleep_ns = sleep, .tick_kept = kept } });
}

/* kind: a wakeup cause, RE_LOCAL_TIMER to RE_NO_IPI */
static void wake(struct idle_session *s, uint64_t cpu, uint64_t now, uint32_t kind)
{
	replay_send(s, (struct replay_event){ .kind = kind, .cpu = (uint32_t)cpu, .now_ns = now });
}

/* a timer interrupt and the hrtimer it ran, expired at expires */
static void timer(struct idle_session *s, uint64_t cpu, uint64_t now, uint64_t expires)
{
	wake(s, cpu, now, RE_LOCAL_TIMER);
	replay_send(s, (struct replay_event){ .kind = RE_HRTIMER, .cpu = (uint32_t)cpu,
					      .now_ns = now, .timer.fn = FN_TIMER,
					      .timer.expires = expires, .timer.now = now });
}

static void period(struct idle_session *s, uint64_t cpu, uint64_t enter, uint64_t exit,
		   uint64_t state)
{
	replay_idle(s, cpu, enter, state);
	replay_idle(s, cpu, exit, EXIT);
}

static const struct idle_state_stats *st(const struct replay_fixture *f, int cpu, int state)
{
	return &f->raw.stats[cpu * IS_MAX_STATES + state];
}

static int setup(void **state)
{
	static struct replay_fixture f;
	char err[256];
	/* WFI 1/1 us, CPU_PD 100/1000 us, CLS_PD 1000/10000 us */
	struct idle_params arm = replay_arm_table(0), qos = replay_arm_table(0);

	qos.qos_limit_ns = 50 * US; /* CPU_PD (100 us) and CLS_PD barred */
	memset(&f, 0, sizeof(f));
	if (idle_session_open(&f.s, NR_CPUS, &(struct session_opts){ .replay = true, .state_slots = 3 },
			      err, sizeof(err))) {
		fprintf(stderr, "replay: %s\n", err);
		return -1;
	}
	idle_session_set_params(&f.s, 0, &arm);
	idle_session_set_params(&f.s, 1, &qos);
	idle_session_set_params(&f.s, 2, &arm);
	idle_session_set_params(&f.s, 3, &arm);
	idle_session_set_params(&f.s, 4, &arm);

	/* CPU 0 */
	gov(&f.s, 0, 1 * MS, 500 * US, false);
	period(&f.s, 0, 1 * MS, 1200 * US, 1);  /* CPU_PD 200 us < 1 ms: too deep; next timer
						 * 500 us < 1 ms: near */
	gov(&f.s, 0, 2 * MS, 5 * MS, false);
	period(&f.s, 0, 2 * MS, 2300 * US, 1);  /* too deep; next 5 ms >= 1 ms: woken before it */
	gov(&f.s, 0, 10 * MS, 20 * MS, true);
	period(&f.s, 0, 10 * MS, 12 * MS, 0);   /* WFI 2 ms: 2 ms - 1 us >= 1 ms (CPU_PD): too
						 * shallow, no QoS; tick kept */
	gov(&f.s, 0, 20 * MS, 20 * MS, false);
	period(&f.s, 0, 20 * MS, 22 * MS, 0);   /* too shallow, tick stopped, next 20 ms >= 1 ms:
						 * predicted short */
	gov(&f.s, 0, 30 * MS, 500 * US, false);
	period(&f.s, 0, 30 * MS, 32 * MS, 0);   /* too shallow, tick stopped, next 500 us < 1 ms
						 * yet slept 2 ms: timer moved */
	period(&f.s, 0, 40 * MS, 40100 * US, 1); /* too deep, but no inputs: not known */
	gov(&f.s, 0, 50 * MS, 30 * MS, false);
	period(&f.s, 0, 50 * MS, 70 * MS, 2);   /* CLS_PD 20 ms: no miss, known */
	/* inputs asked at 59.5 ms for an entry at 60 ms: the next timer is 1.5 ms
	 * after the fexit, 1 ms after the entry: not near */
	gov(&f.s, 0, 59500 * US, 1500 * US, false);
	period(&f.s, 0, 60 * MS, 60200 * US, 1);  /* too deep; woken before the timer */

	/* the deepest state, whose target is not the first's (CPU 0 still) */
	gov(&f.s, 0, 80 * MS, 3 * MS, false);
	period(&f.s, 0, 80 * MS, 85 * MS, 2);   /* CLS_PD 5 ms < 10 ms: too deep; next 3 ms
						 * < 10 ms: near */
	gov(&f.s, 0, 90 * MS, 5 * MS, false);
	period(&f.s, 0, 90 * MS, 120 * MS, 1);  /* CPU_PD 30 ms: 30 ms - 100 us >= 10 ms
						 * (CLS_PD): too shallow; next 5 ms < 10 ms:
						 * timer moved */

	/* CPU 1: PM QoS 50 us bars CPU_PD */
	gov(&f.s, 1, 1 * MS, 20 * MS, false);
	period(&f.s, 1, 1 * MS, 3 * MS, 0);     /* WFI 2 ms: too shallow for QoS: known, no split */

	/* CPU 2: a sleep length asked, but no tick decision (a governor path
	 * that never reached the tick): not known */
	replay_send(&f.s, (struct replay_event){ .kind = RE_GOV, .cpu = 2, .now_ns = 1 * MS,
						 .gov = { .sleep_ns = 5 * MS, .tick_kept = 2 } });
	period(&f.s, 2, 1 * MS, 1100 * US, 1);

	/* CPU 3: the causes of the too-deep periods woken before the timer */
	gov(&f.s, 3, 1 * MS, 5 * MS, false);
	replay_idle(&f.s, 3, 1 * MS, 1);
	wake(&f.s, 3, 1200 * US, RE_RESCHED);   /* inside the period (HLT-style) */
	replay_idle(&f.s, 3, 1300 * US, EXIT);  /* CPU_PD 300 us, next 5 ms: woken early,
						 * by ipi-resched */
	gov(&f.s, 3, 2 * MS, 5 * MS, false);
	period(&f.s, 3, 2 * MS, 2200 * US, 1);
	wake(&f.s, 3, 2201 * US, RE_IRQ);       /* 1 us after the exit (MWAIT-style): irq */
	gov(&f.s, 3, 3 * MS, 500 * US, false);
	replay_idle(&f.s, 3, 3 * MS, 1);
	timer(&f.s, 3, 3500 * US, 3500 * US);
	replay_idle(&f.s, 3, 3501 * US, EXIT);  /* too deep, next 500 us: near, no cause */
	gov(&f.s, 3, 4 * MS, 5 * MS, false);
	period(&f.s, 3, 4 * MS, 4100 * US, 1);  /* woken early; nothing came: unknown, */
	gov(&f.s, 3, 10 * MS, 5 * MS, false);
	period(&f.s, 3, 10 * MS, 10500 * US, 0); /* counted at this entry; WFI 500 us: no miss */

	/* CPU 4: timers that ended periods against the next event told */
	gov(&f.s, 4, 1 * MS, 2 * MS, false);    /* told: 3 ms */
	replay_idle(&f.s, 4, 1 * MS, 1);
	timer(&f.s, 4, 3005 * US, 3 * MS);      /* expired at 3 ms: as told */
	replay_idle(&f.s, 4, 3010 * US, EXIT);
	gov(&f.s, 4, 10 * MS, 2 * MS, false);   /* told: 12 ms */
	replay_idle(&f.s, 4, 10 * MS, 1);
	timer(&f.s, 4, 13002 * US, 13 * MS);    /* 1 ms later than told */
	replay_idle(&f.s, 4, 13003 * US, EXIT);
	gov(&f.s, 4, 20 * MS, 5 * MS, false);   /* told: 25 ms */
	period(&f.s, 4, 20 * MS, 22 * MS, 1);
	timer(&f.s, 4, 22001 * US, 22 * MS);    /* after the exit (MWAIT-style): 3 ms earlier */
	gov(&f.s, 4, 25 * MS, 3 * MS, true);    /* told: 28 ms, the tick kept on */
	replay_idle(&f.s, 4, 25 * MS, 1);
	timer(&f.s, 4, 26001 * US, 26 * MS);    /* the tick at 26 ms, before: tick first */
	replay_idle(&f.s, 4, 26002 * US, EXIT);
	replay_idle(&f.s, 4, 30 * MS, 1);       /* no inputs: lateness counted, not compared */
	timer(&f.s, 4, 31 * MS, 31 * MS);
	replay_idle(&f.s, 4, 31001 * US, EXIT);
	*state = &f;
	return idle_session_read(&f.s, &f.raw);
}

static void test_cpu0_split(void **state)
{
	const struct replay_fixture *f = *state;

	assert_int_equal(st(f, 0, 1)->above, 4);
	assert_int_equal(st(f, 0, 1)->gov_known, 4);
	assert_int_equal(st(f, 0, 1)->gov_above_near, 1);
	assert_int_equal(st(f, 0, 1)->gov_above_unannounced, 2);
	assert_int_equal(st(f, 0, 1)->below, 1);
	assert_int_equal(st(f, 0, 1)->gov_below_timer, 1);
	assert_int_equal(st(f, 0, 1)->gov_below_history + st(f, 0, 1)->gov_below_tick, 0);
	assert_int_equal(st(f, 0, 0)->below, 3);
	assert_int_equal(st(f, 0, 0)->gov_known, 3);
	assert_int_equal(st(f, 0, 0)->gov_below_tick, 1);
	assert_int_equal(st(f, 0, 0)->gov_below_history, 1);
	assert_int_equal(st(f, 0, 0)->gov_below_timer, 1);
	assert_int_equal(st(f, 0, 2)->gov_known, 2);
	assert_int_equal(st(f, 0, 2)->above, 1);
	assert_int_equal(st(f, 0, 2)->gov_above_near, 1);
	assert_int_equal(st(f, 0, 2)->gov_above_unannounced, 0);
}

static void test_qos_is_not_split(void **state)
{
	const struct replay_fixture *f = *state;

	assert_int_equal(st(f, 1, 0)->below, 1);
	assert_int_equal(st(f, 1, 0)->below_qos, 1);
	assert_int_equal(st(f, 1, 0)->gov_known, 1);
	assert_int_equal(st(f, 1, 0)->gov_below_tick + st(f, 1, 0)->gov_below_history +
				 st(f, 1, 0)->gov_below_timer,
			 0);
}

static void test_inputs_incomplete(void **state)
{
	const struct replay_fixture *f = *state;

	assert_int_equal(st(f, 2, 1)->above, 1);
	assert_int_equal(st(f, 2, 1)->gov_known, 0);
}

static void test_woken_early_causes(void **state)
{
	const struct replay_fixture *f = *state;
	const struct idle_state_stats *s = st(f, 3, 1);

	assert_int_equal(s->above, 4);
	assert_int_equal(s->gov_above_near, 1);
	assert_int_equal(s->gov_above_unannounced, 3);
	assert_int_equal(s->gov_above_cause[WAKE_IPI_RESCHED], 1);
	assert_int_equal(s->gov_above_cause[WAKE_IRQ], 1);
	assert_int_equal(s->gov_above_cause[WAKE_UNKNOWN], 1);
	assert_int_equal(s->gov_above_cause[WAKE_TIMER], 0);
	assert_int_equal(st(f, 3, 0)->below + st(f, 3, 0)->above, 0);
	for (int k = 0; k < WAKE_NR_KINDS; k++)
		assert_int_equal(st(f, 3, 0)->gov_above_cause[k], 0);
}

static void test_timer_against_told(void **state)
{
	const struct replay_fixture *f = *state;
	const struct wake_lat_stats *l = &f->raw.lat[4 * IS_MAX_STATES + 1];

	assert_int_equal(l->count, 5);
	assert_int_equal(l->gov_known, 4);
	assert_int_equal(l->gov_later, 1);
	assert_int_equal(l->gov_earlier, 1);
	assert_int_equal(l->gov_tick_first, 1);
	assert_int_equal(l->gov_err_sum_ns, 4 * MS); /* the tick's 2 ms not in it */
	assert_int_equal(l->gov_err_max_ns, 3 * MS);
	/* CPU 3's near period: its timer came as told */
	assert_int_equal(f->raw.lat[3 * IS_MAX_STATES + 1].gov_known, 1);
	assert_int_equal(f->raw.lat[3 * IS_MAX_STATES + 1].gov_later +
				 f->raw.lat[3 * IS_MAX_STATES + 1].gov_earlier,
			 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_woken_early_causes),
		cmocka_unit_test(test_timer_against_told),
		cmocka_unit_test(test_cpu0_split),
		cmocka_unit_test(test_qos_is_not_split),
		cmocka_unit_test(test_inputs_incomplete),
	};

	return cmocka_run_group_tests_name("replay_gov", tests, setup, replay_fixture_teardown);
}
