/* Unit tests for the renderers of the commands' own outputs: render/
 * render_compare.c, render_ab.c, render_info.c, render_replay.c,
 * render_advise.c and render_budget.c. Each model is built by hand; the text is compared whole
 * with the expected lines (their printf layout worked out in the comments),
 * the JSON parsed back and checked field by field. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "render/render_ab.h"
#include "render/render_advise.h"
#include "render/render_budget.h"
#include "render/render_compare.h"
#include "render/render_info.h"
#include "render/render_replay.h"

/* Rendering into memory: capture_start's stream, then capture_end's text
 * (caller frees). */
static char *mem_buf;
static size_t mem_len;
static FILE *mem;

static FILE *capture_start(void)
{
	mem = open_memstream(&mem_buf, &mem_len);
	assert_non_null(mem);
	return mem;
}

static char *capture_end(void)
{
	assert_int_equal(fclose(mem), 0);
	return mem_buf;
}

static json_t *parse(const char *text)
{
	json_error_t e;
	json_t *doc = json_loads(text, 0, &e);

	if (!doc)
		fail_msg("not JSON: %s: %s", e.text, text);
	return doc;
}

static double num_at(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	if (!json_is_number(v))
		fail_msg("%s is not a number", key);
	return json_number_value(v);
}

/* compare: BASE has cpu[0] (time 100, entries 0) and cpu[1]; OTHER has
 * cpu[0] (time 150, entries 5) and cpu[2].
 *   time:    delta 150 - 100 = 50, 50 / 100 = +50.0%
 *   entries: delta 5, base 0 and other not 0: "n/a" (CSV: empty)
 *   cpu[1]:  not in OTHER: "-" (CSV: three empty cells)
 * Columns: metric as wide as "cpu[0].time_ns" (14), files 16 at least. */
static struct metric_kv base_kv[] = {
	{ "cpu[0].time_ns", 100 }, { "cpu[0].entries", 0 }, { "cpu[1].time_ns", 50 },
};
static struct metric_kv other_kv[] = {
	{ "cpu[0].time_ns", 150 }, { "cpu[0].entries", 5 }, { "cpu[2].time_ns", 7 },
};
static const char *const compare_files[] = { "base.json", "other.json" };

static struct compare_report compare_model(struct metric_set *sets)
{
	sets[0] = (struct metric_set){ .n = 3, .cap = 3, .kv = base_kv };
	sets[1] = (struct metric_set){ .n = 3, .cap = 3, .kv = other_kv };
	return (struct compare_report){ .nr_files = 2, .files = compare_files, .sets = sets };
}

static void test_compare_table(void **state)
{
	struct metric_set sets[2];
	struct compare_report c = compare_model(sets);
	FILE *f = capture_start();
	char *out;

	(void)state;
	render_compare(f, FMT_TABLE, &c);
	out = capture_end();
	assert_string_equal(out,
		"metric                base.json       other.json          delta    delta%\n"
		"cpu[0].time_ns              100              150             50    +50.0%\n"
		"cpu[0].entries                0                5              5       n/a\n"
		"cpu[1].time_ns               50                -              -         -\n"
		"\n"
		"Unmatched: only in base.json, not in other.json:\n"
		"  cpu[1]\n"
		"\n"
		"Unmatched: only in other.json, not in base.json:\n"
		"  cpu[2]\n");
	free(out);
}

static void test_compare_csv(void **state)
{
	struct metric_set sets[2];
	struct compare_report c = compare_model(sets);
	FILE *f = capture_start();
	char *out;

	(void)state;
	render_compare(f, FMT_CSV, &c);
	out = capture_end();
	assert_string_equal(out,
		"metric,base.json,other.json,delta,delta_pct\n"
		"cpu[0].time_ns,100,150,50,50\n"
		"cpu[0].entries,0,5,5,\n"
		"cpu[1].time_ns,50,,,\n");
	free(out);
}

