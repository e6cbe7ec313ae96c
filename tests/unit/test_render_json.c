/* Unit tests for user/render/render_json.c and user/render/render_csv.c: a small summary
 * built by hand is rendered into memory, parsed back with jansson (JSON) or
 * split into lines (CSV), and checked field by field against values worked
 * out by hand in the comments. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model/flatten.h"
#include <jansson.h>

#include "model/kernel_check.h"
#include "model/model.h"
#include "render/render.h"

#define MS 1000000ULL

static struct cpu_topo tcpus[2];
static struct topology topo;
static struct cpu_summary cpus[2];
static char *warning_list[1];
static struct summary sum;

/* Two CPUs, two states (POLL, C1), 100 ms window, 2 us of snapshot reads.
 *   cpu0: C1 periods of 1000, 2000 and 3000 ns (buckets 35, 39, 41), kernel
 *         agrees (usage 3, 6 us)
 *   cpu1: no events; kernel C1 usage 0, time 0
 * Totals: C1 as on cpu0. One warning. */
static void fill_c1(struct state_summary *st, bool with_data)
{
	memset(st, 0, sizeof(*st));
	st->index = 1;
	snprintf(st->name, sizeof(st->name), "C1");
	snprintf(st->desc, sizeof(st->desc), "MWAIT 0x00");
	st->exit_latency_ns = 2000;
	st->target_residency_ns = 2000;
	st->classified = true;
	st->kernel.valid = true;
	st->kernel.has_miss_counters = true;
	st->kernel.has_rejected = true;
	if (!with_data)
		return;
	st->entries = 3;
	st->time_ns = 6000;
	st->min_ns = 1000;
	st->avg_ns = 2000; /* 6000 / 3 */
	st->max_ns = 3000;
	st->p50_ns = 1920; /* see test_model.c */
	st->p90_ns = 2868;
	st->p99_ns = 2987;
	st->above = 1;
	st->ideal[0] = 1;
	st->ideal[1] = 2;
	st->hist[35] = st->hist[39] = st->hist[41] = 1;
	st->kernel.usage = 3;
	st->kernel.time_ns = 6000;
	st->kernel.above = 1;
}

static void fill_poll(struct state_summary *st)
{
	memset(st, 0, sizeof(*st));
	st->index = 0;
	snprintf(st->name, sizeof(st->name), "POLL");
	snprintf(st->desc, sizeof(st->desc), "CPUIDLE CORE POLL IDLE");
	st->poll = true;
	st->classified = true;
}

static int build_summary(void **state)
{
	(void)state;
	memset(&sum, 0, sizeof(sum));
	memset(cpus, 0, sizeof(cpus));
	for (int c = 0; c < 2; c++) {
		tcpus[c] = (struct cpu_topo){ .cpu = c, .online = 1, .package = 0, .die = 0,
					      .cluster = 0, .core = c };
		tcpus[c].siblings = (char *)(c ? "1" : "0");
		tcpus[c].cluster_cpus = (char *)"0-1";
	}
	memset(&topo, 0, sizeof(topo));
	topo.nr_possible = topo.nr_cpus = 2;
	topo.cpus = tcpus;
	topo.nr_clusters = 1;
	topo.clusters = calloc(1, sizeof(*topo.clusters));
	cpulist_set(&topo.clusters[0], 0);
	cpulist_set(&topo.clusters[0], 1);

	snprintf(sum.kernel, sizeof(sum.kernel), "6.1.0-test");
	sum.start_ns = 5 * MS;
	sum.duration_ns = 100 * MS;
	sum.snapshot_ns = 2000;
	snprintf(sum.sys.driver, sizeof(sum.sys.driver), "intel_idle");
	snprintf(sum.sys.governor, sizeof(sum.sys.governor), "menu");
	sum.topo = &topo;
	sum.idle_attach = "tp_btf";
	sum.miss_attach = NULL;

	/* cpu0: 3 entries, 6000 ns idle, busy 100e6 - 6000 = 99994000 */
	cpus[0].cpu = 0;
	cpus[0].online = true;
	cpus[0].status = "ok";
	cpus[0].nr_states = 2;
	fill_poll(&cpus[0].states[0]);
	fill_c1(&cpus[0].states[1], true);
	cpus[0].entries = 3;
	cpus[0].idle_ns = 6000;
	cpus[0].busy_ns = 99994000;
	cpus[0].idle_task_ns = -1; /* as record has it: unknown */
	/* cpu1: nothing */
	cpus[1].cpu = 1;
	cpus[1].online = true;
	cpus[1].status = "no idle events (fully busy, or events lost)";
	cpus[1].nr_states = 2;
	fill_poll(&cpus[1].states[0]);
	fill_c1(&cpus[1].states[1], false);
	cpus[1].busy_ns = 100 * MS;
	cpus[1].idle_task_ns = 99 * MS; /* as a replay with sched_switch */
	sum.nr_cpus = 2;
	sum.cpus = cpus;
	/* totals: busy 99994000 + 100e6 = 199994000 */
	sum.totals.cpu = -1;
	sum.totals.online = true;
	sum.totals.status = "ok";
	sum.totals.nr_states = 2;
	fill_poll(&sum.totals.states[0]);
	fill_c1(&sum.totals.states[1], true);
	sum.totals.entries = 3;
	sum.totals.idle_ns = 6000;
	sum.totals.busy_ns = 199994000;
	warning_list[0] = "power:cpu_idle_miss is not available";
	sum.warnings = warning_list;
	sum.nr_warnings = 1;
	return 0;
}

