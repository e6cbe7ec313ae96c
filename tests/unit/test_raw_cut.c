/* Unit tests for user/session/raw_cut.c: top's reads brought back to the
 * instant of the cut BPF keeps each CPU's state at, worked out by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "session/raw_cut.h"
#include "fake_raw.h"

/* A read turned to its cut at 1000: cores {0,1} {2,3} (3 state fields)
 * under a package (2 fields: it folds states >= 1). CPU 0 was idle in
 * state 2 since 900 at the cut; that period ended at 1200 (300 ns, after
 * the cut) and the read found another since 1300. CPU 1 idle in state 3
 * since 950, CPU 2 in state 1 since 800, CPU 3 busy. At the cut: core0 all
 * idle since 950 in state min(2, 3); core1 and the package not; core0's
 * 1100 ns counted by ends after the cut come off its time. */
static void test_raw_at_cut(void **state)
{
	struct idle_raw r;

	(void)state;
	raw_alloc(&r, 4, 3);
	for (int c = 0; c < 4; c++)
		r.slots[c].group_id1 = c < 2 ? 1 : 2;
	r.group_slots[0] = (struct group_slot){ .nr_children = 2, .fields = 3, .parent1 = 3 };
	r.group_slots[1] = (struct group_slot){ .nr_children = 2, .fields = 3, .parent1 = 3 };
	r.group_slots[2] = (struct group_slot){ .nr_children = 2, .fields = 2 };
	r.stats[0 * IS_MAX_STATES + 2].time_ns = 5000;
	r.slots[0] = (struct idle_cpu_slot){ .enter_ns = 1300, .state = 0, .group_id1 = 1,
					     .cut_epoch = 1000, .cut_enter_ns = 900, .cut_state = 2 };
	r.slots[0].cut_time_ns[2] = 300;
	r.slots[1] = (struct idle_cpu_slot){ .enter_ns = 950, .state = 3, .group_id1 = 1 };
	r.slots[2] = (struct idle_cpu_slot){ .enter_ns = 800, .state = 1, .group_id1 = 2 };
	r.groups[0] = (struct group_stats){ .time_ns = 4000, .cut_epoch = 1000, .cut_time_ns = 1100 };
	r.groups[0].state_time_ns[2] = 4000;
	r.groups[0].cut_state_time_ns[2] = 1100;
	r.groups[1].time_ns = 700;
	r.groups[1].cut_epoch = 999; /* another cut's: stays */
	r.groups[1].cut_time_ns = 500;
	idle_raw_at_cut(&r, 1000);
	assert_int_equal(r.read_ns, 1000);
	assert_int_equal(r.stats[2].time_ns, 4700);
	assert_int_equal(r.slots[0].enter_ns, 900);
	assert_int_equal(r.slots[0].state, 2);
	assert_int_equal(r.groups[0].time_ns, 2900);
	assert_int_equal(r.groups[0].state_time_ns[2], 2900);
	assert_int_equal(r.groups[1].time_ns, 700);
	assert_true(group_slot_all_idle(&r.group_slots[0]));
	assert_int_equal(r.group_slots[0].idle_since, 950);
	assert_int_equal(r.group_slots[0].state, 2);
	assert_false(group_slot_all_idle(&r.group_slots[1]));
	assert_int_equal(r.group_slots[1].idle_since, 0);
	assert_false(group_slot_all_idle(&r.group_slots[2]));
	/* CPU 3 idle too: the package is all idle since 950, in its last
	 * field (states >= 1 share it); the slots are as at the cut already */
	r.slots[3].enter_ns = 700;
	r.slots[3].state = 2;
	idle_raw_at_cut(&r, 1000);
	assert_true(group_slot_all_idle(&r.group_slots[2]));
	assert_int_equal(r.group_slots[2].idle_since, 950);
	assert_int_equal(r.group_slots[2].state, 1);
	idle_raw_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_raw_at_cut),
	};

	return cmocka_run_group_tests_name("raw_cut", tests, NULL, NULL);
}
