/* Unit tests for user/model/model.c: summary_build on a capture built by
 * hand (no sysfs, no BPF). Every expected value is worked out by hand in the
 * comment next to it. */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "model/model.h"
#include "sys/group_levels.h"

#define US 1000ULL
#define MS 1000000ULL

#define NCPU 5
#define START (1000 * MS)        /* window [1 s, 1.1 s) */
#define STOP (START + 100 * MS)  /* 100 ms window */

static struct model_fx {
	struct cpu_topo tcpus[NCPU];
	struct topology topo;
	struct cpuidle_cpu_info info[NCPU];
	struct idle_cpu_slot slots[NCPU];
	struct idle_state_stats stats[NCPU * IS_MAX_STATES];
	struct idle_raw raw;
	struct cpuidle_counters k_start[NCPU * IS_MAX_STATES], k_end[NCPU * IS_MAX_STATES];
	struct window_capture w;
	struct cpulist sel;
} fx;

static struct idle_state_stats *raw_st(int cpu, int state)
{
	return &fx.stats[cpu * IS_MAX_STATES + state];
}

static void set_counters(struct cpuidle_counters *c, uint64_t usage, uint64_t time_us,
			 uint64_t above, uint64_t below, uint64_t rejected, bool miss, bool rej)
{
	*c = (struct cpuidle_counters){ .valid = true, .has_miss_counters = miss,
					.has_rejected = rej, .usage = usage, .time_us = time_us,
					.above = above, .below = below, .rejected = rejected };
}

/* Five CPUs with a POLL/C1/C6 table over a 100 ms window:
 *   cpu0  online; C1: 1000 + 2000 + 3000 ns, C6: 40 ms + 50 ms; 2 bad states
 *   cpu1  online; C1: 10 ms; unmatched exit 5 ms in; in C6 for the last 2 ms
 *   cpu2  online; entered C6 50 ms before the window, still idle at stop
 *   cpu3  online; no events
 *   cpu4  offline */
