/* Unit tests for user/sys/hotplug.c (offline gaps from polls of the online mask)
 * and its use in model.c (busy excludes offline time, a reset kernel counter
 * gives no delta). Expected values are worked out by hand next to each. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "sys/hotplug.h"
#include "model/kernel_check.h"
#include "model/model.h"

#define MS 1000000ULL

static struct cpulist mask(const char *s)
{
	struct cpulist l;
	char err[128];

	if (cpulist_parse(s, &l, err, sizeof(err)))
		fail_msg("cpulist_parse(%s): %s", s, err);
	return l;
}

/* 4 CPUs, polls every 200 ms from t = 1000 ms; cpu3 is seen offline at the
 * 1400 poll and online again at the 2600 one. */
static void test_gap_midpoints(void **state)
{
	struct hotplug h;
	struct cpulist all = mask("0-3"), three = mask("0-2");

	(void)state;
	assert_int_equal(hotplug_begin(&h, 4, 1000 * MS, &all), 0);
	hotplug_observe(&h, 1200 * MS, &all);
	hotplug_observe(&h, 1400 * MS, &three); /* down at (1200 + 1400) / 2 = 1300 */
	for (uint64_t t = 1600; t <= 2400; t += 200)
		hotplug_observe(&h, t * MS, &three);
	hotplug_observe(&h, 2600 * MS, &all); /* up at (2400 + 2600) / 2 = 2500 */
	hotplug_observe(&h, 3000 * MS, &all);
	/* 2500 - 1300 = 1200 ms, one gap, two transitions */
	assert_int_equal(hotplug_offline_ns(&h, 3, 3000 * MS), 1200 * MS);
	assert_int_equal(hotplug_periods(&h, 3), 1);
	assert_int_equal(hotplug_events(&h, 3), 2);
	for (int c = 0; c < 3; c++) {
		assert_int_equal(hotplug_offline_ns(&h, c, 3000 * MS), 0);
		assert_int_equal(hotplug_events(&h, c), 0);
	}
	hotplug_free(&h);
}

/* Offline at the start and still offline at the stop: the whole window, one
 * gap, no transition. A CPU going down at the last poll is open to stop. */
static void test_open_gaps(void **state)
{
	struct hotplug h;
	struct cpulist l = mask("0-1");

	(void)state;
	assert_int_equal(hotplug_begin(&h, 3, 100 * MS, &l), 0);
	hotplug_observe(&h, 300 * MS, &l);
	l = mask("0"); /* cpu1 down at (300 + 500) / 2 = 400 */
	hotplug_observe(&h, 500 * MS, &l);
	assert_int_equal(hotplug_offline_ns(&h, 2, 600 * MS), 500 * MS); /* 600 - 100 */
	assert_int_equal(hotplug_periods(&h, 2), 1);
	assert_int_equal(hotplug_events(&h, 2), 0);
	assert_int_equal(hotplug_offline_ns(&h, 1, 600 * MS), 200 * MS); /* 600 - 400 */
	assert_int_equal(hotplug_periods(&h, 1), 1);
	assert_int_equal(hotplug_events(&h, 1), 1);
	/* out of range, or never begun: nothing */
	assert_int_equal(hotplug_offline_ns(&h, 7, 600 * MS), 0);
	hotplug_free(&h);
	assert_int_equal(hotplug_offline_ns(&h, 1, 600 * MS), 0);
}

/* Two gaps in one window: 2 periods, 4 events, the times add. */
static void test_two_gaps(void **state)
{
	struct hotplug h;
	struct cpulist up = mask("0-1"), down = mask("0");

	(void)state;
	assert_int_equal(hotplug_begin(&h, 2, 0, &up), 0);
	hotplug_observe(&h, 100 * MS, &down); /* down 50 */
	hotplug_observe(&h, 200 * MS, &up);   /* up 150: 100 ms */
	hotplug_observe(&h, 300 * MS, &down); /* down 250 */
	hotplug_observe(&h, 500 * MS, &up);   /* up 400: 150 ms */
	assert_int_equal(hotplug_offline_ns(&h, 1, 1000 * MS), 250 * MS);
	assert_int_equal(hotplug_periods(&h, 1), 2);
	assert_int_equal(hotplug_events(&h, 1), 4);
	hotplug_free(&h);
}

