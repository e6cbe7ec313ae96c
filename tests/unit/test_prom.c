/* Unit tests for user/render/prom.c: summaries built by hand are written into
 * memory and compared with exposition text written by hand (the bucket
 * counts worked out in the comments), plus the number and label helpers. */
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

/* CPU 3 with two states, no wakeups, no groups:
 *   POLL: periods of 500 and 1000 ns: both < 1024, so le=0.000001023 holds 2
 *   C1:   one period of 2 s, above 1, disabled: in (2^30, 2^32), so only
 *         le=4.294967295 and up hold it
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

static void test_one_cpu_exact_text(void **state)
{
	struct summary s;
	struct cpu_summary cs;
	struct prom_scrape p = { .s = &s, .version = "1.2", .scrape_ns = 123000 };
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
	char *text;

	(void)state;
	one_cpu(&s, &cs);
	memset(cs.states[0].hist, 0, sizeof(cs.states[0].hist));
	cs.states[0].hist[is_hist_bucket(1023)]++;
	cs.states[0].hist[is_hist_bucket(1024)]++;
	cs.states[0].hist[IS_HIST_BUCKETS - 1]++;
	cs.states[0].time_ns = 7;
	text = render(&p);
	assert_non_null(strstr(text, "idlescope_idle_duration_seconds_bucket{cpu=\"3\",state=\"POLL\","
				     "le=\"0.000001023\"} 1\n"
				     "idlescope_idle_duration_seconds_bucket{cpu=\"3\",state=\"POLL\","
				     "le=\"0.000004095\"} 2\n"));
	assert_non_null(strstr(text, "idlescope_idle_duration_seconds_bucket{cpu=\"3\",state=\"POLL\","
				     "le=\"4.294967295\"} 2\n"
				     "idlescope_idle_duration_seconds_bucket{cpu=\"3\",state=\"POLL\","
				     "le=\"+Inf\"} 3\n"
				     "idlescope_idle_duration_seconds_sum{cpu=\"3\",state=\"POLL\"} "
				     "0.000000007\n"
				     "idlescope_idle_duration_seconds_count{cpu=\"3\",state=\"POLL\"} 3\n"));
	free(text);
}

/* Wakeups and one group: causes per CPU in the kinds' order, lateness of a
 * 20 us timer wakeup in C1 (in (16383, 65535] ns), the group's all-idle
 * time of 1.25 s in 4 intervals of which 3 were 300 us and one 350.25 ms. */
static void test_wake_and_groups(void **state)
{
	struct summary s;
	struct cpu_summary cs;
	struct group_summary g;
	struct prom_scrape p = { .s = &s, .version = "x", .wake = true };
	char *text;

	(void)state;
	one_cpu(&s, &cs);
	cs.wake.count[WAKE_TIMER] = 2;
	cs.wake.count[WAKE_IPI_CALL_SINGLE] = 1;
	cs.wake.early[WAKE_IPI_CALL_SINGLE] = 1;
	cs.wake.lat[1].count = 1;
	cs.wake.lat[1].sum_ns = 20000;
	cs.wake.lat[1].hist[is_hist_bucket(20000)] = 1;
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
	free(text);
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
