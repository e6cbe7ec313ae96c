/* Unit tests for user/model/workload_figure.c: cyclictest's latency read
 * from its output as it prints it (with -q, and every line without);
 * sysbench's and rt-app's from outputs captured on this machine
 * (tests/fixtures/workload/), their figures worked out by hand or with awk. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model/workload_figure.h"

/* Two threads (-q: one line each at the end): Avg 56 and 70 us, Max 312
 * and 92: the mean of the Avg 63 us, the largest Max 312 us. */
static void test_cyclictest_quiet(void **state)
{
	static const char text[] =
		"# /dev/cpu_dma_latency set to 0us\n"
		"T: 0 (24429) P: 0 I:1000 C:    200 Min:     53 Act:   54 Avg:   56 Max:     312\n"
		"T: 1 (24430) P: 0 I:1500 C:    146 Min:     35 Act:   70 Avg:   70 Max:      92\n";
	double v[NR_WL_FIGURES];
	bool have[NR_WL_FIGURES];

	(void)state;
	assert_int_equal(workload_figures(text, strlen(text), v, have), 2);
	assert_true(have[WL_LATENCY_AVG] && have[WL_LATENCY_MAX]);
	assert_false(have[WL_LATENCY_P95] || have[WL_SLACK_MIN]);
	assert_true(v[WL_LATENCY_AVG] == 63000);
	assert_true(v[WL_LATENCY_MAX] == 312000);
	assert_string_equal(wl_figure_names[WL_LATENCY_AVG], "workload.latency_avg_ns");
}

/* Without -q a thread's line is printed again and again: its last Avg
 * counts, and a line before any cycle (C: 0) does not. */
static void test_cyclictest_repeated(void **state)
{
	static const char text[] =
		"T: 0 ( 100) P: 0 I:1000 C:      0 Min: 1000000 Act:    0 Avg:    0 Max:       0\n"
		"T: 0 ( 100) P: 0 I:1000 C:     10 Min:     20 Act:   30 Avg:   40 Max:      50\n"
		"T: 0 ( 100) P: 0 I:1000 C:     20 Min:     20 Act:   30 Avg:   45 Max:      80";
	double v[NR_WL_FIGURES];
	bool have[NR_WL_FIGURES];

	(void)state;
	assert_int_equal(workload_figures(text, strlen(text), v, have), 2);
	assert_true(v[WL_LATENCY_AVG] == 45000);
	assert_true(v[WL_LATENCY_MAX] == 80000);
}

/* A fixture's text (make unit runs from the top of the tree). */
static char *fixture(const char *name, size_t *len)
{
	char path[256], *buf;
	FILE *f;
	long n;

	snprintf(path, sizeof(path), "tests/fixtures/workload/%s", name);
	f = fopen(path, "r");
	if (!f)
		fail_msg("cannot read %s (run from the top of the tree)", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* The figures of fixture name, into v and have; returns how many. */
static int fixture_figures(const char *name, double v[NR_WL_FIGURES], bool have[NR_WL_FIGURES])
{
	size_t len;
	char *text = fixture(name, &len);
	int n = workload_figures(text, len, v, have);

	free(text);
	return n;
}

/* `sysbench cpu --time=1 run`: "avg: 0.40", "max: 8.38", "95th
 * percentile: 0.39", in ms. */
static void test_sysbench(void **state)
{
	size_t len;
	char *text;
	double v[NR_WL_FIGURES];
	bool have[NR_WL_FIGURES];

	(void)state;
	assert_int_equal(fixture_figures("sysbench-cpu.txt", v, have), 3);
	assert_true(v[WL_LATENCY_AVG] == 0.40 * 1e6);
	assert_true(v[WL_LATENCY_MAX] == 8.38 * 1e6);
	assert_true(v[WL_LATENCY_P95] == 0.39 * 1e6);
	assert_false(have[WL_SLACK_MIN]);
	assert_string_equal(wl_figure_names[WL_LATENCY_P95], "workload.latency_p95_ns");
	/* --percentile=99 (2 threads): "99th percentile: 1.61" is no p95 */
	text = fixture("sysbench-threads-p99.txt", &len);
	assert_int_equal(workload_figures(text, len, v, have), 2);
	assert_true(v[WL_LATENCY_AVG] == 1.00 * 1e6);
	assert_true(v[WL_LATENCY_MAX] == 5.63 * 1e6);
	assert_false(have[WL_LATENCY_P95]);
	/* the block cut after its heading: nothing */
	assert_int_equal(workload_figures(text, (size_t)(strstr(text, "Latency (ms):") + 14 - text),
					  v, have), 0);
	free(text);
}

/* rt-app 1.0's logs of two tasks (10 ms and 5 ms periods, 1 s), printed
 * one after the other: 300 periods, wu_lat summing to 44720 us (mean
 * 149.067 us), at most 662 us; the smallest slack 3404 us (awk over the
 * file: $11 and $8 of the lines under "#idx"). */
static void test_rtapp(void **state)
{
	double v[NR_WL_FIGURES];
	bool have[NR_WL_FIGURES];

	(void)state;
	assert_int_equal(fixture_figures("rt-app-2tasks.log", v, have), 3);
	assert_true(v[WL_LATENCY_AVG] == 44720.0 / 300 * 1e3);
	assert_true(v[WL_LATENCY_MAX] == 662e3);
	assert_true(v[WL_SLACK_MIN] == 3404e3);
	assert_false(have[WL_LATENCY_P95]);
	/* a line with a column short, and one not of numbers, do not count */
	{
		static const char t[] =
			"#idx perf run period start end rel_st slack c_duration c_period wu_lat\n"
			"   0  1 2 3 4 5 6 -7 8 9 100\n"
			"   0  1 2 3 4 5 6 7 8 9\n"
			"   0  1 2 3 4 5 6 7 8 9 x\n"
			"   0  1 2 3 4 5 6 -2 8 9 300\n";

		assert_int_equal(workload_figures(t, strlen(t), v, have), 3);
		assert_true(v[WL_LATENCY_AVG] == 200e3);
		assert_true(v[WL_LATENCY_MAX] == 300e3);
		assert_true(v[WL_SLACK_MIN] == -7e3);
	}
}

/* Another program's output: no figure. */
static void test_no_figures(void **state)
{
	static const char text[] = "Total time: 1.2 s\nT: not a thread line\n";
	double v[NR_WL_FIGURES];
	bool have[NR_WL_FIGURES] = { true, true, true, true };

	(void)state;
	assert_int_equal(workload_figures(text, strlen(text), v, have), 0);
	assert_false(have[WL_LATENCY_AVG] || have[WL_LATENCY_MAX]);
	assert_int_equal(workload_figures("", 0, v, have), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cyclictest_quiet),
		cmocka_unit_test(test_cyclictest_repeated),
		cmocka_unit_test(test_no_figures),
		cmocka_unit_test(test_sysbench),
		cmocka_unit_test(test_rtapp),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