static int build_model(void **state)
{
	struct idle_state_stats *st;

	(void)state;
	memset(&fx, 0, sizeof(fx));
	for (int c = 0; c < NCPU; c++) {
		fx.tcpus[c] = (struct cpu_topo){ .cpu = c, .online = c < 4, .package = 0, .die = 0,
						 .cluster = -1, .core = c };
		fx.info[c].nr_states = 3;
		fx.info[c].states[0] = (struct cpuidle_state_info){ .name = "POLL", .poll = true };
		fx.info[c].states[1] = (struct cpuidle_state_info){
			.name = "C1", .desc = "MWAIT 0x00", .exit_latency_ns = 2 * US,
			.target_residency_ns = 2 * US };
		fx.info[c].states[2] = (struct cpuidle_state_info){
			.name = "C6", .exit_latency_ns = 133 * US, .target_residency_ns = 600 * US };
		fx.info[c].qos_limit_ns = UINT64_MAX;
		/* cpu3's poll limit is unknown (haltpoll-like), the others' 20 us */
		fx.info[c].poll_limit_ns = c == 3 ? 0 : 20 * US;
	}
	fx.topo.nr_possible = NCPU;
	fx.topo.nr_cpus = NCPU;
	fx.topo.cpus = fx.tcpus;

	/* cpu0 C1: 1000 ns -> bucket 35, 2000 -> 39, 3000 -> 41 (see test_include_hist.c:
	 * 2000: msb 10, 36 + ((2000 >> 8) & 3) = 36 + 3; 3000: msb 11,
	 * 40 + ((3000 >> 9) & 3) = 40 + 1) */
	st = raw_st(0, 1);
	st->entries = 3;
	st->time_ns = 1000 + 2000 + 3000;
	st->min_ns = 1000;
	st->max_ns = 3000;
	st->hist[35] = st->hist[39] = st->hist[41] = 1;
	st->above = 1;
	st->ideal[0] = 1;
	st->ideal[1] = 2;
	/* cpu0 C6: 40 ms -> msb 25, 96 + ((40e6 >> 23) & 3) = 96 + (4 & 3) = 96;
	 * 50 ms -> 96 + (5 & 3) = 97 */
	st = raw_st(0, 2);
	st->entries = 2;
	st->time_ns = 90 * MS;
	st->min_ns = 40 * MS;
	st->max_ns = 50 * MS;
	st->hist[96] = st->hist[97] = 1;
	st->below = 1;
	fx.slots[0].bad_state = 2;

	/* cpu1 C1: one 10 ms period: msb 23, 88 + ((10e6 >> 21) & 3) = 88 + 0 */
	st = raw_st(1, 1);
	st->entries = 1;
	st->time_ns = 10 * MS;
	st->min_ns = st->max_ns = 10 * MS;
	st->hist[88] = 1;
	fx.slots[1].unmatched_exits = 1;
	fx.slots[1].first_exit_ns = START + 5 * MS;
	fx.slots[1].enter_ns = STOP - 2 * MS;
	fx.slots[1].state = 2;

	/* cpu2: entered before the window, never left */
	fx.slots[2].enter_ns = START - 50 * MS;
	fx.slots[2].state = 2;

	fx.raw = (struct idle_raw){ .nr_cpus = NCPU, .slots = fx.slots, .stats = fx.stats,
				    .cpu_out_of_range = 7 };

	/* kernel counters: cpu0 C1 usage 100 -> 103, time 5000 -> 5006 us,
	 * above 1 -> 2, below 2 -> 2, rejected 0 -> 1 */
	set_counters(&fx.k_start[0 * IS_MAX_STATES + 1], 100, 5000, 1, 2, 0, true, true);
	set_counters(&fx.k_end[0 * IS_MAX_STATES + 1], 103, 5006, 2, 2, 1, true, true);
	/* cpu0 C6: usage 10 -> 12, time 1000 -> 91000 us; above/below files
	 * missing at the end -> no miss counters */
	set_counters(&fx.k_start[0 * IS_MAX_STATES + 2], 10, 1000, 0, 0, 0, true, false);
	set_counters(&fx.k_end[0 * IS_MAX_STATES + 2], 12, 91000, 0, 0, 0, false, false);
	/* cpu1 C1: usage 50 -> 51, time 100 -> 10100 us */
	set_counters(&fx.k_start[1 * IS_MAX_STATES + 1], 50, 100, 0, 0, 0, true, true);
	set_counters(&fx.k_end[1 * IS_MAX_STATES + 1], 51, 10100, 0, 1, 0, true, true);

	fx.w = (struct window_capture){ .start_ns = START, .stop_ns = STOP, .raw = &fx.raw,
					.info = fx.info, .k_start = fx.k_start, .k_end = fx.k_end };
	for (int c = 0; c < NCPU; c++)
		cpulist_set(&fx.sel, c);
	return 0;
}

static void init_summary(struct summary *s, const char *driver, const char *miss)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->sys.driver, sizeof(s->sys.driver), "%s", driver);
	snprintf(s->sys.governor, sizeof(s->sys.governor), "menu");
	s->topo = &fx.topo;
	s->idle_attach = "tp_btf";
	s->miss_attach = miss;
}

/* A wake still pending at the read: unknown, unless a waker marked the CPU
 * polling during it (bpf/wake.bpf.h, noipi_take), then without an IPI. */