static int free_summary(void **state)
{
	(void)state;
	free(topo.clusters);
	topo.clusters = NULL;
	return 0;
}

/* Renders sum to a string; *lines gets the number of '\n'. */
static char *render(bool json, bool compact, int *lines)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	if (json)
		assert_int_equal(render_json(f, &sum, compact), 0);
	else
		render_csv(f, &sum);
	assert_int_equal(fclose(f), 0);
	*lines = 0;
	for (size_t i = 0; i < len; i++)
		*lines += buf[i] == '\n';
	return buf;
}

static json_t *render_parse(bool compact)
{
	json_error_t jerr;
	int lines;
	char *text = render(true, compact, &lines);
	json_t *root = json_loads(text, 0, &jerr);

	if (!root)
		fail_msg("JSON does not parse: %s at line %d: %s", jerr.text, jerr.line, text);
	if (compact)
		assert_int_equal(lines, 1); /* one object per line */
	free(text);
	return root;
}

static json_int_t get_int(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_integer(v))
		fail_msg("'%s' is not an integer", key);
	return json_integer_value(v);
}

static const char *get_str(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_string(v))
		fail_msg("'%s' is not a string", key);
	return json_string_value(v);
}

/* Every key ending in "_ns" anywhere in v holds an integer (null allowed
 * only where allow_null). Returns how many it checked. */
static int check_ns_ints(json_t *v, bool allow_null)
{
	const char *key;
	json_t *x;
	size_t i;
	int n = 0;

	if (json_is_object(v)) {
		json_object_foreach(v, key, x) {
			size_t l = strlen(key);

			if (l > 3 && !strcmp(key + l - 3, "_ns")) {
				/* eas.overutilized_ns is null without sched_overutilized_tp,
				 * the exit cost's where it is unknown (json-schema.md) */
				/* idle_task_ns outside a replay with sched_switch,
				 * busy_ns of a replay without cpu_idle events */
				bool nullable = allow_null || !strcmp(key, "overutilized_ns") ||
						!strcmp(key, "idle_task_ns") ||
						!strcmp(key, "busy_ns") ||
						!strcmp(key, "exit_cost_ns") ||
						!strcmp(key, "exit_cost_measured_ns") ||
						!strcmp(key, "early_ns");

				if (!(json_is_integer(x) || (nullable && json_is_null(x))))
					fail_msg("'%s' is not an integer", key);
				n++;
			}
			n += check_ns_ints(x, allow_null);
		}
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, x)
			n += check_ns_ints(x, allow_null);
	}
	return n;
}