static void test_compare_json(void **state)
{
	struct metric_set sets[2];
	struct compare_report c = compare_model(sets);
	FILE *f = capture_start();
	char *out;
	json_t *doc, *rows, *um, *r;

	(void)state;
	assert_int_equal(render_compare(f, FMT_JSON, &c), 0);
	out = capture_end();
	doc = parse(out);
	rows = json_object_get(doc, "rows");
	assert_string_equal(json_string_value(json_object_get(doc, "schema")), "idlescope-compare/1");
	assert_int_equal(json_array_size(rows), 3);
	r = json_array_get(rows, 0);
	assert_string_equal(json_string_value(json_object_get(r, "metric")), "cpu[0].time_ns");
	assert_true(json_number_value(json_array_get(json_object_get(r, "values"), 1)) == 150);
	assert_true(json_number_value(json_array_get(json_object_get(r, "delta"), 1)) == 50);
	assert_true(json_number_value(json_array_get(json_object_get(r, "delta_pct"), 1)) == 50);
	/* base 0: no percentage */
	r = json_array_get(rows, 1);
	assert_true(json_is_null(json_array_get(json_object_get(r, "delta_pct"), 1)));
	/* not in OTHER: every column null */
	r = json_array_get(rows, 2);
	assert_true(json_is_null(json_array_get(json_object_get(r, "values"), 1)));
	assert_true(json_is_null(json_array_get(json_object_get(r, "delta"), 1)));
	um = json_object_get(doc, "unmatched");
	assert_int_equal(json_array_size(um), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(um, 0), "only_in")),
			    "base.json");
	assert_string_equal(json_string_value(json_array_get(
				    json_object_get(json_array_get(um, 0), "entities"), 0)),
			    "cpu[1]");
	assert_string_equal(json_string_value(json_array_get(
				    json_object_get(json_array_get(um, 1), "entities"), 0)),
			    "cpu[2]");
	json_decref(doc);
	free(out);
}

/* ab: two variants, two runs each, one metric with its statistics and a
 * Welch test set by hand (the renderer computes none), one metric no run
 * had. The difference in percent: 25 / 15 = +166.67%, 10 / 15 = 66.67%. */
static const double ab_runs[] = { 10, 20, 30, 50, NAN, NAN, NAN, NAN };
static const char *const ab_variants[] = { "governor=menu", "governor=teo" };
static const char *const ab_metrics[] = { "total.entries", "nope" };

static struct ab_report ab_model(struct ab_row *rows)
{
	memset(rows, 0, 4 * sizeof(*rows));
	rows[0] = (struct ab_row){ .have = true, .runs = &ab_runs[0],
				   .st = { 2, 10, 20, 15, 15, 7.0710678 } };
	rows[1] = (struct ab_row){ .have = true, .runs = &ab_runs[2],
				   .st = { 2, 30, 50, 40, 40, 14.142136 }, .have_welch = true,
				   .w = { .diff = 25, .half_width = 10, .t = 3, .df = 2,
					  .t_crit = 4.303, .significant = 1 } };
	rows[2] = (struct ab_row){ .runs = &ab_runs[4] };
	rows[3] = (struct ab_row){ .runs = &ab_runs[6] };
	return (struct ab_report){ .repeat = 2, .nr_variants = 2, .nr_metrics = 2,
				   .variants = ab_variants, .metrics = ab_metrics, .rows = rows,
				   .warning = "a warning" };
}

static void test_ab_table(void **state)
{
	struct ab_row rows[4];
	struct ab_report a = ab_model(rows);
	FILE *f = capture_start();
	char *out;

	(void)state;
	render_ab(f, FMT_TABLE, &a);
	out = capture_end();
	assert_string_equal(out,
		"ab: 2 variants x 2 runs, interleaved\n"
		"warning: a warning\n"
		"\n"
		"total.entries\n"
		"  variant                                 N            min            max         median           mean         stddev\n"
		"  governor=menu                           2             10             20             15             15        7.07107\n"
		"  governor=teo                            2             30             50             40             40        14.1421\n"
		"                                        difference +25 +/- 10 (+166.67% +/- 66.67%) at 95%: SIGNIFICANT\n"
		"\n"
		"nope\n"
		"  variant                                 N            min            max         median           mean         stddev\n"
		"  governor=menu                         (metric not in these runs)\n"
		"  governor=teo                          (metric not in these runs)\n");
	free(out);
}

