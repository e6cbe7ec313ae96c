/* Unit tests for user/render/prom.c: summaries built by hand are written into
 * memory and compared with exposition text written by hand (the bucket
 * counts worked out in the comments), plus the number and label helpers,
 * and the size budget of the default exposition on synthetic machines of
 * 2, 32 and 128 CPUs (IDLESCOPE_PROM_SIZES=1 prints the table of
 * docs/performance.md). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model/model.h"
#include "render/prom.h"
#include "session/self_cost.h"

static char *render(const struct prom_scrape *p)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	assert_int_equal(prom_write(f, p), 0);
	fclose(f);
	return text;
}

static void test_seconds(void **state)
{
	char b[32];

	(void)state;
	assert_string_equal(prom_seconds(b, sizeof(b), 0), "0");
	assert_string_equal(prom_seconds(b, sizeof(b), 1500000000ULL), "1.5");
	assert_string_equal(prom_seconds(b, sizeof(b), 255), "0.000000255");
	assert_string_equal(prom_seconds(b, sizeof(b), 1000), "0.000001");
	assert_string_equal(prom_seconds(b, sizeof(b), 4294967295ULL), "4.294967295");
	assert_string_equal(prom_seconds(b, sizeof(b), 20000000000ULL), "20");
	assert_string_equal(prom_seconds(b, sizeof(b), 18446744073709551615ULL),
			    "18446744073.709551615");
}

static void test_label_escaping(void **state)
{
	char b[64];

	(void)state;
	assert_string_equal(prom_label(b, sizeof(b), "haltpoll idle"), "haltpoll idle");
	assert_string_equal(prom_label(b, sizeof(b), "a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
	/* truncated, never a dangling backslash */
	assert_string_equal(prom_label(b, 5, "\"\"\"\""), "\\\"");
	assert_string_equal(prom_label(b, 6, "\"\"\"\""), "\\\"\\\"");
}

/* The model's totals of a one-CPU summary: that CPU (model.c's build_totals
 * sums the selected CPUs). Call again after changing the CPU. */
static void one_cpu_totals(struct summary *s, const struct cpu_summary *cs)
{
	s->totals = *cs;
	s->totals.cpu = -1;
}

/* CPU 3 with two states, no wakeups, no groups:
 *   POLL: periods of 500 and 1000 ns: both < 1024, so le=0.000001023 holds 2
 *   C1:   one period of 2 s, above 1, disabled: in (2^30, 2^32), so only
 *         le=4.294967295 and up hold it
 *   a table: declared exit cost POLL 2 x 0, C1 1 x 1 us; early C1 (none
 *   here, its 2 s period is past the 2 us target; POLL's target is 0)
 * 3.5 s counted, 0.25 s busy, the scrape took 123 us. */
static void one_cpu(struct summary *s, struct cpu_summary *cs)
{
	struct state_summary *poll = &cs->states[0], *c1 = &cs->states[1];

	memset(s, 0, sizeof(*s));
	memset(cs, 0, sizeof(*cs));
	snprintf(s->sys.driver, sizeof(s->sys.driver), "intel_idle");
	snprintf(s->sys.governor, sizeof(s->sys.governor), "menu");
	s->duration_ns = 3500000000ULL;
	s->nr_cpus = 1;
	s->cpus = cs;
	cs->cpu = 3;
	cs->nr_states = 2;
	cs->busy_ns = 250000000ULL;
	snprintf(poll->name, sizeof(poll->name), "POLL");
	poll->entries = 2;
	poll->time_ns = 1500;
	poll->hist[is_hist_bucket(500)]++;
	poll->hist[is_hist_bucket(1000)]++;
	snprintf(c1->name, sizeof(c1->name), "C1");
	c1->index = 1;
	c1->entries = 1;
	c1->time_ns = 2000000000ULL;
	c1->above = 1;
	c1->target_residency_ns = 2000;
	c1->exit_latency_ns = 1000;
	c1->disabled = true;
	c1->hist[is_hist_bucket(2000000000ULL)]++;
	poll->classified = c1->classified = true;
	c1->exit.declared_ns = 1000;
	one_cpu_totals(s, cs);
}