static void test_json_top_level(void **state)
{
	json_t *root = render_parse(false), *o;

	(void)state;
	assert_string_equal(get_str(root, "schema"), "idlescope/1");
	assert_true(json_is_string(json_object_get(json_object_get(root, "tool"), "version")));
	assert_string_equal(get_str(root, "kernel"), "6.1.0-test");
	assert_int_equal(get_int(root, "duration_ns"), 100000000);
	assert_int_equal(get_int(root, "snapshot_ns"), 2000);
	o = json_object_get(root, "cpuidle");
	assert_string_equal(get_str(o, "driver"), "intel_idle");
	assert_string_equal(get_str(o, "governor"), "menu");
	o = json_object_get(root, "events");
	assert_string_equal(get_str(o, "cpu_idle"), "tp_btf");
	assert_true(json_is_null(json_object_get(o, "cpu_idle_miss")));
	o = json_object_get(root, "dropped_events");
	assert_int_equal(get_int(o, "cpu_out_of_range"), 0);
	assert_int_equal(get_int(o, "bad_state"), 0);
	/* not a live record: no start state */
	assert_true(json_is_null(json_object_get(root, "start_state")));
	o = json_object_get(root, "warnings");
	assert_true(json_is_array(o));
	assert_int_equal(json_array_size(o), 1);
	assert_string_equal(json_string_value(json_array_get(o, 0)),
			    "power:cpu_idle_miss is not available");
	/* every *_ns field in the document is an integer */
	assert_true(check_ns_ints(root, false) > 40);
	/* busy is known (idle states recorded); the idle task's time where given */
	o = json_array_get(json_object_get(root, "cpus"), 0);
	assert_true(json_is_null(json_object_get(o, "idle_task_ns")));
	assert_int_equal(get_int(o, "busy_ns"), 99994000);
	assert_int_equal(get_int(o, "orphan_exits"), 0);
	assert_int_equal(get_int(o, "lost_exits"), 0);
	o = json_array_get(json_object_get(root, "cpus"), 1);
	assert_int_equal(get_int(o, "idle_task_ns"), 99 * MS);
	json_decref(root);
}

static void test_json_topology(void **state)
{
	json_t *root = render_parse(false), *t, *c;

	(void)state;
	t = json_object_get(root, "topology");
	assert_int_equal(json_array_size(json_object_get(t, "cpus")), 2);
	c = json_array_get(json_object_get(t, "cpus"), 1);
	assert_int_equal(get_int(c, "cpu"), 1);
	assert_true(json_is_true(json_object_get(c, "online")));
	assert_int_equal(get_int(c, "package"), 0);
	assert_int_equal(get_int(c, "cluster"), 0);
	assert_int_equal(get_int(c, "core"), 1);
	assert_string_equal(get_str(c, "siblings"), "1");
	assert_string_equal(get_str(c, "cluster_cpus"), "0-1");
	/* cluster 0 = {0, 1}, formatted "0-1" */
	c = json_array_get(json_object_get(t, "clusters"), 0);
	assert_int_equal(get_int(c, "id"), 0);
	assert_string_equal(get_str(c, "cpus"), "0-1");
	json_decref(root);
}