/* model.c: cpu1 of 2 (one state C1) over [1000, 4000) ms, offline from 1300
 * to 2500 ms (1200 ms), idle 1000 ms in 10 periods and in C1 since 3900 at
 * stop: busy = 3000 - 1000 - 100 - 1200 = 700 ms. Its kernel counters went
 * back (reset by re-registration): no delta, and a warning. */
static void test_model_busy_excludes_offline(void **state)
{
	struct cpu_topo tc[2] = { { .cpu = 0, .online = true }, { .cpu = 1, .online = true } };
	struct topology topo = { .nr_possible = 2, .nr_cpus = 2, .cpus = tc };
	struct cpuidle_cpu_info info[2] = { 0 };
	struct idle_cpu_slot slots[2] = { 0 };
	struct idle_state_stats stats[2 * IS_MAX_STATES] = { 0 };
	struct cpuidle_counters ks[2 * IS_MAX_STATES] = { 0 }, ke[2 * IS_MAX_STATES] = { 0 };
	struct idle_raw raw = { .nr_cpus = 2, .slots = slots, .stats = stats };
	struct cpulist all = mask("0-1"), one = mask("0"), sel = mask("0-1");
	struct hotplug h;
	struct summary s = { 0 };
	struct window_capture w = { .start_ns = 1000 * MS, .stop_ns = 4000 * MS, .raw = &raw,
				    .info = info, .k_start = ks, .k_end = ke, .hotplug = &h };
	const struct cpu_summary *c;
	bool warned = false, check_warned = false;

	(void)state;
	for (int i = 0; i < 2; i++) {
		info[i].nr_states = 1;
		snprintf(info[i].states[0].name, IS_NAME_LEN, "C1");
	}
	stats[1 * IS_MAX_STATES].entries = 10;
	stats[1 * IS_MAX_STATES].time_ns = 1000 * MS;
	stats[1 * IS_MAX_STATES].min_ns = stats[1 * IS_MAX_STATES].max_ns = 100 * MS;
	slots[1].enter_ns = 3900 * MS;
	ks[1 * IS_MAX_STATES] = (struct cpuidle_counters){ .valid = true, .usage = 500, .time_us = 9000000 };
	ke[1 * IS_MAX_STATES] = (struct cpuidle_counters){ .valid = true, .usage = 12, .time_us = 1100000 };
	assert_int_equal(hotplug_begin(&h, 2, 1000 * MS, &all), 0);
	hotplug_observe(&h, 1200 * MS, &all);
	hotplug_observe(&h, 1400 * MS, &one);
	hotplug_observe(&h, 2400 * MS, &one);
	hotplug_observe(&h, 2600 * MS, &all);
	hotplug_observe(&h, 4000 * MS, &all);
	snprintf(s.sys.driver, sizeof(s.sys.driver), "acpi_idle");
	s.topo = &topo;
	s.miss_attach = "tp_btf";
	assert_int_equal(summary_build(&s, &w, &sel), 0);
	c = &s.cpus[1];
	assert_int_equal(c->offline_ns, 1200 * MS);
	assert_int_equal(c->hotplug_events, 2);
	assert_int_equal(c->edge_idle_ns, 100 * MS);
	assert_int_equal(c->busy_ns, 700 * MS);
	assert_true(c->online);
	assert_false(c->states[0].kernel.valid);
	assert_int_equal(s.cpus[0].offline_ns, 0);
	assert_int_equal(s.cpus[0].busy_ns, 3000 * MS); /* no events: all busy */
	assert_int_equal(s.totals.offline_ns, 1200 * MS);
	for (int i = 0; i < s.nr_warnings; i++) {
		warned |= !strcmp(s.warnings[i], "CPU 1 was offline for 1.200 s (1 time) during the window");
		check_warned |= strstr(s.warnings[i], "CPU 1: no kernel cross-check") != NULL;
	}
	assert_true(warned);
	assert_true(check_warned);
	summary_free(&s);

	/* the same CPU still offline at stop: an idle period in flight is cut
	 * where it went down (1300): never idle and offline at once */
	memset(&s, 0, sizeof(s));
	snprintf(s.sys.driver, sizeof(s.sys.driver), "acpi_idle");
	s.topo = &topo;
	s.miss_attach = "tp_btf";
	slots[1].enter_ns = 1250 * MS;
	stats[1 * IS_MAX_STATES].entries = 2;
	stats[1 * IS_MAX_STATES].time_ns = 200 * MS;
	hotplug_free(&h);
	assert_int_equal(hotplug_begin(&h, 2, 1000 * MS, &all), 0);
	hotplug_observe(&h, 1200 * MS, &all);
	hotplug_observe(&h, 1400 * MS, &one);
	assert_int_equal(summary_build(&s, &w, &sel), 0);
	c = &s.cpus[1];
	assert_int_equal(c->offline_ns, 2700 * MS); /* 4000 - 1300 */
	assert_int_equal(c->edge_idle_ns, 50 * MS); /* 1300 - 1250 */
	assert_false(c->online);
	assert_string_equal(c->status, "offline");
	/* 3000 - 200 - 50 - 2700 */
	assert_int_equal(c->busy_ns, 50 * MS);
	summary_free(&s);

	/* measured idle 2800 ms: the polled estimate (2700 ms) overlaps it by
	 * 550 ms and gives way, 3000 - 2800 - 50 = 150 ms offline, never busy
	 * below 0 nor more than the window in all */
	memset(&s, 0, sizeof(s));
	snprintf(s.sys.driver, sizeof(s.sys.driver), "acpi_idle");
	s.topo = &topo;
	s.miss_attach = "tp_btf";
	stats[1 * IS_MAX_STATES].time_ns = 2800 * MS;
	assert_int_equal(summary_build(&s, &w, &sel), 0);
	c = &s.cpus[1];
	assert_int_equal(c->offline_ns, 150 * MS);
	assert_int_equal(c->busy_ns, 0);
	assert_int_equal(c->idle_ns + c->edge_idle_ns + c->offline_ns + c->busy_ns, 3000 * MS);
	summary_free(&s);
	hotplug_free(&h);
}