static const char one_cpu_text[] =
	"# HELP idlescope_build_info idlescope's version; always 1.\n"
	"# TYPE idlescope_build_info gauge\n"
	"idlescope_build_info{version=\"1.2\"} 1\n"
	"# HELP idlescope_cpuidle_info The cpuidle driver and governor at this scrape; always 1.\n"
	"# TYPE idlescope_cpuidle_info gauge\n"
	"idlescope_cpuidle_info{driver=\"intel_idle\",governor=\"menu\"} 1\n"
	"# HELP idlescope_counted_seconds_total Time since the counters started (the BPF programs attached).\n"
	"# TYPE idlescope_counted_seconds_total counter\n"
	"idlescope_counted_seconds_total 3.5\n"
	"# HELP idlescope_scrape_duration_seconds Time taken to read the BPF maps and build this snapshot.\n"
	"# TYPE idlescope_scrape_duration_seconds gauge\n"
	"idlescope_scrape_duration_seconds 0.000123\n"
	"# HELP idlescope_idle_state_entries_total Completed idle periods per CPU and idle state (cpu_idle enter to exit).\n"
	"# TYPE idlescope_idle_state_entries_total counter\n"
	"idlescope_idle_state_entries_total{cpu=\"3\",state=\"POLL\"} 2\n"
	"idlescope_idle_state_entries_total{cpu=\"3\",state=\"C1\"} 1\n"
	"# HELP idlescope_idle_state_residency_seconds_total Time in completed idle periods per CPU and idle state.\n"
	"# TYPE idlescope_idle_state_residency_seconds_total counter\n"
	"idlescope_idle_state_residency_seconds_total{cpu=\"3\",state=\"POLL\"} 0.0000015\n"
	"idlescope_idle_state_residency_seconds_total{cpu=\"3\",state=\"C1\"} 2\n"
	"# HELP idlescope_idle_state_above_total Too deep: periods shorter than the state's target residency while a shallower state was enabled (the kernel's rule).\n"
	"# TYPE idlescope_idle_state_above_total counter\n"
	"idlescope_idle_state_above_total{cpu=\"3\",state=\"POLL\"} 0\n"
	"idlescope_idle_state_above_total{cpu=\"3\",state=\"C1\"} 1\n"
	"# HELP idlescope_idle_state_below_total Too shallow: periods that would have met the first enabled deeper state's target residency (the kernel's rule).\n"
	"# TYPE idlescope_idle_state_below_total counter\n"
	"idlescope_idle_state_below_total{cpu=\"3\",state=\"POLL\"} 0\n"
	"idlescope_idle_state_below_total{cpu=\"3\",state=\"C1\"} 0\n"
	"# HELP idlescope_idle_state_early_total Periods shorter than the state's target residency (above without its condition on a shallower state); 0 without a state table.\n"
	"# TYPE idlescope_idle_state_early_total counter\n"
	"idlescope_idle_state_early_total{cpu=\"3\",state=\"POLL\"} 0\n"
	"idlescope_idle_state_early_total{cpu=\"3\",state=\"C1\"} 0\n"
	"# HELP idlescope_idle_state_early_seconds_total Time in periods shorter than the state's target residency.\n"
	"# TYPE idlescope_idle_state_early_seconds_total counter\n"
	"idlescope_idle_state_early_seconds_total{cpu=\"3\",state=\"POLL\"} 0\n"
	"idlescope_idle_state_early_seconds_total{cpu=\"3\",state=\"C1\"} 0\n"
	"# HELP idlescope_idle_state_exit_cost_seconds_total Declared exit cost: periods times the state's declared exit latency; no sample without a state table.\n"
	"# TYPE idlescope_idle_state_exit_cost_seconds_total counter\n"
	"idlescope_idle_state_exit_cost_seconds_total{cpu=\"3\",state=\"POLL\"} 0\n"
	"idlescope_idle_state_exit_cost_seconds_total{cpu=\"3\",state=\"C1\"} 0.000001\n"
	"# HELP idlescope_idle_state_target_residency_seconds The state's target residency (sysfs residency).\n"
	"# TYPE idlescope_idle_state_target_residency_seconds gauge\n"
	"idlescope_idle_state_target_residency_seconds{cpu=\"3\",state=\"POLL\"} 0\n"
	"idlescope_idle_state_target_residency_seconds{cpu=\"3\",state=\"C1\"} 0.000002\n"
	"# HELP idlescope_idle_state_exit_latency_seconds The state's declared exit latency (sysfs latency).\n"
	"# TYPE idlescope_idle_state_exit_latency_seconds gauge\n"
	"idlescope_idle_state_exit_latency_seconds{cpu=\"3\",state=\"POLL\"} 0\n"
	"idlescope_idle_state_exit_latency_seconds{cpu=\"3\",state=\"C1\"} 0.000001\n"
	"# HELP idlescope_idle_state_disabled 1 when the state is disabled (sysfs disable).\n"
	"# TYPE idlescope_idle_state_disabled gauge\n"
	"idlescope_idle_state_disabled{cpu=\"3\",state=\"POLL\"} 0\n"
	"idlescope_idle_state_disabled{cpu=\"3\",state=\"C1\"} 1\n"
	"# HELP idlescope_cpu_busy_seconds_total Time not idle: counted time minus completed and in-flight idle time.\n"
	"# TYPE idlescope_cpu_busy_seconds_total counter\n"
	"idlescope_cpu_busy_seconds_total{cpu=\"3\"} 0.25\n"
	"# HELP idlescope_idle_duration_seconds Length of the completed idle periods per CPU and idle state.\n"
	"# TYPE idlescope_idle_duration_seconds histogram\n"
	"idlescope_idle_duration_seconds_bucket{cpu=\"3\",state=\"POLL\",le=\"0.000000255\"} 0\n"
	"idlescope_idle_duration_seconds_bucket{cpu=\"3\",state=\"POLL\",le=\"0.000001023\"} 2\n"
	"idlescope_idle_duration_seconds_bucket{cpu=\"3\",state=\"POLL\",le=\"0.000004095\"} 2\n"
	"idlescope_idle_duration_seconds_bucket{cpu=\"3\",state=\"POLL\",le=\"0.000016383\"} 2\n"
	"idlescope_idle_duration_seconds_bucket{cpu=\"3\",state=\"POLL\",le=\"0.000065535\"} 2\n"
	"idlescope_idle_duration_seconds_bucket{cpu=\"3\",state=\"POLL\",le=\"0.000262143\"} 2\n"
	"idlescope_idle_duration_seconds_bucket{cpu=\"3\",state=\"POLL\",le=\"0.001048575\"} 2\n"
	"idlescope_idle_duration_seconds_bucket{cpu=\"3\",state=\"POLL\",le=\"0.004194303\"} 2\n"
	"idlescope_idle_duration_seconds_bucket{cpu=\"3\",state=\"POLL\",le=\"0.016777215\"} 2\n"
	"idlescope_idle_duration_seconds_bucket{cpu=\"3\",state=\"POLL\",le=\"0.067108863\"} 2\n"
	"idlescope_idle_duration_seconds_bucket{cpu=\"3\",state=\"POLL\",le=\"0.268435455\"} 2\n"
	"idlescope_idle_duration_seconds_bucket{cpu=\"3\",state=\"POLL\",le=\"1.073741823\"} 2\n"
	"idlescope_idle_duration_seconds_bucket{cpu=\"3\",state=\"POLL\",le=\"4.294967295\"} 2\n"
	"idlescope_idle_duration_seconds_bucket{cpu=\"3\",state=\"POLL\",le=\"+Inf\"} 2\n"
	"idlescope_idle_duration_seconds_sum{cpu=\"3\",state=\"POLL\"} 0.0000015\n"
	"idlescope_idle_duration_seconds_count{cpu=\"3\",state=\"POLL\"} 2\n"
	"idlescope_idle_duration_seconds_bucket{cpu=\"3\",state=\"C1\",le=\"0.000000255\"} 0\n"
	"idlescope_idle_duration_seconds_bucket{cpu=\"3\",state=\"C1\",le=\"0.000001023\"} 0\n"
	"idlescope_idle_duration_seconds_bucket{cpu=\"3\",state=\"C1\",le=\"0.000004095\"} 0\n"
	"idlescope_idle_duration_seconds_bucket{cpu=\"3\",state=\"C1\",le=\"0.000016383\"} 0\n"
	"idlescope_idle_duration_seconds_bucket{cpu=\"3\",state=\"C1\",le=\"0.000065535\"} 0\n"
	"idlescope_idle_duration_seconds_bucket{cpu=\"3\",state=\"C1\",le=\"0.000262143\"} 0\n"
	"idlescope_idle_duration_seconds_bucket{cpu=\"3\",state=\"C1\",le=\"0.001048575\"} 0\n"
	"idlescope_idle_duration_seconds_bucket{cpu=\"3\",state=\"C1\",le=\"0.004194303\"} 0\n"
	"idlescope_idle_duration_seconds_bucket{cpu=\"3\",state=\"C1\",le=\"0.016777215\"} 0\n"
	"idlescope_idle_duration_seconds_bucket{cpu=\"3\",state=\"C1\",le=\"0.067108863\"} 0\n"
	"idlescope_idle_duration_seconds_bucket{cpu=\"3\",state=\"C1\",le=\"0.268435455\"} 0\n"
	"idlescope_idle_duration_seconds_bucket{cpu=\"3\",state=\"C1\",le=\"1.073741823\"} 0\n"
	"idlescope_idle_duration_seconds_bucket{cpu=\"3\",state=\"C1\",le=\"4.294967295\"} 1\n"
	"idlescope_idle_duration_seconds_bucket{cpu=\"3\",state=\"C1\",le=\"+Inf\"} 1\n"
	"idlescope_idle_duration_seconds_sum{cpu=\"3\",state=\"C1\"} 2\n"
	"idlescope_idle_duration_seconds_count{cpu=\"3\",state=\"C1\"} 1\n";