static void test_json_cpus_and_states(void **state)
{
	json_t *root = render_parse(false), *arr, *c, *st, *h, *ideal;
	static const char *const fields[] = {
		"index", "name", "exit_latency_ns", "target_residency_ns", "entries", "time_ns",
		"min_ns", "max_ns", "p50_ns", "p90_ns", "p99_ns", "above", "below", "hist",
	};

	(void)state;
	arr = json_object_get(root, "cpus");
	assert_true(json_is_array(arr));
	assert_int_equal(json_array_size(arr), 2);
	c = json_array_get(arr, 0);
	assert_int_equal(get_int(c, "cpu"), 0);
	assert_true(json_is_true(json_object_get(c, "online")));
	assert_string_equal(get_str(c, "status"), "ok");
	assert_int_equal(get_int(c, "entries"), 3);
	assert_int_equal(get_int(c, "idle_ns"), 6000);
	assert_int_equal(get_int(c, "edge_idle_ns"), 0);
	assert_int_equal(get_int(c, "busy_ns"), 99994000);
	assert_int_equal(get_int(c, "unmatched_exits"), 0);
	assert_true(json_is_false(json_object_get(c, "idle_at_end")));
	assert_int_equal(json_array_size(json_object_get(c, "states")), 2);

	/* every state of every CPU has the documented fields */
	for (size_t i = 0; i < 2; i++)
		for (size_t j = 0; j < 2; j++) {
			json_t *s = json_array_get(json_object_get(json_array_get(arr, i), "states"), j);

			for (size_t k = 0; k < sizeof(fields) / sizeof(fields[0]); k++)
				if (!json_object_get(s, fields[k]))
					fail_msg("cpus[%zu].states[%zu] lacks '%s'", i, j, fields[k]);
		}

	st = json_array_get(json_object_get(c, "states"), 1);
	assert_int_equal(get_int(st, "index"), 1);
	assert_string_equal(get_str(st, "name"), "C1");
	assert_string_equal(get_str(st, "desc"), "MWAIT 0x00");
	assert_true(json_is_false(json_object_get(st, "poll")));
	assert_true(json_is_false(json_object_get(st, "disabled")));
	assert_int_equal(get_int(st, "exit_latency_ns"), 2000);
	assert_int_equal(get_int(st, "target_residency_ns"), 2000);
	assert_int_equal(get_int(st, "entries"), 3);
	assert_int_equal(get_int(st, "time_ns"), 6000);
	assert_int_equal(get_int(st, "min_ns"), 1000);
	assert_int_equal(get_int(st, "avg_ns"), 2000);
	assert_int_equal(get_int(st, "max_ns"), 3000);
	assert_int_equal(get_int(st, "p50_ns"), 1920);
	assert_int_equal(get_int(st, "p90_ns"), 2868);
	assert_int_equal(get_int(st, "p99_ns"), 2987);
	assert_int_equal(get_int(st, "above"), 1);
	assert_int_equal(get_int(st, "below"), 0);
	/* share = 6000 / 100e6 = 6e-5 */
	assert_true(json_is_real(json_object_get(st, "share")));
	assert_true(json_real_value(json_object_get(st, "share")) > 5.9999e-5 &&
		    json_real_value(json_object_get(st, "share")) < 6.0001e-5);
	/* ideal has one count per state: [1, 2] */
	ideal = json_object_get(st, "ideal");
	assert_int_equal(json_array_size(ideal), 2);
	assert_int_equal(json_integer_value(json_array_get(ideal, 0)), 1);
	assert_int_equal(json_integer_value(json_array_get(ideal, 1)), 2);
	/* C1 is not a polling state: no poll limit */
	assert_true(json_is_null(json_object_get(st, "poll_limit")));
	assert_int_equal(get_int(st, "below_qos"), 0);
	/* no cpu_idle_miss: misses are null */
	assert_true(json_is_null(json_object_get(st, "miss_above")));
	assert_true(json_is_null(json_object_get(st, "miss_below")));

	/* hist: only non-empty buckets, ascending:
	 * 35: [(4+3) << 7, 4 << 8) = [896, 1024)
	 * 39: [(4+3) << 8, 4 << 9) = [1792, 2048)
	 * 41: [(4+1) << 9, 6 << 9) = [2560, 3072) */
	h = json_object_get(st, "hist");
	assert_int_equal(json_array_size(h), 3);
	assert_int_equal(get_int(json_array_get(h, 0), "lo_ns"), 896);
	assert_int_equal(get_int(json_array_get(h, 0), "hi_ns"), 1024);
	assert_int_equal(get_int(json_array_get(h, 0), "count"), 1);
	assert_int_equal(get_int(json_array_get(h, 1), "lo_ns"), 1792);
	assert_int_equal(get_int(json_array_get(h, 1), "hi_ns"), 2048);
	assert_int_equal(get_int(json_array_get(h, 2), "lo_ns"), 2560);
	assert_int_equal(get_int(json_array_get(h, 2), "hi_ns"), 3072);
	assert_int_equal(get_int(json_array_get(h, 2), "count"), 1);

	/* POLL on cpu1: empty histogram, zero counts */
	st = json_array_get(json_object_get(json_array_get(arr, 1), "states"), 0);
	assert_string_equal(get_str(st, "name"), "POLL");
	assert_true(json_is_true(json_object_get(st, "poll")));
	assert_int_equal(json_array_size(json_object_get(st, "hist")), 0);
	assert_int_equal(get_int(st, "entries"), 0);

	/* totals: no "cpu" key; share over 2 CPUs: 6000 / 200e6 = 3e-5 */
	c = json_object_get(root, "totals");
	assert_null(json_object_get(c, "cpu"));
	assert_int_equal(get_int(c, "busy_ns"), 199994000);
	st = json_array_get(json_object_get(c, "states"), 1);
	assert_true(json_real_value(json_object_get(st, "share")) > 2.9999e-5 &&
		    json_real_value(json_object_get(st, "share")) < 3.0001e-5);
	json_decref(root);
}