static void test_model_in_flight_mark(void **state)
{
	static struct wake_cpu_stats wake[NCPU];
	static struct wake_lat_stats lat[NCPU * IS_MAX_STATES];
	struct summary s;

	(void)state;
	fx.raw.wake = wake;
	fx.raw.lat = lat;
	fx.slots[0].wake_pending = 1;
	fx.slots[0].wake_early = 1;
	fx.slots[0].wake_gen = 7;
	fx.slots[0].noipi_gen = 7;
	fx.slots[0].noipi_from = 1 + 3;
	fx.slots[3].wake_pending = 1;
	fx.slots[3].wake_gen = 7;
	fx.slots[3].noipi_gen = 6; /* an older wake's mark */
	fx.slots[3].noipi_from = 1 + 1;
	init_summary(&s, "intel_idle", NULL);
	s.wake_enabled = true;
	assert_int_equal(summary_build(&s, &fx.w, &fx.sel), 0);
	assert_int_equal(s.cpus[0].wake.count[WAKE_NO_IPI], 1);
	assert_int_equal(s.cpus[0].wake.early[WAKE_NO_IPI], 1);
	assert_int_equal(s.cpus[0].wake.count[WAKE_UNKNOWN], 0);
	assert_int_equal(s.cpus[0].wake.in_flight, 1);
	assert_int_equal(s.cpus[3].wake.count[WAKE_UNKNOWN], 1);
	assert_int_equal(s.cpus[3].wake.count[WAKE_NO_IPI], 0);
	summary_free(&s);
	fx.raw.wake = NULL;
	fx.raw.lat = NULL;
}

/* --packing's top 10 tasks by runtime: with more tasks than rows, each new
 * one replaces the last-ranked row (it once replaced the first: the
 * busiest task dropped out of a ping-pong's table); ties go to the lower
 * pid, in the same order every run. */
static void test_model_pack_top_tasks(void **state)
{
	/* 14 pids: runtimes 1..14 ms in a shuffled order, pids 300 and 301 tied
	 * with 13 ms; a second key (group 1) adds to pid 105's total */
	static const uint32_t ms[] = { 3, 14, 1, 9, 13, 5, 7, 2, 11, 4, 8, 6, 10, 12 };
	struct pack_task_key keys[17];
	struct pack_task_val vals[17];
	struct groups gr;
	struct summary s;
	char err[128];
	int n = 0;

	(void)state;
	for (int c = 0; c < NCPU; c++) {
		cpulist_set(&fx.topo.possible, c);
		if (c < 4)
			cpulist_set(&fx.topo.online, c);
	}
	assert_int_equal(groups_build(&fx.topo, "custom:0-1,2-3", &gr, err, sizeof(err)), 0);
	for (int i = 0; i < 14; i++) {
		keys[n] = (struct pack_task_key){ .pid = 100 + (uint32_t)i, .group = 0 };
		vals[n] = (struct pack_task_val){ .runtime_ns = ms[i] * MS };
		snprintf(vals[n].comm, sizeof(vals[n].comm), "t%d", i);
		n++;
	}
	keys[n] = (struct pack_task_key){ .pid = 105, .group = 1 }; /* 5 + 10 = 15 ms */
	vals[n++] = (struct pack_task_val){ .runtime_ns = 10 * MS, .comm = "t5" };
	keys[n] = (struct pack_task_key){ .pid = 301, .group = 0 };
	vals[n++] = (struct pack_task_val){ .runtime_ns = 13 * MS, .comm = "tie-b" };
	keys[n] = (struct pack_task_key){ .pid = 300, .group = 0 };
	vals[n++] = (struct pack_task_val){ .runtime_ns = 13 * MS, .comm = "tie-a" };
	fx.raw.have_pack = true;
	fx.raw.nr_pack_tasks = n;
	fx.raw.pack_keys = keys;
	fx.raw.pack_vals = vals;
	fx.w.groups = &gr;
	init_summary(&s, "intel_idle", NULL);
	assert_int_equal(summary_build(&s, &fx.w, &fx.sel), 0);
	assert_true(s.pack.enabled);
	assert_int_equal(s.pack.nr_tasks, 10);
	{
		/* by hand: 15 (105), 14 (101), 13 (104), 13 (300), 13 (301),
		 * 12 (113), 11 (108), 10 (112), 9 (103), 8 (110) */
		static const uint32_t pid[] = { 105, 101, 104, 300, 301, 113, 108, 112, 103, 110 };
		static const uint64_t tot[] = { 15, 14, 13, 13, 13, 12, 11, 10, 9, 8 };

		for (int i = 0; i < 10; i++) {
			assert_int_equal(s.pack.tasks[i].pid, pid[i]);
			assert_int_equal(s.pack.tasks[i].total_ns, tot[i] * MS);
		}
	}
	assert_int_equal(s.pack.tasks[0].group_ns[0], 5 * MS);
	assert_int_equal(s.pack.tasks[0].group_ns[1], 10 * MS);
	summary_free(&s);
	groups_free(&gr);
}