/* Both flags on: every family per CPU, the exposition as it was before the
 * flags existed, byte for byte. */
static void test_one_cpu_exact_text(void **state)
{
	struct summary s;
	struct cpu_summary cs;
	struct prom_scrape p = { .s = &s, .version = "1.2", .scrape_ns = 123000, .cpu_hist = true,
				 .cpu_detail = true };
	char *text;

	(void)state;
	one_cpu(&s, &cs);
	text = render(&p);
	assert_string_equal(text, one_cpu_text);
	free(text);
}

/* The bucket edges: 1023 ns is in le=0.000001023, 1024 ns is not (the
 * bound is exact for integer nanoseconds); the last BPF bucket (about
 * 1924 s and up) only in +Inf. */
static void test_bucket_edges(void **state)
{
	struct summary s;
	struct cpu_summary cs;
	struct prom_scrape p = { .s = &s, .version = "x" };
	char *text, want[1024];

	(void)state;
	one_cpu(&s, &cs);
	memset(cs.states[0].hist, 0, sizeof(cs.states[0].hist));
	cs.states[0].hist[is_hist_bucket(1023)]++;
	cs.states[0].hist[is_hist_bucket(1024)]++;
	cs.states[0].hist[IS_HIST_BUCKETS - 1]++;
	cs.states[0].time_ns = 7;
	one_cpu_totals(&s, &cs);
	/* the same buckets per CPU and, by default, per state over the CPUs */
	for (int per_cpu = 1; per_cpu >= 0; per_cpu--) {
		const char *l = per_cpu ? "cpu=\"3\",state=\"POLL\"" : "state=\"POLL\"";

		p.cpu_hist = per_cpu;
		text = render(&p);
		snprintf(want, sizeof(want),
			 "idlescope_idle_duration_seconds_bucket{%s,le=\"0.000001023\"} 1\n"
			 "idlescope_idle_duration_seconds_bucket{%s,le=\"0.000004095\"} 2\n", l, l);
		assert_non_null(strstr(text, want));
		snprintf(want, sizeof(want),
			 "idlescope_idle_duration_seconds_bucket{%s,le=\"4.294967295\"} 2\n"
			 "idlescope_idle_duration_seconds_bucket{%s,le=\"+Inf\"} 3\n"
			 "idlescope_idle_duration_seconds_sum{%s} 0.000000007\n"
			 "idlescope_idle_duration_seconds_count{%s} 3\n", l, l, l, l);
		assert_non_null(strstr(text, want));
		free(text);
	}
}

/* Wakeups and one group: causes per CPU in the kinds' order, lateness of a
 * 20 us timer wakeup in C1 (in (16383, 65535] ns), the group's all-idle
 * time of 1.25 s in 4 intervals of which 3 were 300 us and one 350.25 ms.
 * Both flags on: the wakeups and the lateness per CPU. */
static void test_wake_and_groups(void **state)
{
	struct summary s;
	struct cpu_summary cs;
	struct group_summary g;
	struct prom_scrape p = { .s = &s, .version = "x", .wake = true, .cpu_hist = true,
				 .cpu_detail = true, .group_hist = true };
	char *text;

	(void)state;
	one_cpu(&s, &cs);
	cs.wake.count[WAKE_TIMER] = 2;
	cs.wake.count[WAKE_IPI_CALL_SINGLE] = 1;
	cs.wake.early[WAKE_IPI_CALL_SINGLE] = 1;
	cs.wake.lat[1].count = 1;
	cs.wake.lat[1].sum_ns = 20000;
	cs.wake.lat[1].hist[is_hist_bucket(20000)] = 1;
	one_cpu_totals(&s, &cs);
	memset(&g, 0, sizeof(g));
	snprintf(g.name, sizeof(g.name), "cluster0");
	g.cpus = (char *)"2-3";
	snprintf(s.group_level, sizeof(s.group_level), "cluster,package");
	snprintf(g.level, sizeof(g.level), "cluster");
	snprintf(g.parent, sizeof(g.parent), "package0");
	g.time_ns = 1250000000ULL;
	g.periods = 4;
	g.hist[is_hist_bucket(300000)] = 3;
	g.hist[is_hist_bucket(350250000)] = 1;
	s.groups = &g;
	s.nr_groups = 1;
	text = render(&p);
	assert_non_null(strstr(text,
		"# TYPE idlescope_wakeups_total counter\n"
		"idlescope_wakeups_total{cpu=\"3\",cause=\"unknown\"} 0\n"
		"idlescope_wakeups_total{cpu=\"3\",cause=\"timer\"} 2\n"
		"idlescope_wakeups_total{cpu=\"3\",cause=\"irq\"} 0\n"
		"idlescope_wakeups_total{cpu=\"3\",cause=\"ipi-resched\"} 0\n"
		"idlescope_wakeups_total{cpu=\"3\",cause=\"ipi-call\"} 0\n"
		"idlescope_wakeups_total{cpu=\"3\",cause=\"ipi-call-single\"} 1\n"));
	assert_non_null(strstr(text, "idlescope_wakeups_early_total{cpu=\"3\",cause=\"timer\"} 0\n"
				     "idlescope_wakeups_early_total{cpu=\"3\",cause=\"irq\"} 0\n"));
	assert_non_null(strstr(text, "idlescope_wakeups_early_total{cpu=\"3\",cause=\"ipi-call-single\"} 1\n"));
	assert_non_null(strstr(text,
		"idlescope_timer_lateness_seconds_bucket{cpu=\"3\",state=\"C1\",le=\"0.000016383\"} 0\n"
		"idlescope_timer_lateness_seconds_bucket{cpu=\"3\",state=\"C1\",le=\"0.000065535\"} 1\n"));
	assert_non_null(strstr(text, "idlescope_timer_lateness_seconds_sum{cpu=\"3\",state=\"C1\"} 0.00002\n"
				     "idlescope_timer_lateness_seconds_count{cpu=\"3\",state=\"C1\"} 1\n"));
	assert_non_null(strstr(text, "idlescope_group_info{group=\"cluster0\",level=\"cluster\",parent=\"package0\",cpus=\"2-3\"} 1\n"));
	assert_non_null(strstr(text, "idlescope_group_all_idle_seconds_total{group=\"cluster0\"} 1.25\n"));
	assert_non_null(strstr(text, "idlescope_group_all_idle_periods_total{group=\"cluster0\"} 4\n"));
	/* 300 us <= 262143 ns? no: in (262143, 1048575]; 350.25 ms in (268435455, 1073741823] */
	assert_non_null(strstr(text,
		"idlescope_group_all_idle_duration_seconds_bucket{group=\"cluster0\",le=\"0.000262143\"} 0\n"
		"idlescope_group_all_idle_duration_seconds_bucket{group=\"cluster0\",le=\"0.001048575\"} 3\n"));
	assert_non_null(strstr(text,
		"idlescope_group_all_idle_duration_seconds_bucket{group=\"cluster0\",le=\"0.268435455\"} 3\n"
		"idlescope_group_all_idle_duration_seconds_bucket{group=\"cluster0\",le=\"1.073741823\"} 4\n"));
	/* every family has HELP and TYPE, the wakeup ones included */
	assert_non_null(strstr(text, "# HELP idlescope_wakeups_early_total "));
	assert_non_null(strstr(text, "# TYPE idlescope_timer_lateness_seconds histogram\n"));
	free(text);
}