static void test_json_kernel_check(void **state)
{
	json_t *root = render_parse(false), *kc, *rows, *r;

	(void)state;
	kc = json_object_get(root, "kernel_check");
	assert_string_equal(get_str(kc, "verdict"), "ok");
	assert_int_equal(get_int(kc, "bias_allowance_ns"), 1000);
	/* rows for states with kernel counters: cpu0 C1, cpu1 C1, totals C1 */
	rows = json_object_get(kc, "rows");
	assert_int_equal(json_array_size(rows), 3);
	r = json_array_get(rows, 0);
	assert_int_equal(get_int(r, "cpu"), 0);
	assert_int_equal(get_int(r, "state"), 1);
	assert_string_equal(get_str(r, "name"), "C1");
	assert_int_equal(get_int(json_object_get(r, "bpf"), "entries"), 3);
	assert_int_equal(get_int(json_object_get(r, "kernel"), "usage"), 3);
	assert_int_equal(get_int(json_object_get(r, "kernel"), "time_ns"), 6000);
	assert_int_equal(get_int(json_object_get(r, "kernel"), "rejected"), 0);
	assert_true(json_is_null(json_object_get(r, "miss")));
	assert_int_equal(get_int(r, "entries_diff"), 0);  /* 3 - (3 + 0) */
	/* 2 per CPU + ceil(3 * 2000 / 100e6 = 0.00006) = 2 + 1 = 3 */
	assert_int_equal(get_int(r, "entries_allowed"), 3);
	assert_int_equal(get_int(r, "time_diff_ns"), 0);
	assert_true(json_is_true(json_object_get(r, "ok")));
	/* totals row: cpu "all", allowed 2 * 2 CPUs + 1 = 5 */
	r = json_array_get(rows, 2);
	assert_string_equal(get_str(r, "cpu"), "all");
	assert_int_equal(get_int(r, "entries_allowed"), 5);
	json_decref(root);

	/* a disagreement flips the verdict: kernel usage 7 vs 3 entries */
	cpus[0].states[1].kernel.usage = 7;
	root = render_parse(false);
	kc = json_object_get(root, "kernel_check");
	assert_string_equal(get_str(kc, "verdict"), "mismatch");
	r = json_array_get(json_object_get(kc, "rows"), 0);
	assert_int_equal(get_int(r, "entries_diff"), -4); /* 3 - 7 */
	assert_true(json_is_false(json_object_get(r, "ok")));
	json_decref(root);
}

static void test_json_compact_and_nulls(void **state)
{
	json_t *root, *st;

	(void)state;
	/* a CPU without a driver table: unclassified state, no kernel counters */
	cpus[1].states[1].classified = false;
	cpus[1].states[1].kernel.valid = false;
	sum.miss_attach = "raw_tp";
	cpus[0].states[1].have_miss = true;
	cpus[0].states[1].miss_above = 4;
	root = render_parse(true);
	assert_string_equal(get_str(json_object_get(root, "events"), "cpu_idle_miss"), "raw_tp");
	st = json_array_get(json_object_get(json_array_get(json_object_get(root, "cpus"), 1),
					    "states"),
			    1);
	assert_true(json_is_null(json_object_get(st, "exit_latency_ns")));
	assert_true(json_is_null(json_object_get(st, "target_residency_ns")));
	assert_true(json_is_null(json_object_get(st, "above")));
	assert_true(json_is_null(json_object_get(st, "below")));
	assert_true(json_is_null(json_object_get(st, "ideal")));
	st = json_array_get(json_object_get(json_array_get(json_object_get(root, "cpus"), 0),
					    "states"),
			    1);
	assert_int_equal(get_int(st, "miss_above"), 4);
	assert_int_equal(get_int(st, "miss_below"), 0);
	json_decref(root);
	/* a live record: how each CPU's state was known at the start */
	sum.start_state = (__typeof__(sum.start_state)){ .live = true, .unknown_cpus = 1, .poked = 3,
						     .poked_busy = 2, .poked_woken = 1, .poke_ns = 4500,
						     .poke_why = "IDLESCOPE_NO_POKE set" };
	root = render_parse(true);
	sum.start_state.live = false;
	st = json_object_get(root, "start_state");
	assert_int_equal(get_int(st, "unknown_cpus"), 1);
	assert_int_equal(get_int(st, "poked_cpus"), 3);
	assert_int_equal(get_int(st, "poked_busy"), 2);
	assert_int_equal(get_int(st, "poked_woken"), 1);
	assert_int_equal(get_int(st, "poke_ns"), 4500);
	assert_string_equal(get_str(st, "poke_reason"), "IDLESCOPE_NO_POKE set");
	/* *_ns are integers or, for unclassified states, null */
	assert_true(check_ns_ints(root, true) > 40);
	/* rows: cpu0 C1 and totals C1 only now */
	assert_int_equal(json_array_size(json_object_get(json_object_get(root, "kernel_check"),
							 "rows")),
			 2);
	json_decref(root);
}