static void test_model_per_state(void **state)
{
	struct summary s;
	const struct cpu_summary *c0;

	(void)state;
	init_summary(&s, "intel_idle", NULL);
	fx.tcpus[0].capacity = 1024;
	fx.tcpus[1].capacity = 446;
	assert_int_equal(summary_build(&s, &fx.w, &fx.sel), 0);
	assert_int_equal(s.nr_cpus, 5);
	/* cpu_capacity from the topology it is given; 0 there (no file): -1 */
	assert_int_equal(s.cpus[0].capacity, 1024);
	assert_int_equal(s.cpus[1].capacity, 446);
	assert_int_equal(s.cpus[2].capacity, -1);
	assert_int_equal(s.start_ns, START);
	assert_int_equal(s.duration_ns, 100 * MS); /* STOP - START */
	assert_true(strlen(s.kernel) > 0);         /* uname release */
	c0 = &s.cpus[0];
	assert_int_equal(c0->cpu, 0);
	assert_int_equal(c0->nr_states, 3);
	assert_string_equal(c0->states[1].name, "C1");
	assert_string_equal(c0->states[1].desc, "MWAIT 0x00");
	assert_int_equal(c0->states[1].index, 1);
	assert_true(c0->states[1].classified);
	assert_true(c0->states[0].poll);
	assert_int_equal(c0->states[2].exit_latency_ns, 133000);
	assert_int_equal(c0->states[2].target_residency_ns, 600000);
	/* C1: 3 entries, 6000 ns, avg 6000 / 3 = 2000 */
	assert_int_equal(c0->states[1].entries, 3);
	assert_int_equal(c0->states[1].time_ns, 6000);
	assert_int_equal(c0->states[1].min_ns, 1000);
	assert_int_equal(c0->states[1].max_ns, 3000);
	assert_int_equal(c0->states[1].avg_ns, 2000);
	/* p50: rank 1.5; bucket 35 holds 1 (< 1.5); bucket 39 [1792, 2048):
	 * frac 0.5, 1792 + (0.5 * (2047 - 1792) + 0.5) = 1792 + 128 = 1920.
	 * p90: rank 2.7, bucket 41 [2560, 3072) clamped to max + 1 = 3001:
	 * 2560 + (0.7 * 440 + 0.5) = 2560 + 308 = 2868.
	 * p99: rank 2.97: 2560 + (0.97 * 440 + 0.5 = 427.3) = 2987 */
	assert_int_equal(c0->states[1].p50_ns, 1920);
	assert_int_equal(c0->states[1].p90_ns, 2868);
	assert_int_equal(c0->states[1].p99_ns, 2987);
	assert_int_equal(c0->states[1].above, 1);
	assert_int_equal(c0->states[1].ideal[1], 2);
	assert_false(c0->states[1].have_miss);
	/* C6: 2 entries, 90 ms, avg 45 ms */
	assert_int_equal(c0->states[2].entries, 2);
	assert_int_equal(c0->states[2].time_ns, 90 * MS);
	assert_int_equal(c0->states[2].avg_ns, 45 * MS);
	assert_int_equal(c0->states[2].below, 1);
	/* a poll limit is known for the polling state only */
	assert_true(c0->states[0].poll_limit_known);
	assert_false(c0->states[1].poll_limit_known);
	/* POLL: nothing, avg and percentiles 0 */
	assert_int_equal(c0->states[0].entries, 0);
	assert_int_equal(c0->states[0].avg_ns, 0);
	assert_int_equal(c0->states[0].p50_ns, 0);
	/* CPU: 5 entries; idle 6000 + 90e6 = 90006000; no edges;
	 * busy 100e6 - 90006000 = 9994000 */
	assert_int_equal(c0->entries, 5);
	assert_int_equal(c0->idle_ns, 90006000);
	assert_int_equal(c0->edge_idle_ns, 0);
	assert_int_equal(c0->busy_ns, 9994000);
	assert_false(c0->idle_at_end);
	assert_int_equal(c0->bad_state, 2);
	assert_true(c0->online);
	assert_string_equal(c0->status, "ok");
	summary_free(&s);
}