static void test_ab_json(void **state)
{
	struct ab_row rows[4];
	struct ab_report a = ab_model(rows);
	FILE *f = capture_start();
	char *out;
	json_t *doc, *m0, *v0, *v1, *vs;

	(void)state;
	render_ab(f, FMT_JSON, &a);
	out = capture_end();
	doc = parse(out);
	assert_string_equal(json_string_value(json_object_get(doc, "schema")), "idlescope-ab/1");
	assert_int_equal(json_integer_value(json_object_get(doc, "repeat")), 2);
	assert_string_equal(json_string_value(json_array_get(json_object_get(doc, "variants"), 1)),
			    "governor=teo");
	assert_string_equal(json_string_value(json_array_get(json_object_get(doc, "warnings"), 0)),
			    "a warning");
	m0 = json_array_get(json_object_get(doc, "metrics"), 0);
	v0 = json_array_get(json_object_get(m0, "variants"), 0);
	v1 = json_array_get(json_object_get(m0, "variants"), 1);
	assert_true(json_number_value(json_array_get(json_object_get(v0, "runs"), 1)) == 20);
	assert_true(num_at(v1, "mean") == 40);
	assert_null(json_object_get(v0, "vs_first"));
	vs = json_object_get(v1, "vs_first");
	assert_true(num_at(vs, "diff") == 25);
	assert_true(num_at(vs, "half_width_95") == 10);
	assert_true(num_at(vs, "t_crit") == 4.303);
	assert_true(json_is_true(json_object_get(vs, "significant")));
	/* a metric no run had: null runs, n 0, no test */
	v1 = json_array_get(json_object_get(json_array_get(json_object_get(doc, "metrics"), 1),
					    "variants"), 1);
	assert_true(json_is_null(json_array_get(json_object_get(v1, "runs"), 0)));
	assert_int_equal(json_integer_value(json_object_get(v1, "n")), 0);
	assert_null(json_object_get(v1, "vs_first"));
	json_decref(doc);
	free(out);
}

/* info: a static build lacking HTTPS, one feature present and one missing,
 * fexit on the idle path, no governor, no cpufreq, two cost configurations
 * with one part, and two commands' wakeups on 2 CPUs (top's 1 tick/s is
 * 0.5/s/CPU: 0.75 - 0.5 = +0.25 beyond it). */
static const struct info_feature info_features[] = {
	{ "btf", "vmlinux BTF", true, "/sys/kernel/btf/vmlinux", "nothing loads" },
	{ "fentry", "fentry/fexit", false, "EPERM on vfs_read", "no exact counts" },
};
static const struct info_cost_config info_configs[] = {
	{ "none", false, 20000, 1, 0.95, 1.05, 0, 0, 0 },
	{ "default", true, 18000, 0.9, 0.85, 0.95, 300, 250, 2 },
};
static const struct info_cost_part info_parts[] = { { "wakeups", 120, 0.0024, 30 } };
static const struct info_costs info_cost = { .cpu_a = 0, .cpu_b = 1, .rounds = 5000, .runs = 3,
					     .nr_configs = 2, .nr_parts = 1,
					     .configs = info_configs, .parts = info_parts };

static const struct info_wake_cost info_wake_rows[] = {
	{ .command = "record -d N", .added = 0.125, .added_min = -0.5, .added_max = 0.75,
	  .beyond = 0.125 },
	/* the ticker added 0.6 in the repetitions, top 0.75 */
	{ .command = "top -i 1", .ticks_per_s = 1, .own_per_s = 1, .added = 0.75, .added_min = 0.5,
	  .added_max = 1, .tick_cost = 0.6, .beyond = 0.25 },
	{ .command = "1 Hz ticker (reference)", .reference = true, .ticks_per_s = 1,
	  .own_per_s = 1, .added = 0.6, .added_min = 0.5, .added_max = 0.7, .tick_cost = 0.6,
	  .beyond = NAN },
};
static const struct info_wakeups info_wake = { .oracle = "cpuidle usage", .nr_cpus = 2,
					       .reps = 2, .window_s = 3, .settle_s = 1.5,
					       .base_per_s_cpu = 21.5, .nr = 3,
					       .c = info_wake_rows };

/* PM QoS: 17 us held by two processes (one with two requests), CPU 0 at
 * "n/a" and CPU 2 at 50 us, the haltpoll governor present but not in use. */
static const struct info_qos_holder info_holders[] = { { 50, "tuned", 1 }, { 4242, "cyclictest", 2 } };
static const struct info_qos_cpu info_qos_cpus[] = { { 0, 0 }, { 2, 50000 } };
static const struct info_qos info_qos = { .limit_ns = 17000, .deepest = "C1", .nr_holders = 2,
					  .holders = info_holders, .unlisted = 3, .nr_cpus = 2,
					  .cpus = info_qos_cpus, .haltpoll = true, .poll_ns = 200000,
					  .grow = 2, .grow_start = 50000, .shrink = 2,
					  .allow_shrink = false };