/* The governor split of a state, with the wakes' causes and the timers
 * against what the governor was told (wakeups on), and their names in
 * compare's flat list. */
static void test_json_governor(void **state)
{
	struct state_summary *c1 = &cpus[0].states[1];
	struct metric_set m = { 0 };
	const struct metric_kv *kv;
	json_t *root, *g;

	(void)state;
	c1->have_gov = true;
	c1->gov = (struct gov_split){ .known = 9, .above_near = 1, .above_unannounced = 3,
				      .timer_known = 6, .timer_later = 1, .timer_earlier = 2,
				      .timer_tick_first = 1,
				      .timer_err_sum_ns = 7000, .timer_err_max_ns = 4000 };
	c1->gov.above_cause[WAKE_IPI_CALL_SINGLE] = 2;
	c1->gov.above_cause[WAKE_UNKNOWN] = 1;
	sum.wake_enabled = false;
	root = render_parse(false);
	g = json_object_get(json_array_get(json_object_get(json_array_get(json_object_get(root, "cpus"),
									    0), "states"), 1),
			    "governor");
	assert_int_equal(get_int(g, "above_woken_before_timer"), 3);
	assert_true(json_is_null(json_object_get(g, "woken_before_timer_by_cause")));
	assert_true(json_is_null(json_object_get(g, "timer_ended")));
	json_decref(root);
	sum.wake_enabled = true;
	root = render_parse(false);
	g = json_object_get(json_array_get(json_object_get(json_array_get(json_object_get(root, "cpus"),
									    0), "states"), 1),
			    "governor");
	assert_int_equal(get_int(json_object_get(g, "woken_before_timer_by_cause"), "ipi-call-single"), 2);
	assert_int_equal(get_int(json_object_get(g, "woken_before_timer_by_cause"), "unknown"), 1);
	assert_int_equal(get_int(json_object_get(g, "woken_before_timer_by_cause"), "irq"), 0);
	assert_int_equal(get_int(json_object_get(g, "timer_ended"), "periods"), 6);
	assert_int_equal(get_int(json_object_get(g, "timer_ended"), "as_told"), 2);
	assert_int_equal(get_int(json_object_get(g, "timer_ended"), "tick_first"), 1);
	assert_int_equal(get_int(json_object_get(g, "timer_ended"), "later_than_told"), 1);
	assert_int_equal(get_int(json_object_get(g, "timer_ended"), "earlier_than_told"), 2);
	assert_int_equal(get_int(json_object_get(g, "timer_ended"), "error_sum_ns"), 7000);
	assert_int_equal(get_int(json_object_get(g, "timer_ended"), "error_max_ns"), 4000);
	assert_int_equal(flatten_summary(root, &m), 0);
	kv = metric_find(&m, "cpu[0].state[C1].governor.woken_early.ipi-call-single");
	assert_non_null(kv);
	assert_true(kv->value == 2);
	kv = metric_find(&m, "cpu[0].state[C1].governor.timer_ended.later_than_told");
	assert_non_null(kv);
	assert_true(kv->value == 1);
	metric_set_free(&m);
	json_decref(root);
	sum.wake_enabled = false;
	c1->have_gov = false;
	memset(&c1->gov, 0, sizeof(c1->gov));
}