static void test_model_edges_and_status(void **state)
{
	struct summary s;
	const struct cpu_summary *c;

	(void)state;
	init_summary(&s, "intel_idle", NULL);
	assert_int_equal(summary_build(&s, &fx.w, &fx.sel), 0);

	/* cpu1: edge = (first exit - start) + (stop - enter) = 5 ms + 2 ms = 7 ms;
	 * idle 10 ms; busy 100 - 10 - 7 = 83 ms */
	c = &s.cpus[1];
	assert_int_equal(c->entries, 1);
	assert_int_equal(c->idle_ns, 10 * MS);
	assert_int_equal(c->edge_idle_ns, 7 * MS);
	assert_int_equal(c->busy_ns, 83 * MS);
	assert_int_equal(c->unmatched_exits, 1);
	assert_true(c->idle_at_end);
	assert_string_equal(c->status, "ok");

	/* cpu2: entered 50 ms before start: edge counts from start only,
	 * stop - start = 100 ms; busy 0 */
	c = &s.cpus[2];
	assert_int_equal(c->entries, 0);
	assert_int_equal(c->idle_ns, 0);
	assert_int_equal(c->edge_idle_ns, 100 * MS);
	assert_int_equal(c->busy_ns, 0);
	assert_true(c->idle_at_end);
	assert_string_equal(c->status, "idle for the whole window (no complete period)");

	/* cpu3: online, no events: all busy */
	c = &s.cpus[3];
	assert_int_equal(c->entries, 0);
	assert_int_equal(c->edge_idle_ns, 0);
	assert_int_equal(c->busy_ns, 100 * MS);
	assert_false(c->idle_at_end);
	assert_string_equal(c->status, "no idle events (fully busy, or events lost)");

	/* cpu4: offline in the topology */
	c = &s.cpus[4];
	assert_false(c->online);
	assert_string_equal(c->status, "offline");
	summary_free(&s);

	/* edge exits: a state's own, plus the CPU's of unknown state in every
	 * state; the totals sum them */
	raw_st(1, 1)->edge_exits = 3;
	fx.slots[1].edge_unknown = 2;
	init_summary(&s, "intel_idle", NULL);
	assert_int_equal(summary_build(&s, &fx.w, &fx.sel), 0);
	assert_int_equal(s.cpus[1].states[1].edge_exits, 5);
	assert_int_equal(s.cpus[1].states[0].edge_exits, 2);
	assert_int_equal(s.totals.states[1].edge_exits, 5);
	summary_free(&s);
	raw_st(1, 1)->edge_exits = 0;
	fx.slots[1].edge_unknown = 0;
}

/* A period entered at stop itself (a replayed trace ending with that enter)
 * is in progress there; busy the rest of the window, the CPU was not idle
 * for the whole of it. Index-only states are not classified. */
static void test_model_enter_at_stop(void **state)
{
	struct summary s;
	const struct cpu_summary *c;

	(void)state;
	fx.slots[3].enter_ns = STOP;
	fx.slots[3].state = 1;
	fx.info[0].unclassified = true;
	init_summary(&s, "intel_idle", NULL);
	assert_int_equal(summary_build(&s, &fx.w, &fx.sel), 0);
	c = &s.cpus[3];
	assert_true(c->idle_at_end);
	assert_int_equal(c->edge_idle_ns, 0);
	assert_int_equal(c->busy_ns, 100 * MS);
	assert_string_equal(c->status, "no complete idle period (idle only at the window's edges)");
	/* cpu2, in a period for the whole window, still is */
	assert_string_equal(s.cpus[2].status, "idle for the whole window (no complete period)");
	assert_false(s.cpus[0].states[1].classified);
	assert_true(s.cpus[1].states[1].classified);
	summary_free(&s);
}