/* Without wakeups or groups, those families are left out entirely. */
static void test_optional_families_absent(void **state)
{
	struct summary s;
	struct cpu_summary cs;
	struct prom_scrape p = { .s = &s, .version = "x" };
	char *text;

	(void)state;
	one_cpu(&s, &cs);
	text = render(&p);
	assert_null(strstr(text, "wakeups"));
	assert_null(strstr(text, "group"));
	assert_null(strstr(text, "lateness"));
	/* no ledger kept, the governor's inputs not watched */
	assert_null(strstr(text, "pm_qos"));
	assert_null(strstr(text, "idlescope_governor"));
	assert_null(strstr(text, "haltpoll"));
	free(text);
}

/* The PM QoS ledger by the kind of request behind the limit, and the
 * governor split per state over the selected CPUs (the totals). */
static void test_qos_and_governor(void **state)
{
	struct summary s;
	struct cpu_summary cs;
	struct prom_scrape p = { .s = &s, .version = "x" };
	struct qos_row rows[3];
	char *text;

	(void)state;
	one_cpu(&s, &cs);
	memset(rows, 0, sizeof(rows));
	/* two CPU latency rows (one released), one resume-latency row */
	rows[0] = (struct qos_row){ .scope = QOS_SCOPE_CPU_LATENCY, .open = true, .charged = true,
				    .forced_periods = 7, .forced_idle_ns = 1500000000ULL };
	rows[1] = (struct qos_row){ .scope = QOS_SCOPE_CPU_LATENCY, .charged = true,
				    .forced_periods = 3, .forced_idle_ns = 500000000ULL };
	rows[2] = (struct qos_row){ .scope = QOS_SCOPE_RESUME, .cpu = 3, .open = true,
				    .charged = true, .forced_periods = 2, .forced_idle_ns = 1000 };
	s.qos = (struct summary_qos){ .kept = true, .nr = 3, .rows = rows, .other_periods = 1,
				      .other_idle_ns = 20 };
	for (int i = 0; i < 2; i++)
		cs.states[i].classified = true;
	cs.states[1].below_qos = 4;
	cs.states[1].gov = (struct gov_split){ .known = 9, .above_near = 1, .above_unannounced = 2,
					       .below_tick = 3, .below_history = 5, .below_timer = 6 };
	one_cpu_totals(&s, &cs);
	s.gov_inputs = true;
	text = render(&p);
	assert_non_null(strstr(text, "idlescope_pm_qos_requests 2\n"));
	assert_non_null(strstr(text,
		"idlescope_pm_qos_forced_periods_total{source=\"cpu_latency\"} 10\n"
		"idlescope_pm_qos_forced_periods_total{source=\"resume_latency\"} 2\n"
		"idlescope_pm_qos_forced_periods_total{source=\"unknown\"} 1\n"));
	assert_non_null(strstr(text,
		"idlescope_pm_qos_forced_seconds_total{source=\"cpu_latency\"} 2\n"
		"idlescope_pm_qos_forced_seconds_total{source=\"resume_latency\"} 0.000001\n"
		"idlescope_pm_qos_forced_seconds_total{source=\"unknown\"} 0.00000002\n"));
	assert_non_null(strstr(text, "idlescope_governor_known_periods_total{state=\"C1\"} 9\n"));
	assert_non_null(strstr(text,
		"idlescope_governor_misses_total{state=\"C1\",why=\"above_timer_near\"} 1\n"
		"idlescope_governor_misses_total{state=\"C1\",why=\"above_woken_before_timer\"} 2\n"
		"idlescope_governor_misses_total{state=\"C1\",why=\"below_qos\"} 4\n"
		"idlescope_governor_misses_total{state=\"C1\",why=\"below_tick_kept\"} 3\n"
		"idlescope_governor_misses_total{state=\"C1\",why=\"below_predicted_short\"} 5\n"
		"idlescope_governor_misses_total{state=\"C1\",why=\"below_timer_moved\"} 6\n"));
	assert_non_null(strstr(text, "# TYPE idlescope_governor_misses_total counter\n"));
	assert_non_null(strstr(text, "# TYPE idlescope_pm_qos_requests gauge\n"));
	/* wakeups off: no cause split, no timer comparison */
	assert_null(strstr(text, "idlescope_governor_woken_early_total"));
	assert_null(strstr(text, "idlescope_governor_timer_"));
	free(text);
	s.wake_enabled = true;
	s.totals.states[1].gov.above_cause[WAKE_IPI_RESCHED] = 2;
	s.totals.states[1].gov.timer_known = 8;
	s.totals.states[1].gov.timer_later = 1;
	s.totals.states[1].gov.timer_tick_first = 2;
	s.totals.states[1].gov.timer_err_sum_ns = 2500;
	text = render(&p);
	assert_non_null(strstr(text,
		"idlescope_governor_woken_early_total{state=\"C1\",cause=\"unknown\"} 0\n"));
	assert_non_null(strstr(text,
		"idlescope_governor_woken_early_total{state=\"C1\",cause=\"ipi-resched\"} 2\n"));
	assert_non_null(strstr(text,
		"idlescope_governor_timer_ended_periods_total{state=\"C1\",vs=\"as_told\"} 5\n"
		"idlescope_governor_timer_ended_periods_total{state=\"C1\",vs=\"tick_first\"} 2\n"
		"idlescope_governor_timer_ended_periods_total{state=\"C1\",vs=\"later\"} 1\n"
		"idlescope_governor_timer_ended_periods_total{state=\"C1\",vs=\"earlier\"} 0\n"));
	assert_non_null(strstr(text,
		"idlescope_governor_timer_error_seconds_total{state=\"C1\"} 0.0000025\n"));
	free(text);
}

