/* Unit tests for reading the advisor's input (user/advise/advise_input.c): CPUs
 * with one state table are summed bucket by bucket, other tables stay
 * apart, CPUs without a driver are skipped, bad histograms are refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "advise/advise_input.h"
#include "advise/budget_report.h"
#include "render/render_budget.h"

/* A CPU with two states; target of state 1 and the buckets as given. */
static const char *cpu_json(char *buf, size_t len, int cpu, const char *t1, const char *h0,
			    const char *h1)
{
	snprintf(buf, len,
		 "{\"cpu\": %d, \"states\": ["
		 "{\"index\": 0, \"name\": \"WFI\", \"exit_latency_ns\": 1000, "
		 "\"target_residency_ns\": 1000, \"entries\": 3, \"time_ns\": 1, \"above\": 0, "
		 "\"below\": 1, \"below_qos\": 1, \"hist\": [%s]},"
		 "{\"index\": 1, \"name\": \"C2\", \"exit_latency_ns\": 10000, "
		 "\"target_residency_ns\": %s, \"entries\": 2, \"time_ns\": 1, \"above\": 1, "
		 "\"below\": 0, \"below_qos\": 0, \"hist\": [%s]}],"
		 "\"wakeups\": {\"timer_lateness\": [{\"state\": 1, \"count\": 2, "
		 "\"hist\": [{\"lo_ns\": 4096, \"hi_ns\": 5120, \"count\": 2}]}]}}",
		 cpu, h0, t1, h1);
	return buf;
}

static json_t *doc_of(const char *cpus)
{
	char text[8192];
	json_error_t je;

	snprintf(text, sizeof(text), "{\"schema\": \"idlescope/1\", \"kernel\": \"k\", "
		 "\"cpuidle\": {\"driver\": \"d\", \"governor\": \"g\"}, \"duration_ns\": 5, "
		 "\"cpus\": [%s], \"totals\": {}}", cpus);
	return json_loads(text, 0, &je);
}

#define B(lo, hi, n) "{\"lo_ns\": " #lo ", \"hi_ns\": " #hi ", \"count\": " #n "}"

static void test_same_table_sums_buckets(void **state)
{
	char a[1024], b[1024], c[1024], all[4096], err[256] = "";
	struct adv_input in;
	json_t *d;

	(void)state;
	/* CPUs 0 and 2 share a table; CPU 1's state 1 has another target */
	snprintf(all, sizeof(all), "%s, %s, %s",
		 cpu_json(a, sizeof(a), 0, "100000", B(2048, 2560, 2) "," B(8192, 10240, 1), B(65536, 81920, 2)),
		 cpu_json(b, sizeof(b), 1, "200000", B(2048, 2560, 3), B(65536, 81920, 2)),
		 cpu_json(c, sizeof(c), 2, "100000", B(2048, 2560, 1), B(65536, 81920, 2)));
	d = doc_of(all);
	assert_non_null(d);
	assert_int_equal(adv_input_load(d, NULL, &in, err, sizeof(err)), 0);
	assert_int_equal(in.nr_tables, 2);
	assert_int_equal(in.nr_cpus, 3);
	assert_true(cpulist_has(&in.tables[0].cpus, 0) && cpulist_has(&in.tables[0].cpus, 2));
	assert_false(cpulist_has(&in.tables[0].cpus, 1));
	assert_int_equal(in.tables[0].st[1].target_ns, 100000);
	assert_int_equal(in.tables[1].st[1].target_ns, 200000);
	/* WFI of CPUs 0 and 2: [2048, 2560) 2 + 1 = 3, [8192, 10240) 1 */
	assert_int_equal(in.tables[0].st[0].nr_bins, 2);
	assert_true(in.tables[0].st[0].bins[0].count == 3);
	assert_true(in.tables[0].st[0].bins[1].lo == 8192 && in.tables[0].st[0].bins[1].count == 1);
	assert_int_equal(in.tables[0].st[0].entries, 6);
	assert_int_equal(in.tables[0].st[0].below, 2);
	assert_int_equal(in.tables[0].st[0].below_qos, 2);
	assert_int_equal(in.tables[0].st[1].above, 2);
	/* timer lateness of state 1: 4 periods in [4096, 5120): median at
	 * 4096 + 1024 x 2/4 = 4608 */
	assert_int_equal(in.tables[0].st[1].lat_count, 4);
	assert_int_equal(adv_lat_median(&in.tables[0].st[1]), 4608);
	assert_int_equal(in.tables[0].st[0].lat_count, 0);
	adv_input_free(&in);

	/* -C 1: only CPU 1's table */
	{
		struct cpulist sel = { 0 };

		cpulist_set(&sel, 1);
		assert_int_equal(adv_input_load(d, &sel, &in, err, sizeof(err)), 0);
		assert_int_equal(in.nr_tables, 1);
		assert_int_equal(in.tables[0].st[1].target_ns, 200000);
		adv_input_free(&in);
	}
	json_decref(d);
}