static void test_model_totals(void **state)
{
	struct summary s;
	const struct cpu_summary *t;

	(void)state;
	init_summary(&s, "intel_idle", NULL);
	assert_int_equal(summary_build(&s, &fx.w, &fx.sel), 0);
	t = &s.totals;
	assert_int_equal(t->cpu, -1);
	assert_string_equal(t->status, "ok");
	/* entries 5 (cpu0) + 1 (cpu1) = 6 */
	assert_int_equal(t->entries, 6);
	/* idle 90006000 + 10000000 = 100006000 */
	assert_int_equal(t->idle_ns, 100006000);
	/* edges 7 ms (cpu1) + 100 ms (cpu2) = 107 ms */
	assert_int_equal(t->edge_idle_ns, 107 * MS);
	/* busy 9994000 + 83e6 + 0 + 100e6 + 100e6 = 292994000 */
	assert_int_equal(t->busy_ns, 292994000);
	assert_int_equal(t->unmatched_exits, 1);
	assert_int_equal(t->bad_state, 2);
	/* same table everywhere: 3 states, matched by index and name */
	assert_int_equal(t->nr_states, 3);
	assert_string_equal(t->states[1].name, "C1");
	/* C1: 3 + 1 = 4 entries, 6000 + 10e6 = 10006000 ns, min 1000, max 10e6,
	 * avg 10006000 / 4 = 2501500 */
	assert_int_equal(t->states[1].entries, 4);
	assert_int_equal(t->states[1].time_ns, 10006000);
	assert_int_equal(t->states[1].min_ns, 1000);
	assert_int_equal(t->states[1].max_ns, 10 * MS);
	assert_int_equal(t->states[1].avg_ns, 2501500);
	/* hist merged: 35, 39, 41, 88 one each */
	assert_int_equal(t->states[1].hist[35] + t->states[1].hist[39] + t->states[1].hist[41] +
				 t->states[1].hist[88],
			 4);
	/* C6: 2 entries, 90 ms, avg 45 ms, min 40 ms */
	assert_int_equal(t->states[2].entries, 2);
	assert_int_equal(t->states[2].time_ns, 90 * MS);
	assert_int_equal(t->states[2].avg_ns, 45 * MS);
	assert_int_equal(t->states[2].min_ns, 40 * MS);
	/* any CPU idle at the end: cpu1 and cpu2 are */
	assert_true(t->idle_at_end);
	/* cpu3's POLL limit is unknown, so the summed one is too */
	assert_false(t->states[0].poll_limit_known);
	/* cpu2..4 have no kernel counters, so the totals have none either */
	assert_false(t->states[1].kernel.valid);
	assert_int_equal(s.cpu_out_of_range, 7);
	summary_free(&s);
}

