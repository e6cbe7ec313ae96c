/* Replay tests for the bounded tables under an event storm: more distinct
 * wakeup details than the detail table holds (IS_WAKE_DETAILS_PER_CPU per
 * CPU). Each CPU's last key of a kind waits in its last-detail slot; every
 * other distinct key past the table's size is a counted drop, and the cause
 * counts (kept elsewhere) lose nothing. Needs root. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "replay.h"

#define NR_CPUS 2
#define TABLE (NR_CPUS * IS_WAKE_DETAILS_PER_CPU) /* entries the loader gives it */
#define EXTRA 700 /* distinct timer functions past the table's size */
#define FN_BASE 0xffffffff81000000ULL

static int setup(void **state)
{
	static struct replay_fixture f;
	struct idle_session *s = &f.s;
	const struct idle_params arm = replay_arm_table(0);
	char err[256];
	uint64_t t = 1 * MS;

	memset(&f, 0, sizeof(f));
	if (idle_session_open(s, NR_CPUS, &(struct session_opts){ .replay = true }, err,
			      sizeof(err))) {
		fprintf(stderr, "replay: %s\n", err);
		return -1;
	}
	for (int c = 0; c < NR_CPUS; c++)
		idle_session_set_params(s, c, &arm);
	/* CPU 0: TABLE + EXTRA periods, each ended by the local timer running a
	 * different hrtimer function (as in wake_test's CPU 0) */
	for (uint64_t i = 0; i < TABLE + EXTRA; i++, t += 100 * US) {
		replay_idle(s, 0, t, 1);
		replay_send(s, (struct replay_event){ .kind = RE_LOCAL_TIMER, .cpu = 0,
						      .now_ns = t + 50 * US });
		replay_send(s, (struct replay_event){ .kind = RE_HRTIMER, .cpu = 0,
						      .now_ns = t + 51 * US,
						      .timer.fn = FN_BASE + 64 * i,
						      .timer.expires = t + 50 * US,
						      .timer.now = t + 51 * US });
		replay_idle(s, 0, t + 60 * US, EXIT);
	}
	replay_idle(s, 0, t, 1); /* closes the last period's wake */
	/* CPU 1: one period with a known function, after the table is full */
	replay_idle(s, 1, 1 * MS, 1);
	replay_send(s, (struct replay_event){ .kind = RE_LOCAL_TIMER, .cpu = 1,
					      .now_ns = 1 * MS + 50 * US });
	replay_send(s, (struct replay_event){ .kind = RE_HRTIMER, .cpu = 1,
					      .now_ns = 1 * MS + 51 * US, .timer.fn = FN_BASE,
					      .timer.expires = 1 * MS + 50 * US,
					      .timer.now = 1 * MS + 51 * US });
	replay_idle(s, 1, 1 * MS + 60 * US, EXIT);
	replay_idle(s, 1, 2 * MS, 1);
	if (idle_session_read(s, &f.raw))
		return -1;
	*state = &f;
	return 0;
}

static void test_details_full_and_drops_counted(void **state)
{
	const struct replay_fixture *f = *state;
	uint64_t drops = f->raw.wake[0].detail_drops + f->raw.wake[1].detail_drops;

	/* the table holds TABLE keys, CPU 0's last key and CPU 1's only key wait
	 * in their last-detail slots; the other EXTRA - 1 of CPU 0's keys are
	 * drops (CPU 1's key never reached the full table) */
	assert_int_equal(f->raw.nr_details, TABLE + 2);
	assert_int_equal(drops, EXTRA - 1);
	assert_int_equal(f->raw.wake[1].detail_drops, 0);
	assert_int_equal(f->raw.wake[0].count[WAKE_TIMER], TABLE + EXTRA);
	assert_int_equal(f->raw.wake[1].count[WAKE_TIMER], 1);
}

static void test_kept_details_count_once_each(void **state)
{
	const struct replay_fixture *f = *state;
	uint64_t sum = 0;

	for (int i = 0; i < f->raw.nr_details; i++) {
		assert_int_equal(f->raw.details[i].key.kind, WDETAIL_TIMER_FN);
		assert_int_equal(f->raw.details[i].val.count, 1);
		sum += f->raw.details[i].val.count;
	}
	/* kept + dropped = every timer-ended period */
	assert_int_equal(sum + f->raw.wake[0].detail_drops + f->raw.wake[1].detail_drops,
			 TABLE + EXTRA + 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_details_full_and_drops_counted),
		cmocka_unit_test(test_kept_details_count_once_each),
	};

	return cmocka_run_group_tests_name("replay-overflow", tests, setup, replay_fixture_teardown);
}