/* Halt-polling on CPU 3: 5 woken, 2 timed out, 3 grows and 1 shrink, its
 * limit 40 us after the last; guest_halt_poll_ns 200 us. By default the 4
 * series over the CPUs and the ceiling; with --per-cpu-detail per CPU and
 * the limit. */
static void test_haltpoll_families(void **state)
{
	struct summary s;
	struct cpu_summary cs;
	struct prom_scrape p = { .s = &s, .version = "x" };
	char *text;

	(void)state;
	one_cpu(&s, &cs);
	s.sys.guest_halt_poll_ns = 200000;
	cs.haltpoll = (struct haltpoll_summary){ .known = true, .woken = 5, .timed_out = 2,
						 .grow = 3, .shrink = 1, .limit_known = true,
						 .limit_ns = 40000 };
	s.totals.haltpoll = (struct haltpoll_summary){ .known = true };
	haltpoll_add(&s.totals.haltpoll, &cs.haltpoll);
	text = render(&p);
	assert_non_null(strstr(text,
		"# TYPE idlescope_haltpoll_polls_total counter\n"
		"idlescope_haltpoll_polls_total{outcome=\"woken\"} 5\n"
		"idlescope_haltpoll_polls_total{outcome=\"timed_out\"} 2\n"));
	assert_non_null(strstr(text,
		"# TYPE idlescope_haltpoll_limit_moves_total counter\n"
		"idlescope_haltpoll_limit_moves_total{direction=\"grow\"} 3\n"
		"idlescope_haltpoll_limit_moves_total{direction=\"shrink\"} 1\n"));
	assert_non_null(strstr(text, "idlescope_haltpoll_ceiling_seconds 0.0002\n"));
	assert_null(strstr(text, "idlescope_haltpoll_limit_seconds"));
	free(text);
	p.cpu_detail = true;
	text = render(&p);
	assert_non_null(strstr(text, "idlescope_haltpoll_polls_total{cpu=\"3\",outcome=\"timed_out\"} 2\n"));
	assert_non_null(strstr(text, "idlescope_haltpoll_limit_moves_total{cpu=\"3\",direction=\"shrink\"} 1\n"));
	assert_non_null(strstr(text, "idlescope_haltpoll_limit_seconds{cpu=\"3\"} 0.00004\n"));
	free(text);
}

/* The observer's cost: serve's process families carry the standard names;
 * for node_exporter's textfile collector (textfile) they are prefixed,
 * since node_exporter drops a file's family named like its own process_*. */
static void test_self_cost_names(void **state)
{
	struct summary s;
	struct cpu_summary cs;
	struct self_cost c = { .stats_enabled = true, .nr_progs = 1, .map_bytes = 4096,
			       .cpu_ns = 1250000000ULL, .rss_bytes = 3000000,
			       .pss_bytes = 2000000, .private_bytes = 1500000 };
	struct prom_scrape p = { .s = &s, .version = "x", .self = &c };
	char *text;

	(void)state;
	one_cpu(&s, &cs);
	snprintf(c.progs[0].name, sizeof(c.progs[0].name), "tp_btf_cpu_idle");
	c.progs[0].runs = 7;
	c.progs[0].run_ns = 2500;
	text = render(&p);
	assert_non_null(strstr(text, "\nprocess_cpu_seconds_total 1.25\n"));
	assert_non_null(strstr(text, "\nprocess_resident_memory_bytes 3000000\n"));
	assert_null(strstr(text, "idlescope_process_"));
	assert_non_null(strstr(text, "# TYPE idlescope_memory_pss_bytes gauge\n"
				     "idlescope_memory_pss_bytes 2000000\n"));
	assert_non_null(strstr(text, "# TYPE idlescope_memory_private_bytes gauge\n"
				     "idlescope_memory_private_bytes 1500000\n"));
	free(text);
	p.textfile = true;
	text = render(&p);
	assert_non_null(strstr(text,
		"# HELP idlescope_process_cpu_seconds_total User and system CPU time of the idlescope process.\n"
		"# TYPE idlescope_process_cpu_seconds_total counter\n"
		"idlescope_process_cpu_seconds_total 1.25\n"));
	assert_non_null(strstr(text,
		"# TYPE idlescope_process_resident_memory_bytes gauge\n"
		"idlescope_process_resident_memory_bytes 3000000\n"));
	assert_null(strstr(text, "\nprocess_"));
	assert_null(strstr(text, "# TYPE process_"));
	/* the rest of the cost is the same in both */
	assert_non_null(strstr(text, "idlescope_bpf_program_runs_total{program=\"tp_btf_cpu_idle\"} 7\n"));
	assert_non_null(strstr(text, "idlescope_bpf_program_run_seconds_total{program=\"tp_btf_cpu_idle\"} 0.0000025\n"));
	assert_non_null(strstr(text, "idlescope_bpf_map_memory_bytes 4096\n"));
	assert_non_null(strstr(text, "\nidlescope_memory_pss_bytes 2000000\n"));
	assert_non_null(strstr(text, "\nidlescope_memory_private_bytes 1500000\n"));
	assert_non_null(strstr(text, "idlescope_bpf_stats_enabled 1\n"));
	free(text);
}

/* The default: per CPU only the state counters and busy time; no state
 * parameters; the histograms per state over the selected CPUs (the
 * model's totals), with their own HELP. */