static void test_model_selection_and_kernel_deltas(void **state)
{
	struct summary s;
	const struct cpu_summary *c0, *t;

	(void)state;
	/* only CPUs 0 and 1 */
	memset(&fx.sel, 0, sizeof(fx.sel));
	cpulist_set(&fx.sel, 0);
	cpulist_set(&fx.sel, 1);
	init_summary(&s, "intel_idle", NULL);
	assert_int_equal(summary_build(&s, &fx.w, &fx.sel), 0);
	assert_int_equal(s.nr_cpus, 2);
	assert_int_equal(s.cpus[0].cpu, 0);
	assert_int_equal(s.cpus[1].cpu, 1);
	c0 = &s.cpus[0];
	/* cpu0 C1: usage 103 - 100 = 3, time (5006 - 5000) * 1000 = 6000 ns,
	 * above 2 - 1 = 1, below 2 - 2 = 0, rejected 1 - 0 = 1 */
	assert_true(c0->states[1].kernel.valid);
	assert_int_equal(c0->states[1].kernel.usage, 3);
	assert_int_equal(c0->states[1].kernel.time_ns, 6000);
	assert_true(c0->states[1].kernel.has_miss_counters);
	assert_int_equal(c0->states[1].kernel.above, 1);
	assert_int_equal(c0->states[1].kernel.below, 0);
	assert_true(c0->states[1].kernel.has_rejected);
	assert_int_equal(c0->states[1].kernel.rejected, 1);
	/* cpu0 C6: usage 2, time (91000 - 1000) * 1000 = 90e6 ns; miss counters
	 * only at the start -> none */
	assert_int_equal(c0->states[2].kernel.usage, 2);
	assert_int_equal(c0->states[2].kernel.time_ns, 90 * MS);
	assert_false(c0->states[2].kernel.has_miss_counters);
	assert_int_equal(c0->states[2].kernel.above, 0);
	assert_false(c0->states[2].kernel.has_rejected);
	/* cpu0 POLL: no counters */
	assert_false(c0->states[0].kernel.valid);

	/* totals over 0 and 1, C1: usage 3 + 1 = 4, time 6000 + 10e6 ns,
	 * rejected 1 + 0 = 1, below 0 + 1 = 1 */
	t = &s.totals;
	assert_true(t->states[1].kernel.valid);
	assert_int_equal(t->states[1].kernel.usage, 4);
	assert_int_equal(t->states[1].kernel.time_ns, 10006000);
	assert_int_equal(t->states[1].kernel.rejected, 1);
	assert_int_equal(t->states[1].kernel.below, 1);
	/* both CPUs know their POLL limit */
	assert_true(t->states[0].poll_limit_known);
	/* busy 9994000 + 83e6 = 92994000 */
	assert_int_equal(t->busy_ns, 92994000);
	summary_free(&s);
	assert_null(s.cpus);
	assert_null(s.warnings);
	assert_int_equal(s.nr_warnings, 0);
}

static void test_model_warnings(void **state)
{
	struct summary s;

	(void)state;
	init_summary(&s, "intel_idle", NULL);
	s.snapshot_ns = 0;
	assert_int_equal(summary_build(&s, &fx.w, &fx.sel), 0);
	/* no cpu_idle_miss, 7 out-of-range events, 2 bad states, and CPUs 2, 3, 4
	 * not "ok": 1 + 1 + 1 + 3 = 6 warnings, in that order */
	assert_int_equal(s.nr_warnings, 6);
	assert_non_null(strstr(s.warnings[0], "cpu_idle_miss"));
	assert_non_null(strstr(s.warnings[1], "7 idle events"));
	assert_non_null(strstr(s.warnings[2], "2 idle entries"));
	assert_string_equal(s.warnings[3], "CPU 2: idle for the whole window (no complete period)");
	assert_string_equal(s.warnings[4], "CPU 3: no idle events (fully busy, or events lost)");
	assert_string_equal(s.warnings[5], "CPU 4: offline");
	summary_free(&s);

	/* with cpu_idle_miss attached: no such warning, states carry misses */
	raw_st(0, 1)->miss_above = 3;
	init_summary(&s, "intel_idle", "tp_btf");
	assert_int_equal(summary_build(&s, &fx.w, &fx.sel), 0);
	assert_int_equal(s.nr_warnings, 5);
	for (int i = 0; i < s.nr_warnings; i++)
		assert_null(strstr(s.warnings[i], "cpu_idle_miss"));
	assert_true(s.cpus[0].states[1].have_miss);
	assert_int_equal(s.cpus[0].states[1].miss_above, 3);
	/* summed into the totals: 3 + 0 */
	assert_int_equal(s.totals.states[1].miss_above, 3);
	summary_free(&s);

	/* a live record that could not poke: the CPUs of unknown state at the
	 * start, and why; none unknown, no warning */
	init_summary(&s, "intel_idle", "tp_btf");
	s.start_state.live = true;
	s.start_state.unknown_cpus = 2;
	s.start_state.poke_why = "IDLESCOPE_NO_POKE set";
	assert_int_equal(summary_build(&s, &fx.w, &fx.sel), 0);
	assert_int_equal(s.nr_warnings, 6);
	assert_string_equal(s.warnings[5], "2 CPUs of unknown state at the start (no idle event "
					   "since the attach; not poked: IDLESCOPE_NO_POKE set): one idle "
					   "then counts as busy in its group until its first idle entry");
	summary_free(&s);
	init_summary(&s, "intel_idle", "tp_btf");
	s.start_state.live = true;
	s.start_state.poke_why = "";
	assert_int_equal(summary_build(&s, &fx.w, &fx.sel), 0);
	assert_int_equal(s.nr_warnings, 5);
	summary_free(&s);
}

