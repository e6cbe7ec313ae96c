/* `idlescope top`'s group rows against their members (issue 22) at 64 CPUs,
 * 2 packages x 16 cores x 2 threads, through the real BPF handlers, the
 * reader's cut, the interval deltas, the summary and the rendered rows.
 * Root. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "replay.h"
#include "model/model.h"
#include "render/render_top.h"
#include "session/raw_cut.h"
#include "session/raw_delta.h"

#define NR_CPUS 64
#define NR_CORES 32
#define START_MS 5
#define INTERVAL_MS 1000

/* A group's busy % is printed to 0.1: each row is off by up to 0.05. */
#define ROUND 0.05

static struct idle_session s;
static struct groups tree;
static struct cpuidle_cpu_info info[NR_CPUS];
static struct topology topo;
static struct idle_raw snap[4];
static uint64_t stamp[4]; /* each snapshot's end of interval */

static void ev(uint64_t cpu, uint64_t now_ms, uint64_t state)
{
	replay_idle(&s, cpu, now_ms * MS, state);
}

/* Core k's first CPU wakes for 1 ms at this time: package 0's cores in the
 * first interval, package 1's in the second, each 40 ms after the one
 * before (a wakeup that reaches the vCPUs in order, as a TCG guest's does). */
static uint64_t wake_ms(int k)
{
	return k < 16 ? START_MS + 5 + 40 * (uint64_t)k
		      : START_MS + INTERVAL_MS + 5 + 40 * (uint64_t)(k - 16);
}

/* Interval 3 ends in a read spread over 200 ms, as at 64 CPUs under TCG:
 * the CPUs read first, then CPU 0 wakes for good and CPU 2 briefly, then
 * the groups are read. Through the cut set before it, the read is as at the
 * cut. In the interval itself CPU 3 was busy 1 ms. */
static int spread_read(void)
{
	uint64_t cut_ms = START_MS + 3 * INTERVAL_MS;
	struct idle_raw first;

	ev(3, cut_ms - 500, EXIT);
	ev(3, cut_ms - 499, 1);
	idle_session_cut(&s, cut_ms * MS);
	if (idle_session_read(&s, &first))
		return -1;
	ev(0, cut_ms + 1, EXIT);
	ev(2, cut_ms + 1, EXIT);
	ev(2, cut_ms + 2, 1);
	if (idle_session_read(&s, &snap[3]))
		return -1;
	/* the CPUs' part from the first read, the groups' from the second */
	free(snap[3].slots);
	free(snap[3].stats);
	snap[3].slots = first.slots;
	snap[3].stats = first.stats;
	first.slots = NULL;
	first.stats = NULL;
	idle_raw_free(&first);
	snap[3].read_ns = (cut_ms + 200) * MS; /* the stamp after such a read */
	idle_raw_at_cut(&snap[3], cut_ms * MS);
	stamp[3] = snap[3].read_ns;
	return 0;
}

static int setup(void **state)
{
	struct session_opts o = { .replay = true, .groups = &tree };
	const struct idle_params arm = replay_arm_table(0);
	char cores[NR_CORES * 8] = "", err[256];
	int n = 0;

	(void)state;
	for (int k = 0; k < NR_CORES; k++)
		n += snprintf(cores + n, sizeof(cores) - (size_t)n, "%s%d-%d", k ? ";" : "", 2 * k,
			      2 * k + 1);
	replay_tree(&tree, NR_CPUS, 2, (const char *const[]){ "core", "package" },
		    (const char *const[]){ cores, "0-31;32-63" });
	if (idle_session_open(&s, NR_CPUS, &o, err, sizeof(err))) {
		fprintf(stderr, "replay: %s\n", err);
		return -1;
	}
	topo.nr_possible = topo.nr_cpus = NR_CPUS;
	topo.cpus = calloc(NR_CPUS, sizeof(*topo.cpus));
	if (!topo.cpus)
		return -1;
	for (int c = 0; c < NR_CPUS; c++) {
		static const char *const names[] = { "WFI", "CPU_PD", "CLS_PD" };

		idle_session_set_params(&s, c, &arm);
		topo.cpus[c].cpu = c;
		topo.cpus[c].online = 1;
		cpulist_set(&topo.possible, c);
		cpulist_set(&topo.online, c);
		info[c].nr_states = 3;
		for (int i = 0; i < 3; i++) {
			snprintf(info[c].states[i].name, IS_NAME_LEN, "%s", names[i]);
			info[c].states[i].exit_latency_ns = arm.exit_latency_ns[i];
			info[c].states[i].target_residency_ns = arm.target_residency_ns[i];
		}
	}
	/* the poke: every CPU leaves idle and enters it again before the start,
	 * so every group is all idle from before the start */
	for (int c = 0; c < NR_CPUS; c++)
		ev((uint64_t)c, 1 + (uint64_t)c / 32, 1);
	idle_session_start(&s, START_MS * MS);
	if (idle_session_read(&s, &snap[0]))
		return -1;
	stamp[0] = START_MS * MS;
	for (int i = 1; i <= 2; i++) {
		uint64_t end = START_MS + (uint64_t)i * INTERVAL_MS;

		for (int k = 0; k < NR_CORES; k++) {
			uint64_t w = wake_ms(k);

			if (w < end - INTERVAL_MS || w >= end)
				continue;
			ev(2 * (uint64_t)k, w, EXIT);
			ev(2 * (uint64_t)k, w + 1, 1);
		}
		if (idle_session_read(&s, &snap[i]))
			return -1;
		stamp[i] = end * MS;
	}
	return spread_read();
}

static int teardown(void **state)
{
	(void)state;
	for (int i = 0; i < 4; i++)
		idle_raw_free(&snap[i]);
	idle_session_close(&s);
	groups_free(&tree);
	free(topo.cpus);
	return 0;
}