static void test_csv(void **state)
{
	int lines;
	char *text, *line, *save = NULL;
	int n = 0;

	(void)state;
	text = render(false, false, &lines);
	/* header + (2 CPUs x 2 states) + 2 totals states = 1 + 4 + 2 = 7 */
	assert_int_equal(lines, 7);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save), n++) {
		int commas = 0;

		for (const char *p = line; *p; p++)
			commas += *p == ',';
		assert_int_equal(commas, 26); /* 27 columns everywhere */
		if (n == 0)
			assert_string_equal(line,
					    "cpu,state,name,exit_latency_ns,target_residency_ns,entries,"
					    "time_ns,min_ns,avg_ns,max_ns,p50_ns,p90_ns,p99_ns,above,"
					    "below,below_qos,poll_limit,miss_above,miss_below,k_usage,"
					    "k_time_ns,k_above,k_below,k_rejected,fx_entered,fx_rejected,"
					    "fx_demoted");
		/* cpu0 POLL: exit 0, target 0, 8 zero statistics, above/below/
		 * below_qos 0 (13 zeros); poll limit unknown, no misses, no kernel
		 * counters: 1 + 2 + 5 = 8 empty fields */
		if (n == 1)
			assert_string_equal(line, "0,0,\"POLL\",0,0,0,0,0,0,0,0,0,0,0,0,0,,,,,,,,,,,");
		/* cpu0 C1: exit 2000, target 2000, 3 entries, 6000 ns, min 1000,
		 * avg 2000, max 3000, p50/p90/p99 1920/2868/2987, above 1, below 0,
		 * below_qos 0, poll_limit empty (not a polling state), misses
		 * empty, kernel usage 3, time 6000, above 1, below 0, rejected 0 */
		if (n == 2)
			assert_string_equal(line, "0,1,\"C1\",2000,2000,3,6000,1000,2000,3000,1920,"
						  "2868,2987,1,0,0,,,,3,6000,1,0,0,,,");
		if (n == 3 || n == 4)
			assert_int_equal(strncmp(line, "1,", 2), 0);
		if (n >= 5)
			assert_int_equal(strncmp(line, "all,", 4), 0);
	}
	assert_int_equal(n, 7);
	free(text);
}

static void test_csv_unknown_fields_empty(void **state)
{
	int lines;
	char *text;

	(void)state;
	/* kernel without above/below (pre-5.0) and rejected (pre-5.10):
	 * k_above, k_below, k_rejected are empty, not 0 */
	cpus[0].states[1].kernel.has_miss_counters = false;
	cpus[0].states[1].kernel.has_rejected = false;
	cpus[0].states[1].kernel.above = 0;
	/* cpu1 C1 unclassified (no driver table) and without kernel counters:
	 * exit, target (2 empty), the 8 statistics 0, then above, below,
	 * below_qos, poll_limit, 2 misses and 5 kernel fields empty (11) */
	cpus[1].states[1].classified = false;
	cpus[1].states[1].kernel.valid = false;
	/* a polling state whose limit sysfs tells: 2 periods ended at it */
	cpus[0].states[0].poll_limit_known = true;
	cpus[0].states[0].poll_limit = 2;
	/* cpu_idle_miss attached on cpu0 C1: above 5, below 1 */
	cpus[0].states[1].have_miss = true;
	cpus[0].states[1].miss_above = 5;
	cpus[0].states[1].miss_below = 1;
	/* fexit on cpu0 C1: 4 entered, 2 rejected, 1 demoted; the other
	 * rows without fexit leave the three columns empty */
	cpus[0].states[1].have_fexit = true;
	cpus[0].states[1].fx_entered = 4;
	cpus[0].states[1].fx_rejected = 2;
	cpus[0].states[1].fx_demoted = 1;
	text = render(false, false, &lines);
	assert_non_null(strstr(text, "\n0,1,\"C1\",2000,2000,3,6000,1000,2000,3000,1920,2868,2987,"
				     "1,0,0,,5,1,3,6000,,,,4,2,1\n"));
	assert_non_null(strstr(text, "\n1,1,\"C1\",,,0,0,0,0,0,0,0,0,,,,,,,,,,,,,,\n"));
	assert_non_null(strstr(text, "\n0,0,\"POLL\",0,0,0,0,0,0,0,0,0,0,0,0,0,2,,,,,,,,,,\n"));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_json_top_level, build_summary, free_summary),
		cmocka_unit_test_setup_teardown(test_json_topology, build_summary, free_summary),
		cmocka_unit_test_setup_teardown(test_json_cpus_and_states, build_summary, free_summary),
		cmocka_unit_test_setup_teardown(test_json_kernel_check, build_summary, free_summary),
		cmocka_unit_test_setup_teardown(test_json_compact_and_nulls, build_summary,
						free_summary),
		cmocka_unit_test_setup_teardown(test_json_governor, build_summary, free_summary),
		cmocka_unit_test_setup_teardown(test_csv, build_summary, free_summary),
		cmocka_unit_test_setup_teardown(test_csv_unknown_fields_empty, build_summary,
						free_summary),
	};

	return cmocka_run_group_tests_name("render_json", tests, NULL, NULL);
}
