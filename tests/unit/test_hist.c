/* Unit tests for the shared log2 histogram (include/hist.h) and the
 * percentile estimator over it (user/model/stats.c). Every expected value is
 * worked out by hand in the comment next to it; bucket b >= 4 covers
 * [(4 + b%4) << (b/4 - 1), (5 + b%4) << (b/4 - 1)). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hist.h"
#include "model/stats.h"

static void test_msb(void **state)
{
	(void)state;
	assert_int_equal(is_msb64(1), 0);
	assert_int_equal(is_msb64(2), 1);
	assert_int_equal(is_msb64(3), 1);
	assert_int_equal(is_msb64(4), 2);
	assert_int_equal(is_msb64(7), 2);
	assert_int_equal(is_msb64(8), 3);
	assert_int_equal(is_msb64(0xffffffffULL), 31);
	assert_int_equal(is_msb64(0x100000000ULL), 32);
	assert_int_equal(is_msb64(1ULL << 63), 63);
	assert_int_equal(is_msb64(UINT64_MAX), 63);
}

static void test_bucket_values(void **state)
{
	(void)state;
	/* 0..3 are their own buckets */
	assert_int_equal(is_hist_bucket(0), 0);
	assert_int_equal(is_hist_bucket(1), 1);
	assert_int_equal(is_hist_bucket(3), 3);
	/* 4: msb 2, b = 4*(2-1) + ((4 >> 0) & 3) = 4 + 0 = 4 */
	assert_int_equal(is_hist_bucket(4), 4);
	/* 7: msb 2, b = 4 + (7 & 3) = 4 + 3 = 7 */
	assert_int_equal(is_hist_bucket(7), 7);
	/* 8: msb 3, b = 4*2 + ((8 >> 1) & 3) = 8 + (4 & 3) = 8 */
	assert_int_equal(is_hist_bucket(8), 8);
	/* 9: msb 3, (9 >> 1) = 4, 4 & 3 = 0 -> 8 (bucket [8,10) is 2 ns wide) */
	assert_int_equal(is_hist_bucket(9), 8);
	/* 10: (10 >> 1) = 5, 5 & 3 = 1 -> 9 */
	assert_int_equal(is_hist_bucket(10), 9);
	/* 15: (15 >> 1) = 7, 7 & 3 = 3 -> 11 */
	assert_int_equal(is_hist_bucket(15), 11);
	/* 16: msb 4, b = 4*3 + ((16 >> 2) & 3) = 12 + 0 = 12 */
	assert_int_equal(is_hist_bucket(16), 12);
	/* 500: 256 <= 500 < 512, msb 8; b = 4*7 + ((500 >> 6) & 3)
	 * = 28 + (7 & 3) = 28 + 3 = 31 */
	assert_int_equal(is_hist_bucket(500), 31);
	/* 1500000: 2^20 = 1048576 <= 1500000 < 2^21, msb 20;
	 * 1500000 >> 18 = 5 (5 * 262144 = 1310720 <= 1500000 < 1572864),
	 * b = 4*19 + (5 & 3) = 76 + 1 = 77 */
	assert_int_equal(is_hist_bucket(1500000), 77);
	/* UINT64_MAX: msb 63, b = 4*62 + 3 = 251 >= 160 -> clamped to 159 */
	assert_int_equal(is_hist_bucket(UINT64_MAX), IS_HIST_BUCKETS - 1);
	assert_int_equal(IS_HIST_BUCKETS - 1, 159);
}