/* advise --latency-budget on the lateness of test_stats.c's
 * test_percentile_inside_samples, as record writes it (min 70 us, max
 * 900 us): p99 is 897729 ns, inside the samples, so a 910 us budget keeps
 * the state; the advisor's old quantile, 914882 ns, left it out. */
static void test_budget_percentile_inside_samples(void **state)
{
	char cpu[1024], err[256] = "";
	struct adv_input in;
	struct budget_report plan;
	json_t *d, *b, *st;

	(void)state;
	snprintf(cpu, sizeof(cpu),
		 "{\"cpu\": 0, \"states\": [{\"index\": 0, \"name\": \"C1\", "
		 "\"exit_latency_ns\": 2000, \"target_residency_ns\": 2000, \"entries\": 100, "
		 "\"time_ns\": 1, \"above\": 0, \"below\": 0, \"below_qos\": 0, \"hist\": []}],"
		 "\"wakeups\": {\"timer_lateness\": [{\"state\": 0, \"count\": 100, "
		 "\"min_ns\": 70000, \"max_ns\": 900000, \"hist\": [%s, %s]}]}}",
		 B(65536, 81920, 50), B(786432, 917504, 50));
	d = doc_of(cpu);
	assert_non_null(d);
	assert_int_equal(adv_input_load(d, NULL, &in, err, sizeof(err)), 0);
	assert_int_equal(in.tables[0].st[0].lat_min_ns, 70000);
	assert_int_equal(in.tables[0].st[0].lat_max_ns, 900000);
	assert_int_equal(adv_lat_quantile(&in.tables[0].st[0], 0.99), 897729);
	assert_int_equal(adv_lat_quantile(&in.tables[0].st[0], 1.0), 900000);
	budget_advise(&in.tables[0], 5, 910000, 99, &plan);
	b = budget_json(&in.tables[0], &plan);
	st = json_array_get(json_object_get(b, "states"), 0);
	assert_int_equal(json_integer_value(json_object_get(st, "measured_ns")), 897729);
	assert_true(json_is_true(json_object_get(st, "fits")));
	assert_true(json_is_true(json_object_get(b, "feasible")));
	assert_int_equal(json_array_size(json_object_get(b, "disable")), 0);
	json_decref(b);
	adv_input_free(&in);
	json_decref(d);
}

static void test_refused(void **state)
{
	char a[1024], b[1024], all[4096], err[256] = "";
	struct adv_input in;
	json_t *d;

	(void)state;
	/* overlapping buckets of two CPUs with the same table */
	snprintf(all, sizeof(all), "%s, %s", cpu_json(a, sizeof(a), 0, "100000", B(2048, 2560, 1), ""),
		 cpu_json(b, sizeof(b), 1, "100000", B(2304, 2816, 1), ""));
	d = doc_of(all);
	assert_int_equal(adv_input_load(d, NULL, &in, err, sizeof(err)), -1);
	assert_string_equal(err, "state 'WFI' hist: buckets [2048, 2560) and [2304, 2816) overlap");
	adv_input_free(&in);
	json_decref(d);

	d = doc_of(cpu_json(a, sizeof(a), 0, "100000", "{\"lo_ns\": 5, \"hi_ns\": 6, \"count\": -1}", ""));
	assert_int_equal(adv_input_load(d, NULL, &in, err, sizeof(err)), -1);
	assert_string_equal(err, "cpus[0].states[0].hist[0].count: not an integer >= 0");
	adv_input_free(&in);
	json_decref(d);

	d = doc_of(cpu_json(a, sizeof(a), 0, "\"x\"", "", ""));
	assert_int_equal(adv_input_load(d, NULL, &in, err, sizeof(err)), -1);
	assert_string_equal(err, "cpus[0].states[1].target_residency_ns: not an integer >= 0");
	adv_input_free(&in);
	json_decref(d);
}

static void test_no_driver_skipped(void **state)
{
	struct adv_input in;
	char err[256] = "";
	json_t *d = doc_of("{\"cpu\": 0, \"states\": [{\"index\": 1, \"name\": \"default-idle\", "
			   "\"exit_latency_ns\": null, \"target_residency_ns\": null, \"entries\": 4, "
			   "\"time_ns\": 9, \"above\": null, \"below\": null, \"hist\": []}]}");

	(void)state;
	assert_int_equal(adv_input_load(d, NULL, &in, err, sizeof(err)), 0);
	assert_int_equal(in.nr_tables, 0);
	assert_int_equal(in.no_driver_cpus, 1);
	adv_input_free(&in);
	json_decref(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_table_sums_buckets),
		cmocka_unit_test(test_budget_percentile_inside_samples),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_no_driver_skipped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
