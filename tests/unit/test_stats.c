/* Unit tests for user/model/stats.c: histogram percentiles, sample
 * statistics and Welch's t-test, checked against hand computation. Bucket
 * b >= 4 of include/hist.h covers [(4 + b%4) << (b/4 - 1),
 * (5 + b%4) << (b/4 - 1)) (its own tests: test_include_hist.c). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

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

static void test_percentile_empty(void **state)
{
	(void)state;
	uint64_t hist[IS_HIST_BUCKETS] = { 0 };

	assert_int_equal(hist_percentile(hist, IS_HIST_BUCKETS, 0, 0, 50), 0);
	assert_int_equal(hist_percentile(hist, IS_HIST_BUCKETS, 10, 20, 99), 0);
}

static void test_percentile_single_value(void **state)
{
	(void)state;
	uint64_t hist[IS_HIST_BUCKETS] = { 0 };

	/* one period of 1000 ns: msb 9, b = 32 + ((1000 >> 7) & 3) = 32 + 3 = 35,
	 * bucket [896, 1024); min = max = 1000 clamps it to [1000, 1001):
	 * every percentile is 1000 */
	hist[35] = 1;
	assert_int_equal(hist_percentile(hist, IS_HIST_BUCKETS, 1000, 1000, 0), 1000);
	assert_int_equal(hist_percentile(hist, IS_HIST_BUCKETS, 1000, 1000, 50), 1000);
	assert_int_equal(hist_percentile(hist, IS_HIST_BUCKETS, 1000, 1000, 99), 1000);
	assert_int_equal(hist_percentile(hist, IS_HIST_BUCKETS, 1000, 1000, 100), 1000);
	/* same for an exact small bucket: value 2, bucket [2, 3) */
	memset(hist, 0, sizeof(hist));
	hist[2] = 7;
	assert_int_equal(hist_percentile(hist, IS_HIST_BUCKETS, 2, 2, 50), 2);
}

static void test_percentile_spread(void **state)
{
	(void)state;
	uint64_t hist[IS_HIST_BUCKETS] = { 0 };
	const uint64_t min = 900, max = 150000;

	/* 100 periods: 40 in bucket 35 [896, 1024), 45 in bucket 49
	 * [5 << 11, 6 << 11) = [10240, 12288), 15 in bucket 64
	 * [4 << 15, 5 << 15) = [131072, 163840). min 900, max 150000. */
	hist[35] = 40;
	hist[49] = 45;
	hist[64] = 15;

	/* p50: rank 50; 40 < 50 so past bucket 35 (seen 40); bucket 49 reaches
	 * 85 >= 50. frac = (50 - 40) / 45 = 0.2222; width = 12287 - 10240 = 2047;
	 * 0.2222 * 2047 = 454.89, + 0.5 -> 455; 10240 + 455 = 10695 */
	assert_int_equal(hist_percentile(hist, IS_HIST_BUCKETS, min, max, 50), 10695);
	/* p90: rank 90; 85 < 90 (seen 85); bucket 64, hi clamped to max + 1 =
	 * 150001. frac = 5 / 15 = 0.3333; width = 150000 - 131072 = 18928;
	 * 6309.33 + 0.5 -> 6309; 131072 + 6309 = 137381 */
	assert_int_equal(hist_percentile(hist, IS_HIST_BUCKETS, min, max, 90), 137381);
	/* p99: rank 99; frac = 14 / 15 = 0.9333; 0.9333 * 18928 = 17666.13,
	 * + 0.5 -> 17666; 131072 + 17666 = 148738 */
	assert_int_equal(hist_percentile(hist, IS_HIST_BUCKETS, min, max, 99), 148738);
	/* p100: rank 100, frac 1: 131072 + 18928 = 150000 = max */
	assert_int_equal(hist_percentile(hist, IS_HIST_BUCKETS, min, max, 100), max);
	/* p0: rank 0 -> 1; bucket 35 with lo clamped to min 900:
	 * frac = 1/40 = 0.025; width = 1023 - 900 = 123; 3.075 + 0.5 -> 3; 903 */
	assert_int_equal(hist_percentile(hist, IS_HIST_BUCKETS, min, max, 0), 903);
	/* p40: rank 40 = all of bucket 35, frac 1: 900 + 123 = 1023 */
	assert_int_equal(hist_percentile(hist, IS_HIST_BUCKETS, min, max, 40), 1023);
	/* each estimate lies in its bucket */
	assert_in_range(hist_percentile(hist, IS_HIST_BUCKETS, min, max, 50), 10240, 12287);
	assert_in_range(hist_percentile(hist, IS_HIST_BUCKETS, min, max, 99), 131072, 150000);
	/* pct beyond 100: rank 150 > total 100, every bucket passed -> max */
	assert_int_equal(hist_percentile(hist, IS_HIST_BUCKETS, min, max, 150), max);
}

