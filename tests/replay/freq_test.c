/* Replay test for frequency residency: a start snapshot, changes, a repeated
 * frequency, and what is still open at the end; worked out by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "replay.h"

static void test_freq_residency(void **state)
{
	struct session_opts o = { .replay = true };
	struct idle_session s;
	struct idle_raw raw;
	char err[256];
	const uint64_t ev[][3] = {
		/* cpu, time us, kHz */
		{ 0, 100, 2000000 }, /* 1 GHz (snapshot) for 100 us */
		{ 0, 400, 1000000 }, /* 2 GHz for 300 us */
		{ 0, 500, 1000000 }, /* same: 1 GHz for 100 us, not a change */
		{ 1, 50, 800000 },   /* CPU 1 had no snapshot: nothing before 50 us */
	};

	(void)state;
	assert_int_equal(idle_session_open(&s, 2, &o, err, sizeof(err)), 0);
	assert_int_equal(idle_session_set_freq(&s, 0, 1000000), 0);
	for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++) {
		struct replay_event e = { .kind = RE_FREQ, .cpu = ev[i][0],
					  .now_ns = ev[i][1] * US, .freq.khz = ev[i][2] };

		assert_int_equal(idle_session_replay(&s, &e), 0);
	}
	assert_int_equal(idle_session_read(&s, &raw), 0);
	assert_non_null(raw.freq);
	assert_int_equal(raw.freq[0].nr, 2);
	assert_int_equal(raw.freq[0].khz[0], 1000000);
	assert_int_equal(raw.freq[0].time_ns[0], 200 * US);
	assert_int_equal(raw.freq[0].khz[1], 2000000);
	assert_int_equal(raw.freq[0].time_ns[1], 300 * US);
	assert_int_equal(raw.freq[0].changes, 2);
	assert_int_equal(raw.freq[0].cur_khz, 1000000);
	assert_int_equal(raw.freq[0].since_ns, 500 * US);
	assert_int_equal(raw.freq[1].nr, 0);
	assert_int_equal(raw.freq[1].cur_khz, 800000);
	idle_raw_free(&raw);
	idle_session_close(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_freq_residency),
	};

	return cmocka_run_group_tests_name("replay-freq", tests, NULL, NULL);
}