static void test_default_families(void **state)
{
	struct summary s;
	struct cpu_summary cs;
	struct prom_scrape p = { .s = &s, .version = "x" };
	char *text;

	(void)state;
	one_cpu(&s, &cs);
	text = render(&p);
	assert_non_null(strstr(text, "idlescope_idle_state_entries_total{cpu=\"3\",state=\"C1\"} 1\n"));
	assert_non_null(strstr(text, "idlescope_idle_state_residency_seconds_total{cpu=\"3\",state=\"POLL\"} 0.0000015\n"));
	assert_non_null(strstr(text, "idlescope_idle_state_above_total{cpu=\"3\",state=\"C1\"} 1\n"));
	assert_non_null(strstr(text, "idlescope_idle_state_below_total{cpu=\"3\",state=\"C1\"} 0\n"));
	assert_non_null(strstr(text, "idlescope_cpu_busy_seconds_total{cpu=\"3\"} 0.25\n"));
	assert_null(strstr(text, "target_residency"));
	assert_null(strstr(text, "exit_latency"));
	assert_null(strstr(text, "idlescope_idle_state_disabled"));
	assert_non_null(strstr(text,
		"# HELP idlescope_idle_duration_seconds Length of the completed idle periods of the "
		"selected CPUs, by idle state.\n"
		"# TYPE idlescope_idle_duration_seconds histogram\n"
		"idlescope_idle_duration_seconds_bucket{state=\"POLL\",le=\"0.000000255\"} 0\n"
		"idlescope_idle_duration_seconds_bucket{state=\"POLL\",le=\"0.000001023\"} 2\n"));
	assert_non_null(strstr(text, "idlescope_idle_duration_seconds_bucket{state=\"C1\",le=\"1.073741823\"} 0\n"
				     "idlescope_idle_duration_seconds_bucket{state=\"C1\",le=\"4.294967295\"} 1\n"
				     "idlescope_idle_duration_seconds_bucket{state=\"C1\",le=\"+Inf\"} 1\n"
				     "idlescope_idle_duration_seconds_sum{state=\"C1\"} 2\n"
				     "idlescope_idle_duration_seconds_count{state=\"C1\"} 1\n"));
	assert_null(strstr(text, "idlescope_idle_duration_seconds_bucket{cpu="));
	free(text);
	/* --per-cpu-detail alone: the parameters, the histograms still per state */
	p.cpu_detail = true;
	text = render(&p);
	assert_non_null(strstr(text, "idlescope_idle_state_target_residency_seconds{cpu=\"3\",state=\"C1\"} 0.000002\n"));
	assert_non_null(strstr(text, "idlescope_idle_state_exit_latency_seconds{cpu=\"3\",state=\"C1\"} 0.000001\n"));
	assert_non_null(strstr(text, "idlescope_idle_state_disabled{cpu=\"3\",state=\"C1\"} 1\n"));
	assert_null(strstr(text, "idlescope_idle_duration_seconds_bucket{cpu="));
	free(text);
}

/* Two CPUs whose tables differ: CPU 0 has POLL (index 0) and C1 (index 1),
 * CPU 1 has only C1, at index 0. The model's totals match states by index
 * and name, so C1 is two slots there; as a label value it is one series
 * (two would be a duplicate the scrape rejects), its buckets the sum:
 *   CPU 0 C1: 3 periods of 20 us (in (16383, 65535] ns), 60 us in all
 *   CPU 1 C1: 1 period of 2 ms (in (1048575, 4194303] ns)
 * Wakeups by cause over both CPUs (the totals): timer 3 + 1, irq 0 + 2. */
static void test_default_totals_two_cpus(void **state)
{
	struct summary s;
	struct cpu_summary cs[2];
	struct prom_scrape p = { .s = &s, .version = "x", .wake = true };
	struct cpu_summary *t = &s.totals;
	char *text;

	(void)state;
	memset(&s, 0, sizeof(s));
	memset(cs, 0, sizeof(cs));
	s.nr_cpus = 2;
	s.cpus = cs;
	cs[0].cpu = 0;
	cs[0].nr_states = 2;
	snprintf(cs[0].states[0].name, IS_NAME_LEN, "POLL");
	snprintf(cs[0].states[1].name, IS_NAME_LEN, "C1");
	cs[0].states[1].index = 1;
	cs[0].states[1].entries = 3;
	cs[0].states[1].time_ns = 60000;
	cs[0].states[1].hist[is_hist_bucket(20000)] = 3;
	cs[0].wake.count[WAKE_TIMER] = 3;
	cs[1].cpu = 1;
	cs[1].nr_states = 1;
	snprintf(cs[1].states[0].name, IS_NAME_LEN, "C1");
	cs[1].states[0].entries = 1;
	cs[1].states[0].time_ns = 2000000;
	cs[1].states[0].hist[is_hist_bucket(2000000)] = 1;
	cs[1].wake.count[WAKE_TIMER] = 1;
	cs[1].wake.count[WAKE_IRQ] = 2;
	cs[1].wake.early[WAKE_IRQ] = 1;
	/* the totals as model.c's build_totals makes them */
	t->cpu = -1;
	t->nr_states = 3;
	t->states[0] = cs[0].states[0];
	t->states[1] = cs[0].states[1];
	t->states[2] = cs[1].states[0];
	t->wake.count[WAKE_TIMER] = 4;
	t->wake.count[WAKE_IRQ] = 2;
	t->wake.early[WAKE_IRQ] = 1;
	text = render(&p);
	assert_non_null(strstr(text,
		"idlescope_idle_duration_seconds_bucket{state=\"C1\",le=\"0.000016383\"} 0\n"
		"idlescope_idle_duration_seconds_bucket{state=\"C1\",le=\"0.000065535\"} 3\n"
		"idlescope_idle_duration_seconds_bucket{state=\"C1\",le=\"0.000262143\"} 3\n"
		"idlescope_idle_duration_seconds_bucket{state=\"C1\",le=\"0.001048575\"} 3\n"
		"idlescope_idle_duration_seconds_bucket{state=\"C1\",le=\"0.004194303\"} 4\n"));
	assert_non_null(strstr(text, "idlescope_idle_duration_seconds_sum{state=\"C1\"} 0.00206\n"
				     "idlescope_idle_duration_seconds_count{state=\"C1\"} 4\n"));
	/* once */
	assert_null(strstr(strstr(text, "idlescope_idle_duration_seconds_count{state=\"C1\"}") + 1,
			   "idlescope_idle_duration_seconds_count{state=\"C1\"}"));
	assert_non_null(strstr(text, "idlescope_idle_duration_seconds_count{state=\"POLL\"} 0\n"));
	assert_non_null(strstr(text, "idlescope_wakeups_total{cause=\"unknown\"} 0\n"
				     "idlescope_wakeups_total{cause=\"timer\"} 4\n"
				     "idlescope_wakeups_total{cause=\"irq\"} 2\n"));
	assert_non_null(strstr(text, "idlescope_wakeups_early_total{cause=\"irq\"} 1\n"));
	assert_null(strstr(text, "idlescope_wakeups_total{cpu="));
	/* the lateness histograms: one per state name too, empty here */
	assert_non_null(strstr(text, "idlescope_timer_lateness_seconds_count{state=\"POLL\"} 0\n"
				     "idlescope_timer_lateness_seconds_bucket{state=\"C1\","));
	free(text);
	/* --per-cpu-detail: the causes per CPU instead */
	p.cpu_detail = true;
	text = render(&p);
	assert_non_null(strstr(text, "idlescope_wakeups_total{cpu=\"1\",cause=\"irq\"} 2\n"));
	assert_null(strstr(text, "idlescope_wakeups_total{cause="));
	free(text);
}

