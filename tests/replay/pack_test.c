/* Replay test for packing: 2 groups x 2 CPUs, every CPU busy at the start;
 * the time with 0/1/2 groups busy and the spread time worked out by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "replay.h"


static struct idle_session s;

static void ev(uint64_t cpu, uint64_t now_us, uint64_t state)
{
	replay_idle(&s, cpu, now_us * US, state);
}

static void test_busy_groups_and_spread(void **state)
{
	static struct groups cpus;
	struct session_opts o = { .replay = true, .groups = &cpus, .packing = true };
	struct idle_raw raw;
	char err[256];

	(void)state;
	replay_2x2_groups(&cpus);
	assert_int_equal(idle_session_open(&s, 4, &o, err, sizeof(err)), 0);

	/* state (busy groups, busy CPUs) and the time it held:
	 * [0,100) 2,4   [100,200) 2,3   [200,300) 1,2 (group 0 all idle)
	 * [300,400) 1,1 [400,600) 2,2 -> spread: 2 groups, 2 CPUs fit in one
	 * [600,700) 1,1 (group 1 all idle)  then 0,0 from 700 */
	ev(0, 100, 0);
	ev(1, 200, 1);
	ev(2, 300, 1);
	ev(0, 400, EXIT);
	ev(3, 600, 2);
	ev(0, 700, 0);
	assert_int_equal(idle_session_read(&s, &raw), 0);
	assert_true(raw.have_pack);
	assert_int_equal(raw.pack.busy_ns[2], (100 + 100 + 200) * US);
	assert_int_equal(raw.pack.busy_ns[1], (100 + 100 + 100) * US);
	assert_int_equal(raw.pack.busy_ns[0], 0); /* still open: closed at stop */
	assert_int_equal(raw.pack.spread_ns, 200 * US);
	assert_int_equal(PACK_GROUPS(raw.pack.word), 0);
	assert_int_equal(PACK_CPUS(raw.pack.word), 0);
	assert_int_equal(PACK_US(raw.pack.word), 700);
	assert_int_equal(raw.pack.lost_updates, 0);
	idle_raw_free(&raw);
	idle_session_close(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_busy_groups_and_spread),
	};

	return cmocka_run_group_tests_name("replay-pack", tests, NULL, NULL);
}