static struct info_report info_model(void)
{
	return (struct info_report){
		.release = "6.18.0", .version = "#1 SMP", .machine = "x86_64",
		.build_version = "1.0", .linkage = "static", .trace_dat = "v6",
		.lacks = "serve HTTPS", .https = false, .nr_features = 2,
		.features = info_features, .idle_fexit = true, .idle_func = "cpuidle_enter_state",
		.idle_why = NULL, .driver = "intel_idle", .governor = "", .nr_states = 2,
		.states = "POLL 0/0us, C1 2/2us", .cpufreq = "", .have_topo = true,
		.possible_cpus = 4, .online = "0-3", .packages = 1, .dies = 2, .clusters = 0,
		.levels = "core 4, package 1", .qos = &info_qos, .costs = &info_cost,
		.wakeups = &info_wake };
}

static void test_info_table(void **state)
{
	struct info_report r = info_model();
	FILE *f = capture_start();
	char *out;

	(void)state;
	assert_int_equal(render_info(f, FMT_TABLE, &r), 0);
	out = capture_end();
	/* the share column: 100 x 0.0024 = 0.24% */
	assert_string_equal(out,
		"idlescope info: kernel 6.18.0 x86_64\n"
		"build: 1.0 static; replay reads trace.dat v6; serve HTTPS no\n"
		"this build lacks serve HTTPS\n"
		"  feature                          have found                              without it\n"
		"  vmlinux BTF                      yes  /sys/kernel/btf/vmlinux            -\n"
		"  fentry/fexit                     no   EPERM on vfs_read                  no exact counts\n"
		"record idle path: fexit on cpuidle_enter_state\n"
		"cpuidle: driver intel_idle, governor unknown, 2 states: POLL 0/0us, C1 2/2us\n"
		"PM QoS CPU latency: limit 17 us, deepest state left: C1; /dev/cpu_dma_latency held by tuned[50], cyclictest[4242] (several requests) (3 processes not listed: no access)\n"
		"resume latency limits: cpu0 n/a (no latency allowed), cpu2 50 us\n"
		"haltpoll governor (not in use): guest_halt_poll_ns 200000, grow 2 from 50000 ns, shrink 2 (not allowed)\n"
		"cpufreq: absent\n"
		"topology: 4 possible CPUs (online 0-3), 1 package, 2 dies, 0 clusters of several CPUs\n"
		"topology groups (record's default): core 4, package 1\n"
		"costs on this kernel: ping-pong between CPUs 0 and 1, 5000 round trips, each configuration 3 times interleaved (medians); BPF time from the kernel's run-time statistics\n"
		"  configuration       round trips/s    vs none [min-max]  BPF ns/round trip  cpu_idle ns/event\n"
		"  none                        20000    1.000 [0.95-1.05]                  -                  -\n"
		"  default                     18000    0.900 [0.85-0.95]                300                250\n"
		"  what each part adds (record --without PART saves it; packing is opt-in); a throughput change within the spread above is noise:\n"
		"  part                BPF ns/round trip of a round trip's time  cpu_idle ns/event\n"
		"  wakeups                           120                  0.24%                 30\n"
		"added wakeups on this machine: idle periods/s/CPU (cpuidle usage, 2 CPUs) with each command running for 3 s (after 1.5 s of start-up) minus an un-observed window beside it, 2 times (medians); un-observed 21.50/s/CPU; own: its threads' voluntary context switches/s; ticks: what the reference ticker added in the same repetition, per tick/s\n"
		"  command                     own/s   added /s/CPU [min-max]   ticks /s/CPU   beyond ticks\n"
		"  record -d N                   0.0     +0.12 [-0.50, +0.75]           0.00          +0.12\n"
		"  top -i 1                      1.0     +0.75 [+0.50, +1.00]           0.60          +0.25\n"
		"  1 Hz ticker (reference)       1.0     +0.60 [+0.50, +0.70]           0.60              -\n");
	free(out);
}