static void test_model_no_driver(void **state)
{
	struct summary s;
	struct idle_state_stats *st;

	(void)state;
	/* cpu0 without a driver table: default_idle_call() periods are state 1
	 * (4 of 1000 ns each), one forced poll period is state 0 */
	fx.info[0].nr_states = 0;
	memset(raw_st(0, 0), 0, sizeof(fx.stats[0]) * 3);
	st = raw_st(0, 1);
	st->entries = 4;
	st->time_ns = 4000;
	st->min_ns = st->max_ns = 1000;
	st->hist[35] = 4;
	st = raw_st(0, 0);
	st->entries = 1;
	st->time_ns = 300;
	st->min_ns = st->max_ns = 300;
	memset(&fx.sel, 0, sizeof(fx.sel));
	cpulist_set(&fx.sel, 0);
	init_summary(&s, "none", NULL);
	assert_int_equal(summary_build(&s, &fx.w, &fx.sel), 0);
	assert_int_equal(s.cpus[0].nr_states, 2);
	/* first the default-idle state (index 1), then poll (index 0) */
	assert_int_equal(s.cpus[0].states[0].index, 1);
	assert_string_equal(s.cpus[0].states[0].name, "default-idle");
	assert_false(s.cpus[0].states[0].classified);
	assert_int_equal(s.cpus[0].states[0].entries, 4);
	assert_int_equal(s.cpus[0].states[0].avg_ns, 1000); /* 4000 / 4 */
	assert_int_equal(s.cpus[0].states[1].index, 0);
	assert_string_equal(s.cpus[0].states[1].name, "poll");
	assert_true(s.cpus[0].states[1].poll);
	/* entries 4 + 1 = 5; idle 4000 + 300 = 4300 */
	assert_int_equal(s.cpus[0].entries, 5);
	assert_int_equal(s.cpus[0].idle_ns, 4300);
	/* warning 0 explains the missing driver (and replaces the miss one) */
	assert_true(s.nr_warnings >= 1);
	assert_non_null(strstr(s.warnings[0], "no cpuidle driver"));
	for (int i = 0; i < s.nr_warnings; i++)
		assert_null(strstr(s.warnings[i], "cpu_idle_miss"));
	summary_free(&s);

	/* no poll periods: one state only */
	memset(raw_st(0, 0), 0, sizeof(fx.stats[0]));
	init_summary(&s, "none", NULL);
	assert_int_equal(summary_build(&s, &fx.w, &fx.sel), 0);
	assert_int_equal(s.cpus[0].nr_states, 1);
	summary_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_model_per_state, build_model),
		cmocka_unit_test_setup(test_model_in_flight_mark, build_model),
		cmocka_unit_test_setup(test_model_pack_top_tasks, build_model),
		cmocka_unit_test_setup(test_model_edges_and_status, build_model),
		cmocka_unit_test_setup(test_model_enter_at_stop, build_model),
		cmocka_unit_test_setup(test_model_totals, build_model),
		cmocka_unit_test_setup(test_model_selection_and_kernel_deltas, build_model),
		cmocka_unit_test_setup(test_model_warnings, build_model),
		cmocka_unit_test_setup(test_model_no_driver, build_model),
	};

	return cmocka_run_group_tests_name("model", tests, NULL, NULL);
}
