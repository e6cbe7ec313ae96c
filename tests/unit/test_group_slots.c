/* Unit tests for user/session/group_slots.c: a node's slot (all idle, since
 * when, state) from its members' CPU slots, and a lazy node's statistics
 * from its members' copies, worked out by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "session/group_slots.h"

/* Cores {0,1} and {2,3} (3 state fields) under a package (2 fields: it
 * folds states >= 1), and a lazy top node {4,5}. CPU 0 idle in state 2
 * since 900, CPU 1 in state 3 since 950, CPU 2 in state 1 since 800, CPU 3
 * busy, CPU 4 in state 0 since 700, CPU 5 in state 2 since 990. */
static void setup(struct group_slot g[4], struct idle_cpu_slot c[6])
{
	memset(g, 0, 4 * sizeof(*g));
	memset(c, 0, 6 * sizeof(*c));
	g[0] = (struct group_slot){ .nr_children = 2, .fields = 3, .parent1 = 3 };
	g[1] = (struct group_slot){ .nr_children = 2, .fields = 3, .parent1 = 3 };
	g[2] = (struct group_slot){ .nr_children = 2, .fields = 2 };
	g[3] = (struct group_slot){ .nr_children = 2, .fields = 3, .lazy = 1 };
	c[0] = (struct idle_cpu_slot){ .enter_ns = 900, .state = 2, .group_id1 = 1 };
	c[1] = (struct idle_cpu_slot){ .enter_ns = 950, .state = 3, .group_id1 = 1 };
	c[2] = (struct idle_cpu_slot){ .enter_ns = 800, .state = 1, .group_id1 = 2 };
	c[3] = (struct idle_cpu_slot){ .enter_ns = 0, .state = 0, .group_id1 = 2 };
	c[4] = (struct idle_cpu_slot){ .enter_ns = 700, .state = 0, .group_id1 = 4 };
	c[5] = (struct idle_cpu_slot){ .enter_ns = 990, .state = 2, .group_id1 = 4 };
}

static void test_every_node(void **state)
{
	struct group_slot g[4];
	struct idle_cpu_slot c[6];

	(void)state;
	setup(g, c);
	assert_int_equal(group_slots_from_cpus(g, 4, c, 6, false), 0);
	/* core0: since the later entry, in the shallower state */
	assert_true(group_slot_all_idle(&g[0]));
	assert_int_equal(g[0].idle_since, 950);
	assert_int_equal(g[0].state, 2);
	/* core1: CPU 3 busy; so the package too */
	assert_false(group_slot_all_idle(&g[1]));
	assert_int_equal(g[1].idle_since, 0);
	assert_false(group_slot_all_idle(&g[2]));
	/* the lazy node */
	assert_true(group_slot_all_idle(&g[3]));
	assert_int_equal(g[3].idle_since, 990);
	assert_int_equal(g[3].state, 0);
	/* CPU 3 idle in state 2 since 1000: the package all idle since 1000,
	 * its state the shallowest (1), which its two fields keep */
	setup(g, c);
	c[3] = (struct idle_cpu_slot){ .enter_ns = 1000, .state = 2, .group_id1 = 2 };
	assert_int_equal(group_slots_from_cpus(g, 4, c, 6, false), 0);
	assert_true(group_slot_all_idle(&g[1]));
	assert_int_equal(g[1].state, 1);
	assert_true(group_slot_all_idle(&g[2]));
	assert_int_equal(g[2].idle_since, 1000);
	assert_int_equal(g[2].state, 1);
	/* with CPU 2 in state 2 too, the package folds 2 into its last field */
	c[2].state = 2;
	assert_int_equal(group_slots_from_cpus(g, 4, c, 6, false), 0);
	assert_int_equal(g[2].state, 1);
	assert_int_equal(g[1].state, 2);
}

/* Only the lazy nodes: the others keep what BPF's word said. */
static void test_lazy_only(void **state)
{
	struct group_slot g[4];
	struct idle_cpu_slot c[6];

	(void)state;
	setup(g, c);
	g[1].word = 2;
	g[1].idle_since = 123;
	c[5].enter_ns = 0; /* CPU 5 left: the lazy node is not all idle */
	g[3].word = 2;
	g[3].idle_since = 456;
	assert_int_equal(group_slots_from_cpus(g, 4, c, 6, true), 0);
	assert_false(group_slot_all_idle(&g[0])); /* untouched: its word is 0 */
	assert_int_equal(g[1].word, 2);
	assert_int_equal(g[1].idle_since, 123);
	assert_false(group_slot_all_idle(&g[3]));
	assert_int_equal(g[3].idle_since, 0);
	assert_int_equal(g[3].state, 0);
}

/* A lazy node {1,3} of 4 CPUs: its statistics are CPU 1's and CPU 3's
 * copies summed (CPU 0's and 2's belong to other nodes); min over the
 * copies that counted, max; the cut part of the latest cut only (CPU 3's
 * copy last ended before the cut at 2000: nothing of it after). */
static void test_stats_sum(void **state)
{
	struct group_slot gs = { .nr_children = 2, .lazy = 1, .member = { 1, 3 } };
	struct group_stats c[4], d;

	(void)state;
	memset(c, 0, sizeof(c));
	c[0] = (struct group_stats){ .periods = 100, .time_ns = 1 };
	c[1] = (struct group_stats){ .periods = 3, .time_ns = 600, .min_ns = 50, .max_ns = 400,
				     .races = 1, .folded = 2, .cut_epoch = 2000, .cut_time_ns = 400 };
	c[1].state_periods[1] = 3;
	c[1].state_time_ns[1] = 600;
	c[1].hist[7] = 3;
	c[1].cut_state_time_ns[1] = 400;
	c[3] = (struct group_stats){ .periods = 2, .time_ns = 90, .min_ns = 30, .max_ns = 60,
				     .cut_epoch = 1000, .cut_time_ns = 60 };
	c[3].state_periods[0] = 2;
	c[3].state_time_ns[0] = 90;
	c[3].hist[7] = 1;
	c[3].hist[9] = 1;
	c[3].cut_state_time_ns[0] = 60;
	group_stats_from_cpus(&d, &gs, c, 4);
	assert_int_equal(d.periods, 5);
	assert_int_equal(d.time_ns, 690);
	assert_int_equal(d.min_ns, 30);
	assert_int_equal(d.max_ns, 400);
	assert_int_equal(d.races, 1);
	assert_int_equal(d.folded, 2);
	assert_int_equal(d.state_periods[0], 2);
	assert_int_equal(d.state_periods[1], 3);
	assert_int_equal(d.state_time_ns[0], 90);
	assert_int_equal(d.state_time_ns[1], 600);
	assert_int_equal(d.hist[7], 4);
	assert_int_equal(d.hist[9], 1);
	assert_int_equal(d.cut_epoch, 2000);
	assert_int_equal(d.cut_time_ns, 400);
	assert_int_equal(d.cut_state_time_ns[0], 0);
	assert_int_equal(d.cut_state_time_ns[1], 400);
	/* a member past the CPUs read is left out; a copy without periods
	 * gives no minimum */
	gs.member[1] = 7;
	c[1].min_ns = 0;
	c[1].periods = 0;
	group_stats_from_cpus(&d, &gs, c, 4);
	assert_int_equal(d.time_ns, 600);
	assert_int_equal(d.min_ns, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_node),
		cmocka_unit_test(test_lazy_only),
		cmocka_unit_test(test_stats_sum),
	};

	return cmocka_run_group_tests_name("group_slots", tests, NULL, NULL);
}