static void test_info_json(void **state)
{
	struct info_report r = info_model();
	FILE *f = capture_start();
	char *out;
	json_t *doc, *o, *c;

	(void)state;
	assert_int_equal(render_info(f, FMT_JSON, &r), 0);
	out = capture_end();
	doc = parse(out);
	assert_string_equal(json_string_value(json_object_get(doc, "schema")), "idlescope-info/1");
	o = json_object_get(json_object_get(doc, "features"), "fentry");
	assert_true(json_is_false(json_object_get(o, "available")));
	assert_string_equal(json_string_value(json_object_get(o, "cost")), "no exact counts");
	o = json_object_get(doc, "build");
	assert_string_equal(json_string_value(json_object_get(o, "lacks")), "serve HTTPS");
	assert_true(json_is_false(json_object_get(o, "serve_https")));
	o = json_object_get(doc, "record_idle_path");
	assert_string_equal(json_string_value(json_object_get(o, "source")), "fexit");
	assert_string_equal(json_string_value(json_object_get(o, "function")),
			    "cpuidle_enter_state");
	assert_true(json_is_null(json_object_get(o, "fallback_reason")));
	/* JSON keeps the governor as read: "" */
	assert_string_equal(json_string_value(json_object_get(json_object_get(doc, "cpuidle"),
							       "governor")), "");
	o = json_object_get(doc, "cpufreq");
	assert_true(json_is_false(json_object_get(o, "present")));
	assert_true(json_is_null(json_object_get(o, "driver")));
	assert_int_equal(json_integer_value(json_object_get(json_object_get(doc, "topology"),
							    "dies")), 2);
	o = json_object_get(doc, "costs");
	assert_int_equal(json_integer_value(json_object_get(o, "round_trips")), 5000);
	c = json_array_get(json_object_get(o, "configurations"), 1);
	assert_true(num_at(c, "throughput_ratio") == 0.9);
	assert_true(json_number_value(json_array_get(json_object_get(c, "throughput_ratio_min_max"),
						     1)) == 0.95);
	c = json_array_get(json_object_get(o, "parts"), 0);
	assert_string_equal(json_string_value(json_object_get(c, "part")), "wakeups");
	assert_true(num_at(c, "share_of_round_trip") == 0.0024);
	o = json_object_get(doc, "pm_qos");
	assert_true(num_at(o, "cpu_dma_latency_us") == 17);
	assert_string_equal(json_string_value(json_object_get(o, "deepest_reachable_state")), "C1");
	c = json_array_get(json_object_get(o, "holders"), 1);
	assert_int_equal(json_integer_value(json_object_get(c, "pid")), 4242);
	assert_int_equal(json_integer_value(json_object_get(c, "requests")), 2);
	assert_true(num_at(json_object_get(o, "resume_latency_us"), "2") == 50);
	assert_true(num_at(json_object_get(o, "resume_latency_us"), "0") == 0);
	assert_true(json_is_false(json_object_get(o, "haltpoll_in_use")));
	assert_int_equal(json_integer_value(json_object_get(json_object_get(o, "haltpoll"),
							    "guest_halt_poll_grow_start")), 50000);
	o = json_object_get(doc, "wakeups");
	assert_string_equal(json_string_value(json_object_get(o, "oracle")), "cpuidle usage");
	assert_true(num_at(o, "unobserved_per_s_per_cpu") == 21.5);
	c = json_array_get(json_object_get(o, "commands"), 1);
	assert_string_equal(json_string_value(json_object_get(c, "command")), "top -i 1");
	assert_true(num_at(c, "own_wakeups_per_s") == 1);
	assert_true(num_at(c, "added_beyond_ticks_per_s_per_cpu") == 0.25);
	assert_true(num_at(c, "tick_cost_per_s_per_cpu") == 0.6);
	assert_true(json_is_false(json_object_get(c, "reference")));
	c = json_array_get(json_object_get(o, "commands"), 2);
	assert_true(json_is_true(json_object_get(c, "reference")));
	assert_true(json_is_null(json_object_get(c, "added_beyond_ticks_per_s_per_cpu")));
	assert_true(json_number_value(json_array_get(json_object_get(c, "added_min_max"), 0)) == 0.5);
	json_decref(doc);
	free(out);
}

/* replay: 1000 events fed in 2 ms (500000/s), 2.5 ms with 0.5 ms of
 * parsing (400000/s); 5 skipped by name, one garbled line (line 7). */
static struct trace_data replay_td;

static struct replay_report replay_model(struct trace_machine *m, struct replay_feed *fed,
					 struct timer_match *timers)
{
	memset(&replay_td, 0, sizeof(replay_td));
	replay_td.format = TF_FTRACE;
	replay_td.lines = 1200;
	replay_td.skipped = 5;
	snprintf(replay_td.skipped_names[0].name, sizeof(replay_td.skipped_names[0].name),
		 "sched_wakeup");
	replay_td.skipped_names[0].count = 3;
	snprintf(replay_td.skipped_names[1].name, sizeof(replay_td.skipped_names[1].name),
		 "irq_handler_entry");
	replay_td.skipped_names[1].count = 2;
	replay_td.nr_skipped_names = 2;
	replay_td.garbled = 1;
	replay_td.first_garbled_line = 7;
	replay_td.idle_events = true;
	memset(m, 0, sizeof(*m));
	m->tables_from = "profile";
	m->exit_latency_known = true;
	memset(fed, 0, sizeof(*fed));
	fed->replayed = 1000;
	fed->feed_ns = 2000000;
	memset(timers, 0, sizeof(*timers));
	timers->starts = 40;
	timers->unmatched = 1;
	return (struct replay_report){ .file = "t.ftrace", .td = &replay_td, .m = m, .fed = fed,
				       .timers = timers, .parse_ns = 500000,
				       .events_per_s = 500000, .total_events_per_s = 400000 };
}