/* Busy % per row label of interval i ([stamp[i - 1], stamp[i]]), as top
 * prints it. */
struct rows {
	int nr;
	char label[NR_CPUS + 40][32];
	double busy[NR_CPUS + 40];
};

static void interval_rows(int i, struct rows *r)
{
	uint64_t from = stamp[i - 1], to = stamp[i];
	struct idle_raw d;
	struct summary sum;
	struct top_text txt = { 0 };
	struct top_layout l = { .width = 512 };
	struct window_capture w = { .info = info, .groups = &tree, .start_ns = from, .stop_ns = to };
	struct cpuidle_counters *no_counters = calloc(NR_CPUS * IS_MAX_STATES, sizeof(*no_counters));
	bool table = false;

	assert_non_null(no_counters);
	assert_int_equal(idle_raw_delta(&snap[i - 1], &snap[i], from, to, &d), 0);
	memset(&sum, 0, sizeof(sum));
	snprintf(sum.sys.driver, sizeof(sum.sys.driver), "replay");
	sum.topo = &topo;
	sum.freq_status = "off";
	w.raw = &d;
	w.k_start = w.k_end = no_counters;
	assert_int_equal(summary_build(&sum, &w, &topo.online), 0);
	assert_int_equal(render_top(&sum, &l, &txt), 0);
	r->nr = 0;
	for (int j = 0; j < txt.nr; j++) {
		if (!strncmp(txt.lines[j], "CPU ", 4)) {
			table = true;
			continue;
		}
		if (table && r->nr < (int)(sizeof(r->busy) / sizeof(r->busy[0])) &&
		    sscanf(txt.lines[j], "%31s %lf", r->label[r->nr], &r->busy[r->nr]) == 2)
			r->nr++;
	}
	top_text_free(&txt);
	summary_free(&sum);
	idle_raw_free(&d);
	free(no_counters);
}

static double busy_of(const struct rows *r, const char *label)
{
	for (int j = 0; j < r->nr; j++)
		if (!strcmp(r->label[j], label))
			return r->busy[j];
	fail_msg("no row '%s'", label);
	return -1;
}

/* Every group row between its busiest member and the sum of its members
 * (at most 100%): a group is busy only while one of its CPUs is. */
static void check_invariant(const struct rows *r, int interval)
{
	int bad = 0;

	for (int g = 0; g < tree.nr_groups; g++) {
		char name[32], cpu[16];
		double max = 0, sum = 0, busy;
		int members = 0;

		groups_name(&tree, g, name, sizeof(name));
		busy = busy_of(r, name);
		for (int c = 0; c < NR_CPUS; c++) {
			double b;

			if (!cpulist_has(&tree.cpus[g], c))
				continue;
			snprintf(cpu, sizeof(cpu), "%d", c);
			b = busy_of(r, cpu);
			max = b > max ? b : max;
			sum += b;
			members++;
		}
		sum = sum > 100 ? 100 : sum;
		if (busy < max - 2 * ROUND || busy > sum + (members + 1) * ROUND) {
			print_message("interval %d: %s busy %.1f%%, its CPUs' busiest %.1f%%, their sum "
				      "%.1f%%\n", interval, name, busy, max, sum);
			bad++;
		}
	}
	if (bad)
		fail_msg("interval %d: %d of %d group rows outside their members' bounds", interval,
			 bad, tree.nr_groups);
}

/* Interval i: package i-1's cores each had one CPU busy 1 ms (0.1%), one
 * after another, ending all-idle time that began before the start (the
 * poke); in interval 2 that time had run through the whole first one. */
static void check_interval(int i)
{
	struct rows r;
	char name[32];

	interval_rows(i, &r);
	check_invariant(&r, i);
	for (int k = 0; k < NR_CORES; k++) {
		snprintf(name, sizeof(name), "core%d", k);
		assert_float_equal(busy_of(&r, name), (k / 16 == i - 1 ? 0.1 : 0.0), ROUND);
	}
	for (int p = 0; p < 2; p++) {
		snprintf(name, sizeof(name), "package%d", p);
		/* 16 x 1 ms, apart */
		assert_float_equal(busy_of(&r, name), (p == i - 1 ? 1.6 : 0.0), ROUND);
	}
}

static void test_first_interval(void **state)
{
	(void)state;
	check_interval(1);
}

static void test_second_interval(void **state)
{
	(void)state;
	check_interval(2);
}

/* Interval 3, its read spread: only CPU 3 was busy (1 ms), so only core1
 * and package0 were. Read without a cut, core0 showed the 200 ms after CPU
 * 0 woke (read busy in its group, idle in its CPUs' part) as busy. */
static void test_spread_read(void **state)
{
	struct rows r;
	char name[32];

	(void)state;
	interval_rows(3, &r);
	check_invariant(&r, 3);
	for (int c = 0; c < NR_CPUS; c++) {
		snprintf(name, sizeof(name), "%d", c);
		assert_float_equal(busy_of(&r, name), (c == 3 ? 0.1 : 0.0), ROUND);
	}
	for (int k = 0; k < NR_CORES; k++) {
		snprintf(name, sizeof(name), "core%d", k);
		assert_float_equal(busy_of(&r, name), (k == 1 ? 0.1 : 0.0), ROUND);
	}
	assert_float_equal(busy_of(&r, "package0"), 0.1, ROUND);
	assert_float_equal(busy_of(&r, "package1"), 0.0, ROUND);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_interval),
		cmocka_unit_test(test_second_interval),
		cmocka_unit_test(test_spread_read),
	};

	return cmocka_run_group_tests_name("replay-top-groups", tests, setup, teardown);
}
