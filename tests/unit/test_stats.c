/* Unit tests for user/model/stats.c: histogram percentiles, sample
 * statistics and Welch's t-test, checked against hand computation. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "hist.h"
#include "model/stats.h"

/* Timer lateness of 100 periods: 50 in [65536, 81920) (min 70000), 50 in
 * [786432, 917504) (max 900000). p99: rank 99, 49 of the upper bucket's
 * 50, its bounds clamped to [786432, 900001):
 * 786432 + round(49/50 x (900000 - 786432)) = 786432 + round(111296.64)
 * = 897729. Unclamped (the advisor's own old interpolation), 786432 +
 * 49/50 x 131072 = 914882: above every sample. */
static void test_percentile_inside_samples(void **state)
{
	uint64_t hist[IS_HIST_BUCKETS] = { 0 };
	struct hist_bin b[2];

	(void)state;
	assert_int_equal(is_hist_lower(is_hist_bucket(70000)), 65536);
	assert_int_equal(is_hist_upper(is_hist_bucket(70000)), 81920);
	assert_int_equal(is_hist_lower(is_hist_bucket(900000)), 786432);
	assert_int_equal(is_hist_upper(is_hist_bucket(900000)), 917504);
	hist[is_hist_bucket(70000)] = 50;
	hist[is_hist_bucket(900000)] = 50;
	b[0] = (struct hist_bin){ 65536, 81920, 50 };
	b[1] = (struct hist_bin){ 786432, 917504, 50 };
	assert_int_equal(hist_percentile(hist, IS_HIST_BUCKETS, 70000, 900000, 99), 897729);
	assert_int_equal(bins_percentile(b, 2, 70000, 900000, 99), 897729);
	/* p100 is the max; p1, rank 1 of the lower bucket's 50, its bounds
	 * clamped to [70000, 81920): 70000 + round(1/50 x 11919) = 70238 */
	assert_int_equal(bins_percentile(b, 2, 70000, 900000, 100), 900000);
	assert_int_equal(bins_percentile(b, 2, 70000, 900000, 1), 70238);
	/* p50: rank 50, the lower bucket's last, [70000, 81920): 81919 */
	assert_int_equal(bins_percentile(b, 2, 70000, 900000, 50), 81919);
	assert_int_equal(bins_percentile(b, 0, 0, 0, 50), 0);
}

static void test_sample_stats(void **state)
{
	/* 2 4 4 4 5 5 7 9: mean 5, sum of squares 32, sample var 32/7 */
	const double v[] = { 5, 2, 9, 4, 4, 7, 4, 5 };
	struct sample_stats s;

	(void)state;
	sample_stats(v, 8, &s);
	assert_int_equal(s.n, 8);
	assert_true(s.min == 2 && s.max == 9);
	assert_true(s.median == 4.5); /* (4 + 5) / 2 */
	assert_true(fabs(s.mean - 5) < 1e-12);
	assert_true(fabs(s.stddev - sqrt(32.0 / 7)) < 1e-12);
	sample_stats(v, 1, &s);
	assert_true(s.stddev == 0 && s.median == 5);
}

static void test_welch(void **state)
{
	/* a = 1,2,3 (mean 2, var 1), b = 4,5,6 (mean 5, var 1): se^2 = 1/3 + 1/3,
	 * t = 3 / sqrt(2/3) = 3.674, df = (2/3)^2 / (2 * (1/3)^2 / 2) = 4,
	 * t_crit(4) = 2.776: significant; half width 2.776 * 0.8165 = 2.2666 */
	const double a[] = { 1, 2, 3 }, b[] = { 4, 5, 6 };
	struct sample_stats sa, sb;
	struct welch w;

	(void)state;
	sample_stats(a, 3, &sa);
	sample_stats(b, 3, &sb);
	welch_test(&sa, &sb, &w);
	assert_true(fabs(w.diff - 3) < 1e-12);
	assert_true(fabs(w.t - 3.0 / sqrt(2.0 / 3)) < 1e-9);
	assert_true(fabs(w.df - 4) < 1e-9);
	assert_true(w.t_crit == 2.776);
	assert_true(fabs(w.half_width - 2.776 * sqrt(2.0 / 3)) < 1e-9);
	assert_true(w.significant);

	/* b2 = 2,3,4 (mean 3): t = 1 / 0.8165 = 1.22 < 2.776 */
	const double b2[] = { 2, 3, 4 };
	sample_stats(b2, 3, &sb);
	welch_test(&sa, &sb, &w);
	assert_false(w.significant);

	/* one run each: no test */
	sample_stats(a, 1, &sa);
	welch_test(&sa, &sb, &w);
	assert_false(w.significant);
}

static void test_t_table(void **state)
{
	(void)state;
	assert_true(t_crit_95(1) == 12.706);
	assert_true(t_crit_95(2.9) == 4.303); /* rounded down: never optimistic */
	assert_true(t_crit_95(30) == 2.042);
	assert_true(t_crit_95(45) == 2.021);
	assert_true(t_crit_95(5000) == 1.960);
	assert_true(isinf(t_crit_95(0.5)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_percentile_inside_samples),
		cmocka_unit_test(test_sample_stats),
		cmocka_unit_test(test_welch),
		cmocka_unit_test(test_t_table),
	};

	return cmocka_run_group_tests_name("stats", tests, NULL, NULL);
}
