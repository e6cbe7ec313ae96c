/* Unit tests for user/model/workload_figure.c: cyclictest's latency read
 * from its output as it prints it (with -q, and every line without). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
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
	assert_int_equal(workload_figures(text, strlen(text), v, have), NR_WL_FIGURES);
	assert_true(have[WL_LATENCY_AVG] && have[WL_LATENCY_MAX]);
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
	assert_int_equal(workload_figures(text, strlen(text), v, have), NR_WL_FIGURES);
	assert_true(v[WL_LATENCY_AVG] == 45000);
	assert_true(v[WL_LATENCY_MAX] == 80000);
}

/* Another program's output: no figure. */
static void test_no_figures(void **state)
{
	static const char text[] = "Total time: 1.2 s\nT: not a thread line\n";
	double v[NR_WL_FIGURES];
	bool have[NR_WL_FIGURES] = { true, true };

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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