static void test_replay_table(void **state)
{
	struct trace_machine m;
	struct replay_feed fed;
	struct timer_match timers;
	struct replay_report r = replay_model(&m, &fed, &timers);
	FILE *f = capture_start();
	char *out;

	(void)state;
	render_replay_table(f, &r);
	out = capture_end();
	assert_string_equal(out,
		"\n"
		"Replay: t.ftrace (ftrace), tables from the profile\n"
		"  1000 events replayed in 2.00ms (500000 events/s; 400000 with parsing), 5 skipped "
		"(sched_wakeup 3, irq_handler_entry 2), 1 lines not understood\n");
	free(out);
}

static void test_replay_json(void **state)
{
	struct trace_machine m;
	struct replay_feed fed;
	struct timer_match timers;
	struct replay_report r = replay_model(&m, &fed, &timers);
	json_t *o = replay_report_json(&r);

	(void)state;
	assert_non_null(o);
	assert_string_equal(json_string_value(json_object_get(o, "file")), "t.ftrace");
	assert_true(json_is_null(json_object_get(o, "format_version")));
	assert_string_equal(json_string_value(json_object_get(o, "format")), "ftrace");
	assert_string_equal(json_string_value(json_object_get(o, "tables")), "profile");
	assert_int_equal(json_integer_value(json_object_get(o, "events")), 1000);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(o, "skipped_events"),
							    "sched_wakeup")), 3);
	assert_int_equal(json_integer_value(json_object_get(o, "first_garbled_line")), 7);
	assert_true(json_is_false(json_object_get(o, "truncated")));
	assert_true(json_is_null(json_object_get(o, "truncated_line")));
	assert_true(num_at(o, "events_per_s") == 500000);
	assert_true(num_at(o, "total_events_per_s") == 400000);
	assert_int_equal(json_integer_value(json_object_get(o, "parse_ns")), 500000);
	assert_int_equal(json_integer_value(json_object_get(o, "timers_unmatched")), 1);
	assert_true(json_is_true(json_object_get(o, "idle_states_recorded")));
	json_decref(o);
}

/* advise: one table of CPUs 0-1, POLL and C1, the advisor's results set by
 * hand. C1's proposal 4000 ns lies in quarter-octave bucket 43
 * (4 * 10 + (4000 >> 9 & 3)), [3584, 4096): 512 ns wide. No energy model. */
static struct adv_input adv_in;
static struct advise_table_report adv_table;

static struct advise_report advise_model(void)
{
	struct adv_table_in *t = &adv_in.tables[0];
	char err[64];

	memset(&adv_in, 0, sizeof(adv_in));
	snprintf(adv_in.kernel, sizeof(adv_in.kernel), "6.18.0");
	snprintf(adv_in.driver, sizeof(adv_in.driver), "intel_idle");
	snprintf(adv_in.governor, sizeof(adv_in.governor), "menu");
	adv_in.duration_ns = 2000000000;
	adv_in.nr_tables = 1;
	assert_int_equal(cpulist_parse("0-1", &t->cpus, err, sizeof(err)), 0);
	t->nr_states = 2;
	t->st[0] = (struct adv_state_in){ .index = 0, .name = "POLL", .poll = true, .entries = 40,
					  .below = 4 };
	t->st[1] = (struct adv_state_in){ .index = 1, .name = "C1", .exit_ns = 2000,
					  .target_ns = 2000, .entries = 60, .above = 6 };
	memset(&adv_table, 0, sizeof(adv_table));
	adv_table.in = t;
	adv_table.res[0] = (struct adv_result){ .prev = -1, .below = 3.5 };
	adv_table.res[1] = (struct adv_result){ .prev = 0, .above = 5.5, .have_proposal = true,
						.proposed_ns = 4000, .misses_current = 9,
						.misses_proposed = 7, .be = ADV_BE_AT,
						.break_even_ns = 1500 };
	adv_table.periods = 100;
	adv_table.misses_current = 12.5;
	adv_table.misses_proposed = 10;
	adv_table.cluster = -1;
	snprintf(adv_table.energy_note, sizeof(adv_table.energy_note),
		 "no energy model (give --energy-model FILE)");
	return (struct advise_report){ .source = "test.json", .in = &adv_in, .nr_tables = 1,
				       .tables = &adv_table };
}