static void test_percentile_clamped(void **state)
{
	(void)state;
	uint64_t hist[IS_HIST_BUCKETS] = { 0 };

	/* 10 periods in bucket 35 [896, 1024) but min 950, max 960: the bucket
	 * shrinks to [950, 961), width 960 - 950 = 10.
	 * p0: rank 1, frac 0.1, 1 + 0.5 -> 1 -> 951
	 * p50: rank 5, frac 0.5, 5 + 0.5 -> 5 -> 955
	 * p100: rank 10, frac 1, 10 + 0.5 -> 10 -> 960 */
	hist[35] = 10;
	assert_int_equal(hist_percentile(hist, IS_HIST_BUCKETS, 950, 960, 0), 951);
	assert_int_equal(hist_percentile(hist, IS_HIST_BUCKETS, 950, 960, 50), 955);
	assert_int_equal(hist_percentile(hist, IS_HIST_BUCKETS, 950, 960, 100), 960);
	/* min above the bucket (inconsistent input): hi 1024 <= lo 2000 -> lo,
	 * i.e. the result is clamped up to min */
	assert_int_equal(hist_percentile(hist, IS_HIST_BUCKETS, 2000, 2000, 50), 2000);
}

static void test_percentile_last_bucket(void **state)
{
	(void)state;
	uint64_t hist[IS_HIST_BUCKETS] = { 0 };

	/* one period of 2^42 ns, in the open-ended bucket 159: lo = min = 2^42,
	 * hi = min(upper(159), 2^42 + 1) < lo -> returns lo = 2^42 */
	hist[159] = 1;
	assert_int_equal(hist_percentile(hist, IS_HIST_BUCKETS, 1ULL << 42, 1ULL << 42, 50),
			 1ULL << 42);
}

static void test_percentile_last_bucket_reaches_max(void **state)
{
	(void)state;
	uint64_t hist[IS_HIST_BUCKETS] = { 0 };

	/* Was a bug: user/model/stats.c hist_percentile() caps hi at the last bucket's
	 * nominal bound even though bucket 159 is open-ended: two periods,
	 * min 2^41 = 2199023255552, max 2^42 = 4398046511104, both in bucket 159.
	 * p100 (rank 2 of 2) should be max = 4398046511104; it returns
	 * upper(159) - 1 = 2405181685759. */
	hist[159] = 2;
	assert_int_equal(hist_percentile(hist, IS_HIST_BUCKETS, 1ULL << 41, 1ULL << 42, 100),
			 1ULL << 42);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_percentile_inside_samples),
		cmocka_unit_test(test_sample_stats),
		cmocka_unit_test(test_welch),
		cmocka_unit_test(test_t_table),
		cmocka_unit_test(test_percentile_empty),
		cmocka_unit_test(test_percentile_single_value),
		cmocka_unit_test(test_percentile_spread),
		cmocka_unit_test(test_percentile_clamped),
		cmocka_unit_test(test_percentile_last_bucket),
		cmocka_unit_test(test_percentile_last_bucket_reaches_max),
	};

	return cmocka_run_group_tests_name("stats", tests, NULL, NULL);
}