/* kernel_check.c: after hotplug, state 1 may hold default-idle periods the
 * kernel does not count. Kernel: 10 entries, 10 ms; BPF: 16 entries, 12 ms,
 * longest 100 us. Allowed entries: 2 (one edge each side, no snapshot time);
 * allowed time: 1% of 10 ms + 16 x 1000 + 2000 + (6 + 2) x 100 us = 918 us. */
static void test_check_lower_bound_after_hotplug(void **state)
{
	struct summary s = { .duration_ns = 1000 * MS };
	struct state_summary st = { .index = 1, .entries = 16, .time_ns = 12 * MS, .max_ns = 100000,
				    .kernel = { .valid = true, .usage = 10, .time_ns = 10 * MS } };
	struct check_row r;

	(void)state;
	check_state(&s, &st, 1, &r); /* no hotplug: +6 entries and +2 ms are off */
	assert_false(r.lower_bound_only);
	assert_false(r.entries_ok);
	assert_false(r.time_ok);
	s.hotplug_seen = true;
	check_state(&s, &st, 1, &r); /* hotplug: BPF above is allowed */
	assert_true(r.lower_bound_only);
	assert_int_equal(r.entries_diff, 6);
	assert_true(r.entries_ok);
	assert_true(r.time_ok);
	st.entries = 7; /* below by 3 > 2: still wrong */
	st.time_ns = 8 * MS; /* below by 2 ms > 1% + 7 x 1000 + 2000 + 5 x 100 us = 609 us */
	check_state(&s, &st, 1, &r);
	assert_false(r.entries_ok);
	assert_false(r.time_ok);
	st.index = 2; /* other states keep the two-sided check */
	st.entries = 16;
	st.time_ns = 12 * MS;
	check_state(&s, &st, 1, &r);
	assert_false(r.lower_bound_only);
	assert_false(r.entries_ok);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gap_midpoints),
		cmocka_unit_test(test_open_gaps),
		cmocka_unit_test(test_two_gaps),
		cmocka_unit_test(test_model_busy_excludes_offline),
		cmocka_unit_test(test_check_lower_bound_after_hotplug),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