static void test_advise_table(void **state)
{
	struct advise_report r = advise_model();
	FILE *f = capture_start();
	char *out;
	const char *want =
		"idlescope advise: test.json; cpuidle intel_idle, governor menu; exit latencies declared\n"
		"\n"
		"CPUs 0-1: 100 idle periods\n"
		"  state                exit measured   target   periods  above  below  proposed +-bucket misses now->new break-even\n"
		"  POLL                  0ns        -      0ns        40   0.0%  10.0%         -        -               -          -\n"
		"  C1                 2.00us        -   2.00us        60  10.0%   0.0%    4.00us    512ns          9 -> 7     1.50us\n"
		"  misses (model, all states): 12.5 now, 10 with every proposal\n"
		"  energy: not estimated: no energy model (give --energy-model FILE)\n"
		"\n"
		"Assumptions:\n"
		"  - Residencies come from idlescope's quarter-octave histograms";

	(void)state;
	assert_int_equal(render_advise(f, FMT_TABLE, &r), 0);
	out = capture_end();
	assert_memory_equal(out, want, strlen(want));
	free(out);
}

static void test_advise_json(void **state)
{
	struct advise_report r = advise_model();
	json_t *doc = advise_report_json(&r), *t, *s0, *s1;

	(void)state;
	assert_non_null(doc);
	assert_string_equal(json_string_value(json_object_get(doc, "schema")), ADVISE_SCHEMA);
	assert_int_equal(json_integer_value(json_object_get(doc, "duration_ns")), 2000000000);
	assert_string_equal(json_string_value(json_object_get(doc, "exit_latency")), "declared");
	assert_true(json_is_null(json_object_get(doc, "energy_model")));
	assert_true(json_is_null(json_object_get(doc, "kernel_energy_model")));
	/* without a budget or energy models: five assumptions */
	assert_int_equal(json_array_size(json_object_get(doc, "assumptions")), 5);
	t = json_array_get(json_object_get(doc, "tables"), 0);
	assert_string_equal(json_string_value(json_object_get(t, "cpus")), "0-1");
	assert_true(json_is_null(json_object_get(t, "latency_budget")));
	assert_true(num_at(json_object_get(t, "misses"), "current") == 12.5);
	assert_true(json_is_null(json_object_get(t, "energy")));
	s0 = json_array_get(json_object_get(t, "states"), 0);
	s1 = json_array_get(json_object_get(t, "states"), 1);
	assert_true(num_at(s0, "below_share") == 0.1);
	assert_true(json_is_null(json_object_get(s0, "shallower")));
	assert_true(json_is_null(json_object_get(s0, "break_even")));
	assert_true(json_is_null(json_object_get(s0, "proposed_target_residency_ns")));
	assert_true(json_is_null(json_object_get(s1, "measured_exit_latency_ns")));
	assert_string_equal(json_string_value(json_object_get(s1, "shallower")), "POLL");
	assert_int_equal(json_integer_value(json_object_get(s1, "proposed_target_residency_ns")),
			 4000);
	assert_int_equal(json_integer_value(json_object_get(s1, "resolution_ns")), 512);
	assert_string_equal(json_string_value(json_object_get(s1, "break_even")), "at");
	assert_true(num_at(s1, "break_even_ns") == 1500);
	assert_true(json_is_null(json_object_get(s1, "power")));
	json_decref(doc);
}

/* advise --latency-budget: C1 measured (20 samples, p99 9 us, median 5 us:
 * over twice its declared 2 us, a warning: 5 / 2 = 2.5x), C6 declared
 * 100 us, unmeasured: over a 50 us budget, left out, PM QoS at 50 us. Its
 * 40 periods and 4 ms move: 4 ms of 2 CPUs x 100 ms = 2.00%; 10 of the
 * 100 periods had C6 as their ideal state (10.0%). */
static struct adv_table_in budget_table;

static struct budget_report budget_model(void)
{
	struct budget_report b = { .budget_ns = 50000, .percentile = 99, .n = 2 };