static void test_bounds_by_hand(void **state)
{
	(void)state;
	assert_int_equal(is_hist_lower(0), 0);
	assert_int_equal(is_hist_lower(3), 3);
	assert_int_equal(is_hist_upper(3), 4);
	/* b = 31: (4 + 3) << (7 - 1) = 7 * 64 = 448; upper = lower(32) = 4 << 7 = 512 */
	assert_int_equal(is_hist_lower(31), 448);
	assert_int_equal(is_hist_upper(31), 512);
	/* b = 77: (4 + 1) << (19 - 1) = 5 * 262144 = 1310720;
	 * upper = lower(78) = 6 << 18 = 1572864 */
	assert_int_equal(is_hist_lower(77), 1310720);
	assert_int_equal(is_hist_upper(77), 1572864);
	/* b = 158: 6 << 38 = 1649267441664; b = 159: 7 << 38 = 1924145348608 */
	assert_int_equal(is_hist_lower(158), 1649267441664ULL);
	assert_int_equal(is_hist_lower(159), 1924145348608ULL);
}

static void test_bounds_contiguous(void **state)
{
	(void)state;
	for (uint32_t b = 0; b + 1 < IS_HIST_BUCKETS; b++) {
		if (is_hist_upper(b) != is_hist_lower(b + 1))
			fail_msg("upper(%u) = %llu != lower(%u) = %llu", b,
				 (unsigned long long)is_hist_upper(b), b + 1,
				 (unsigned long long)is_hist_lower(b + 1));
		assert_true(is_hist_lower(b) < is_hist_upper(b));
	}
	/* the last bucket's bound is still above its lower bound */
	assert_true(is_hist_upper(IS_HIST_BUCKETS - 1) > is_hist_lower(IS_HIST_BUCKETS - 1));
}

static void test_values_map_to_their_bucket(void **state)
{
	(void)state;
	for (uint32_t b = 0; b + 1 < IS_HIST_BUCKETS; b++) {
		uint64_t lo = is_hist_lower(b), hi = is_hist_upper(b);
		uint64_t samples[] = { lo, lo + (hi - lo) / 3, lo + (hi - lo) / 2, hi - 1 };

		for (size_t i = 0; i < sizeof(samples) / sizeof(samples[0]); i++)
			if (is_hist_bucket(samples[i]) != b)
				fail_msg("value %llu in [%llu, %llu) maps to %u, not %u",
					 (unsigned long long)samples[i], (unsigned long long)lo,
					 (unsigned long long)hi, is_hist_bucket(samples[i]), b);
		/* and the first value past the bucket is in the next one */
		assert_int_equal(is_hist_bucket(hi), b + 1);
	}
	/* everything from lower(159) up lands in the open-ended last bucket */
	assert_int_equal(is_hist_bucket(is_hist_lower(159)), 159);
	assert_int_equal(is_hist_bucket(1ULL << 41), 159);
	assert_int_equal(is_hist_bucket(1ULL << 62), 159);
}

static void test_last_bucket_nominal_bound(void **state)
{
	(void)state;
	/* Was a bug: include/hist.h is_hist_upper(): the header says bucket b covers
	 * [(4 + b%4) << (b/4 - 1), (5 + b%4) << (b/4 - 1)), so bucket 159
	 * (b%4 = 3, b/4 - 1 = 38) is nominally [7 << 38, 8 << 38) and its
	 * bound is 8 << 38 = 2199023255552. The function returns
	 * lower * 5 / 4 = 7 * 5 / 4 << 38 = 2405181685760 (the 5/4 ratio only
	 * holds for b%4 = 0). Shown as hi_ns of the last bucket in JSON. */
	assert_int_equal(is_hist_upper(159), 2199023255552ULL);
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
		cmocka_unit_test(test_msb),
		cmocka_unit_test(test_bucket_values),
		cmocka_unit_test(test_bounds_by_hand),
		cmocka_unit_test(test_bounds_contiguous),
		cmocka_unit_test(test_values_map_to_their_bucket),
		cmocka_unit_test(test_last_bucket_nominal_bound),
		cmocka_unit_test(test_percentile_empty),
		cmocka_unit_test(test_percentile_single_value),
		cmocka_unit_test(test_percentile_spread),
		cmocka_unit_test(test_percentile_clamped),
		cmocka_unit_test(test_percentile_last_bucket),
		cmocka_unit_test(test_percentile_last_bucket_reaches_max),
	};

	return cmocka_run_group_tests_name("hist", tests, NULL, NULL);
}