/* Size: a synthetic machine of n CPUs, each with the same nr_states states
 * (POLL, C1, C1E, C6, then C7s, C8, ...), wakeups on, and either two
 * packages or (cluster > 0) groups of that many CPUs. The values are those
 * of a host up for about a day (7-digit counts, seconds to the nanosecond),
 * so that the bytes per scrape are realistic; the series counts do not
 * depend on them. */
struct synth {
	struct summary s;
	struct group_summary *groups;
};

static uint64_t synth_rand(uint64_t *x)
{
	*x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
	return *x >> 33;
}

static void synth_build(struct synth *y, int n, int nr_states, int cluster)
{
	static const char *const names[IS_MAX_STATES] = { "POLL", "C1",  "C1E", "C6", "C7s",
							  "C8",   "C9",  "C10", "C11", "C12" };
	static const uint64_t target_ns[IS_MAX_STATES] = { 0,      2000,   4000,   170000, 300000,
							   400000, 600000, 900000, 1000000, 2000000 };
	struct summary *s = &y->s;
	struct cpu_summary *t = &s->totals;
	uint64_t x = 42;

	memset(y, 0, sizeof(*y));
	snprintf(s->sys.driver, sizeof(s->sys.driver), "intel_idle");
	snprintf(s->sys.governor, sizeof(s->sys.governor), "menu");
	s->duration_ns = 86400ULL * 1000000000ULL + synth_rand(&x);
	s->nr_cpus = n;
	s->cpus = calloc((size_t)n, sizeof(*s->cpus));
	assert_non_null(s->cpus);
	t->cpu = -1;
	t->nr_states = nr_states;
	for (int c = 0; c < n; c++) {
		struct cpu_summary *cs = &s->cpus[c];

		cs->cpu = c;
		cs->nr_states = nr_states;
		cs->busy_ns = 20000ULL * 1000000000ULL + synth_rand(&x) * 1000;
		for (int i = 0; i < nr_states; i++) {
			struct state_summary *st = &cs->states[i];
			struct lat_summary *l = &cs->wake.lat[i];

			snprintf(st->name, sizeof(st->name), "%s", names[i]);
			st->index = i;
			st->target_residency_ns = target_ns[i];
			st->exit_latency_ns = target_ns[i] / 3;
			/* periods from about 1 us to 67 ms */
			for (uint64_t v = 1000; v < 67108864; v *= 2) {
				uint64_t k = synth_rand(&x) % 300000;

				st->hist[is_hist_bucket(v)] += k;
				st->entries += k;
				st->time_ns += k * v;
				l->hist[is_hist_bucket(v / 64 + 2000)] += k / 8;
				l->count += k / 8;
				l->sum_ns += k / 8 * (v / 64 + 2000);
			}
			st->above = st->entries / 7;
			st->below = st->entries / 11;
			st->early = st->above;
			st->early_ns = st->early * (target_ns[i] / 2);
			st->classified = t->states[i].classified = true;
			st->exit.declared_ns = st->entries * st->exit_latency_ns;
			t->states[i].index = i;
			snprintf(t->states[i].name, sizeof(t->states[i].name), "%s", names[i]);
			t->states[i].entries += st->entries;
			t->states[i].time_ns += st->time_ns;
			t->wake.lat[i].sum_ns += l->sum_ns;
			for (int b = 0; b < IS_HIST_BUCKETS; b++) {
				t->states[i].hist[b] += st->hist[b];
				t->wake.lat[i].hist[b] += l->hist[b];
			}
			cs->entries += st->entries;
		}
		/* most causes seen, as on a busy host */
		for (int k = 0; k < WAKE_NR_KINDS; k++) {
			cs->wake.count[k] = k == WAKE_IPI_OTHER ? 0 : cs->entries / (2 + (uint64_t)k * 3);
			cs->wake.early[k] = cs->wake.count[k] / 9;
			t->wake.count[k] += cs->wake.count[k];
			t->wake.early[k] += cs->wake.early[k];
		}
	}
	/* cluster < 0: the default tree of an SMT server, cores of 2 CPUs in
	 * 2 packages */
	s->nr_groups = cluster > 0 ? n / cluster : cluster < 0 ? n / 2 + 2 : 2;
	snprintf(s->group_level, sizeof(s->group_level), "%s",
		 cluster > 0 ? "cluster" : cluster < 0 ? "core,package" : "package");
	y->groups = calloc((size_t)s->nr_groups, sizeof(*y->groups));
	assert_non_null(y->groups);
	s->groups = y->groups;
	for (int g = 0; g < s->nr_groups; g++) {
		struct group_summary *gs = &y->groups[g];
		bool core = cluster < 0 && g < n / 2;
		int size = cluster > 0 ? cluster : core ? 2 : n / 2, i = core || cluster >= 0 ? g : g - n / 2;

		snprintf(gs->level, sizeof(gs->level), "%s",
			 cluster > 0 ? "cluster" : core ? "core" : "package");
		snprintf(gs->name, sizeof(gs->name), "%s%d", gs->level, i);
		gs->cpus = malloc(32);
		assert_non_null(gs->cpus);
		snprintf(gs->cpus, 32, "%d-%d", i * size, i * size + size - 1);
		for (uint64_t v = 1000; v < 67108864; v *= 4) {
			uint64_t k = synth_rand(&x) % 100000;

			gs->hist[is_hist_bucket(v)] += k;
			gs->periods += k;
			gs->time_ns += k * v;
		}
	}
}

static void synth_free(struct synth *y)
{
	for (int g = 0; g < y->s.nr_groups; g++)
		free(y->groups[g].cpus);
	free(y->groups);
	free(y->s.cpus);
}

struct size {
	long series, lines, bytes;
};

static struct size synth_size(int n, int nr_states, int cluster, bool cpu_hist, bool cpu_detail,
			      bool group_hist)
{
	struct synth y;
	struct prom_scrape p = { .s = &y.s, .version = "0.9.0", .wake = true, .scrape_ns = 812345,
				 .cpu_hist = cpu_hist, .cpu_detail = cpu_detail,
				 .group_hist = group_hist };
	struct size z = { 0, 0, 0 };
	char *text;

	synth_build(&y, n, nr_states, cluster);
	text = render(&p);
	for (const char *l = text; *l; l = strchr(l, '\n') + 1) {
		z.lines++;
		z.series += *l != '#';
	}
	z.bytes = (long)strlen(text);
	free(text);
	synth_free(&y);
	return z;
}