	memset(&budget_table, 0, sizeof(budget_table));
	budget_table.nr_states = 2;
	budget_table.st[0] = (struct adv_state_in){ .index = 1, .name = "C1", .exit_ns = 2000,
						    .entries = 60, .lat_count = 20 };
	budget_table.st[1] = (struct adv_state_in){ .index = 2, .name = "C6", .exit_ns = 100000,
						    .entries = 40 };
	b.st[0] = (struct lb_state){ .enabled = true, .declared_ns = 2000, .measured = true,
				     .measured_ns = 9000, .entries = 60 };
	b.st[1] = (struct lb_state){ .enabled = true, .declared_ns = 100000, .entries = 40 };
	b.p50_ns[0] = 5000;
	b.slower[0] = true;
	b.r = (struct lb_result){ .feasible = true, .disable = 1u << 1, .deepest_kept = 0,
				  .qos_ok = true, .qos_us = 50, .qos_blocker = -1,
				  .moved_entries = 40, .moved_ns = 4000000, .predicted_ns = 9000,
				  .predicted_declared = -1 };
	b.moved_share = 0.02;
	b.ideal_left_out = 10;
	b.ideal_left_out_share = 0.1;
	return b;
}

static void test_budget_json_and_text(void **state)
{
	struct budget_report b = budget_model();
	json_t *o = budget_json(&budget_table, &b), *s0, *s1;
	FILE *f = capture_start();
	char *out;

	(void)state;
	assert_non_null(o);
	assert_int_equal(json_integer_value(json_object_get(o, "budget_ns")), 50000);
	assert_true(json_is_true(json_object_get(o, "feasible")));
	assert_string_equal(json_string_value(json_object_get(o, "deepest_kept")), "C1");
	assert_int_equal(json_integer_value(json_object_get(o, "pm_qos_us")), 50);
	assert_true(json_is_null(json_object_get(o, "pm_qos_blocker")));
	assert_true(json_is_null(json_object_get(o, "predicted_declared")));
	assert_int_equal(json_integer_value(json_object_get(
				 json_array_get(json_object_get(o, "disable"), 0), "index")), 2);
	s0 = json_array_get(json_object_get(o, "states"), 0);
	s1 = json_array_get(json_object_get(o, "states"), 1);
	assert_int_equal(json_integer_value(json_object_get(s0, "latency_ns")), 9000);
	assert_true(json_is_true(json_object_get(s0, "fits")));
	assert_true(json_is_true(json_object_get(s0, "slower_than_declared")));
	assert_int_equal(json_integer_value(json_object_get(s1, "latency_ns")), 100000);
	assert_true(json_is_false(json_object_get(s1, "fits")));
	assert_true(json_is_null(json_object_get(s1, "measured_ns")));
	assert_string_equal(json_string_value(json_object_get(s1, "source")), "declared");
	budget_print(f, o);
	out = capture_end();
	assert_string_equal(out,
		"  latency budget 50.0us at p99 of the measured exit latency (timer lateness; declared where a state has fewer than 10 samples):\n"
		"    state             declared       p50       p99  samples   periods\n"
		"    C1                  2.00us    5.00us    9.00us       20        60  fits SLOWER than declared (>2x)\n"
		"    C6                   100us         -         -        0        40  over budget (declared)\n"
		"    proposal: leave out C6 (state2): disable them, or hold /dev/cpu_dma_latency at 50 us\n"
		"    cost: 40 periods, 4.00ms (2.00% of these CPUs' time) go to shallower states; 10 "
		"periods (10.0%) had a left-out state as their ideal; p99 afterwards at most 9.00us\n"
		"    warning: C1: measured median exit latency 5.00us is 2.5x its declared 2.00us\n");
	free(out);
	json_decref(o);
}

/* --write-ab: one table whose proposal PM QoS can hold: one line. */
static void test_budget_write_ab(void **state)
{
	struct budget_report b = budget_model();
	json_t *tables = json_pack("[{s:o}]", "latency_budget", budget_json(&budget_table, &b));
	FILE *f = capture_start();
	char *out;

	(void)state;
	assert_int_equal(budget_write_ab(f, tables, 50000, 99), 1);
	out = capture_end();
	assert_string_equal(out,
		"# idlescope advise --latency-budget 50.0us (p99): `idlescope ab --set-from FILE ...` "
		"compares the machine as it is with the proposal\n"
		"cpu_dma_latency=none,50\n");
	free(out);
	json_decref(tables);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compare_table), cmocka_unit_test(test_compare_csv),
		cmocka_unit_test(test_compare_json),  cmocka_unit_test(test_ab_table),
		cmocka_unit_test(test_ab_json),       cmocka_unit_test(test_info_table),
		cmocka_unit_test(test_info_json),     cmocka_unit_test(test_replay_table),
		cmocka_unit_test(test_replay_json),   cmocka_unit_test(test_advise_table),
		cmocka_unit_test(test_advise_json),   cmocka_unit_test(test_budget_json_and_text),
		cmocka_unit_test(test_budget_write_ab),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
