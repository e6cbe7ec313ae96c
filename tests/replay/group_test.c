/* Replay tests for group-level idle: 2 clusters x 2 CPUs with the ARM-like
 * table, hand-computed all-idle time and group states, including a cluster
 * where one CPU sits in WFI and the other in CPU_PD (group state WFI), and
 * the last CPU to go idle and the first to wake being different. Root. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <bpf/bpf.h>

#include "replay.h"
#include "idlescope.skel.h"

#define NR_CPUS 4

static struct idle_session s;
static struct idle_raw raw;

static void ev(uint64_t cpu, uint64_t now_us, uint64_t state)
{
	replay_idle(&s, cpu, now_us * US, state);
}

static int setup(void **state)
{
	static struct groups cpus;
	struct session_opts o = { .replay = true, .groups = &cpus };
	const struct idle_params arm = replay_arm_table(0);
	char err[256];

	(void)state;
	replay_2x2_groups(&cpus);
	if (idle_session_open(&s, NR_CPUS, &o, err, sizeof(err))) {
		fprintf(stderr, "replay: %s\n", err);
		return -1;
	}
	for (int c = 0; c < NR_CPUS; c++)
		idle_session_set_params(&s, c, &arm);

	/* cluster 0 */
	ev(0, 100, 0);   /* CPU0 WFI */
	ev(1, 200, 1);   /* CPU1 CPU_PD: all idle from 200, state min(WFI, CPU_PD) = WFI */
	ev(1, 700, EXIT); /* 500 us in WFI */
	ev(1, 800, 1);   /* all idle again from 800, WFI (CPU0 still there) */
	ev(0, 1000, EXIT); /* CPU0 wakes first, CPU1 went idle last: 200 us, WFI */
	ev(0, 1100, 1);  /* all idle from 1100 in CPU_PD */
	ev(1, 3100, EXIT); /* 2000 us, CPU_PD */
	ev(0, 3200, EXIT);
	/* cluster 1 */
	ev(2, 100, 2);
	ev(3, 5000, 2);  /* all idle from 5000 in CLS_PD */
	ev(2, 20000, EXIT); /* 15000 us */
	ev(3, 20100, EXIT);
	/* cluster 1 again: CPU3 idle when CPU2 enters, stays idle at the end */
	ev(3, 21000, 0);
	ev(2, 22000, 1);  /* all idle from 22000, WFI: in flight at the end */
	if (idle_session_read(&s, &raw))
		return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	idle_raw_free(&raw);
	idle_session_close(&s);
	return 0;
}

static void test_cluster0(void **state)
{
	const struct group_stats *g = &raw.groups[0];

	(void)state;
	assert_int_equal(g->periods, 3);
	assert_int_equal(g->time_ns, 2700 * US);   /* 500 + 200 + 2000 */
	assert_int_equal(g->min_ns, 200 * US);
	assert_int_equal(g->max_ns, 2000 * US);
	assert_int_equal(g->state_periods[0], 2);
	assert_int_equal(g->state_time_ns[0], 700 * US); /* WFI: 500 + 200 */
	assert_int_equal(g->state_periods[1], 1);
	assert_int_equal(g->state_time_ns[1], 2000 * US);
	assert_int_equal(g->races, 0);
	assert_int_equal(raw.group_slots[0].word & 0xffff, 0);
}

static void test_cluster1(void **state)
{
	const struct group_stats *g = &raw.groups[1];

	(void)state;
	assert_int_equal(g->periods, 1);
	assert_int_equal(g->time_ns, 15000 * US);
	assert_int_equal(g->state_time_ns[2], 15000 * US);
	/* in flight at the end: both idle since 22000 us, state WFI */
	assert_int_equal(raw.group_slots[1].word & 0xffff, 2);
	assert_int_equal(raw.group_slots[1].idle_since, 22000 * US);
	assert_int_equal(raw.group_slots[1].state, 0);
}

static void test_group_idle_within_members(void **state)
{
	(void)state;
	for (int g = 0; g < 2; g++)
		for (int c = 2 * g; c < 2 * g + 2; c++) {
			uint64_t t = 0;

			for (int i = 0; i < IS_MAX_STATES; i++)
				t += raw.stats[c * IS_MAX_STATES + i].time_ns;
			assert_true(raw.groups[g].time_ns <= t);
		}
}

/* A member leaves after the completing CPU's add but before its store of
 * idle_since (a vCPU stalled there under TCG): the end takes the start the
 * join stored before its add. Cluster 0 all idle from 200 to 500 us, with
 * idle_since not stored: one 300 us interval, no race. With packing, so
 * that these small top nodes keep their word (not lazy). */
static void test_end_before_start_store(void **state)
{
	static struct groups cpus;
	struct session_opts o = { .replay = true, .groups = &cpus, .packing = true };
	const struct idle_params arm = replay_arm_table(0);
	struct idle_session t;
	struct group_slot gs;
	struct group_stats st;
	uint32_t g = 0;
	char err[256];

	(void)state;
	replay_2x2_groups(&cpus);
	assert_int_equal(idle_session_open(&t, NR_CPUS, &o, err, sizeof(err)), 0);
	for (int c = 0; c < NR_CPUS; c++)
		idle_session_set_params(&t, c, &arm);
	replay_idle(&t, 0, 100 * US, 0);
	replay_idle(&t, 1, 200 * US, 1);
	assert_int_equal(bpf_map_lookup_elem(bpf_map__fd(t.skel->maps.group_slots), &g, &gs), 0);
	assert_false(gs.lazy);
	gs.idle_since = 0; /* the completing CPU's store, not there yet */
	assert_int_equal(bpf_map_update_elem(bpf_map__fd(t.skel->maps.group_slots), &g, &gs, BPF_ANY), 0);
	replay_idle(&t, 0, 500 * US, EXIT);
	assert_int_equal(bpf_map_lookup_elem(bpf_map__fd(t.skel->maps.group_stats), &g, &st), 0);
	assert_int_equal(st.races, 0);
	assert_int_equal(st.periods, 1);
	assert_int_equal(st.time_ns, 300 * US);
	assert_int_equal(st.state_time_ns[0], 300 * US);
	idle_session_close(&t);
	groups_free(&cpus);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cluster0),
		cmocka_unit_test(test_cluster1),
		cmocka_unit_test(test_group_idle_within_members),
		cmocka_unit_test(test_end_before_start_store),
	};

	return cmocka_run_group_tests_name("replay-group", tests, setup, teardown);
}