/* The budget of the default: at most 25 series per CPU, plus a fixed part
 * that does not grow with the CPUs. With S states per CPU, wakeups on and
 * G groups, counted family by family in prom.c:
 *   per CPU: entries, residency, above, below (4 S) + busy (1)      = 4 S + 1
 *   fixed:   build, cpuidle, counted, scrape (4)
 *            + early, early seconds and declared exit cost per state (3 S)
 *            + idle duration and timer lateness per state (2 x 16 S)
 *            + wakeups and early wakeups per cause (2 x 10)
 *            + per group: info, seconds, periods (3 G)
 * --per-cpu-histograms moves the 32 S histogram series to each CPU,
 * --per-cpu-detail the 20 wakeup series and the 3 S early and exit cost
 * ones, and adds 3 S state parameters per CPU; --group-histograms adds 16 per group. The slope is measured as the
 * brief of #13 states it: (series(128) - series(32)) / 96, with two
 * packages (G = 2, fixed), and with the default tree of an SMT server
 * (cores of 2 CPUs in 2 packages: 1.5 series per CPU more). */
static void test_size_budget(void **state)
{
	static const int cpus[] = { 2, 32, 128 };

	(void)state;
	for (int nr_states = 4; nr_states <= 6; nr_states++) {
		long S = nr_states, W = 2 * WAKE_NR_KINDS, fixed = 4 + 3 * S + 32 * S + W + 3 * 2;
		struct {
			bool hist, detail, ghist;
			long per_cpu, fixed;
		} modes[] = {
			{ false, false, false, 4 * S + 1, fixed },
			{ true, false, false, 4 * S + 1 + 32 * S, fixed - 32 * S },
			{ false, true, false, 4 * S + 1 + 6 * S + W, fixed - W - 3 * S },
			{ true, true, false, 4 * S + 1 + 32 * S + 6 * S + W,
			  fixed - 32 * S - W - 3 * S },
			{ false, false, true, 4 * S + 1, fixed + 16 * 2 },
		};

		for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
			long series[3];

			for (int i = 0; i < 3; i++) {
				series[i] = synth_size(cpus[i], nr_states, 0, modes[m].hist,
						       modes[m].detail, modes[m].ghist).series;
				assert_int_equal(series[i], modes[m].per_cpu * cpus[i] + modes[m].fixed);
			}
			assert_int_equal((series[2] - series[1]) / 96, modes[m].per_cpu);
			if (!modes[m].hist && !modes[m].detail)
				assert_true((series[2] - series[1]) / 96 <= 25);
		}
		/* the tree: 3 series per core group of 2 CPUs */
		for (int i = 0; i < 3; i++) {
			long t = synth_size(cpus[i], nr_states, -1, false, false, false).series;

			assert_int_equal(t * 2, (2 * (4 * S + 1) + 3) * cpus[i] + 2 * fixed);
		}
		/* 18.5 per CPU at 4 states; the budget holds up to 5 states
		 * (22.5), and without SMT groups up to 6 (25) */
		if (S <= 5)
			assert_true(2 * (4 * S + 1) + 3 <= 2 * 25);
	}
}

/* The synthetic machine is shaped like the guests of #13: 4 states and the
 * default sysfs groups there, clusters of 2 CPUs. With both flags (every
 * family per CPU, as before the flags) it gives the line counts measured in
 * the guests' scrapes: 417, 6,012 and 23,916 lines at 2, 32 and 128 CPUs. */
static void test_size_like_the_guests(void **state)
{
	(void)state;
	/* plus what came after those scrapes: the early, early seconds and
	 * exit cost families (2 header lines each, 3 x 4 samples per CPU),
	 * and the poll-timeout cause (its count and early count per CPU) */
	assert_int_equal(synth_size(2, 4, 2, true, true, true).lines, 417 + 6 + 14 * 2);
	assert_int_equal(synth_size(32, 4, 2, true, true, true).lines, 6012 + 6 + 14 * 32);
	assert_int_equal(synth_size(128, 4, 2, true, true, true).lines, 23916 + 6 + 14 * 128);
}

/* IDLESCOPE_PROM_SIZES=1: the table of docs/performance.md ("Exporter
 * size"), 4 states per CPU: series and bytes per scrape by groups and flags,
 * and the series per CPU, (series(128) - series(32)) / 96. */
static const char *thousands(char *buf, size_t len, long v)
{
	if (v >= 1000000)
		snprintf(buf, len, "%ld,%03ld,%03ld", v / 1000000, v / 1000 % 1000, v % 1000);
	else if (v >= 1000)
		snprintf(buf, len, "%ld,%03ld", v / 1000, v % 1000);
	else
		snprintf(buf, len, "%ld", v);
	return buf;
}

static void print_sizes(void)
{
	static const int cpus[] = { 2, 32, 128 };
	char buf[2][32];
	static const char *const flags[] = { "default", "`--per-cpu-histograms`",
					     "`--per-cpu-detail`", "all three flags" };

	printf("| groups | flags | series per CPU | 2 CPUs: series / bytes | 32 CPUs | 128 CPUs |\n");
	printf("|---|---|---|---|---|---|\n");
	for (int cluster = -1; cluster <= 2; cluster++)
		for (int m = 0; m < 4 && cluster != 1; m++) {
			struct size z[3];

			for (int i = 0; i < 3; i++)
				z[i] = synth_size(cpus[i], 4, cluster, m & 1, m & 2, m == 3);
			printf("| %s | %s | %.1f |",
			       cluster > 0 ? "clusters of 2 CPUs" : cluster < 0 ? "cores of 2 CPUs + 2 packages"
										: "2 packages",
			       flags[m], (double)(z[2].series - z[1].series) / 96);
			for (int i = 0; i < 3; i++)
				printf(" %s / %s |", thousands(buf[0], sizeof(buf[0]), z[i].series),
				       thousands(buf[1], sizeof(buf[1]), z[i].bytes));
			printf("\n");
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seconds),
		cmocka_unit_test(test_label_escaping),
		cmocka_unit_test(test_one_cpu_exact_text),
		cmocka_unit_test(test_bucket_edges),
		cmocka_unit_test(test_wake_and_groups),
		cmocka_unit_test(test_optional_families_absent),
		cmocka_unit_test(test_qos_and_governor),
		cmocka_unit_test(test_haltpoll_families),
		cmocka_unit_test(test_self_cost_names),
		cmocka_unit_test(test_default_families),
		cmocka_unit_test(test_default_totals_two_cpus),
		cmocka_unit_test(test_size_budget),
		cmocka_unit_test(test_size_like_the_guests),
	};

	if (getenv("IDLESCOPE_PROM_SIZES")) {
		print_sizes();
		return 0;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
