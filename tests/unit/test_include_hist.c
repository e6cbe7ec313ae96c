/* Unit tests for the shared log2 histogram (include/hist.h, used by BPF and
 * C alike): bucket of a value and bucket bounds. Every expected value is
 * worked out by hand in the comment next to it; bucket b >= 4 covers
 * [(4 + b%4) << (b/4 - 1), (5 + b%4) << (b/4 - 1)). The percentiles over it
 * are model/stats.c's, in test_stats.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hist.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_msb),
		cmocka_unit_test(test_bucket_values),
		cmocka_unit_test(test_bounds_by_hand),
		cmocka_unit_test(test_bounds_contiguous),
		cmocka_unit_test(test_values_map_to_their_bucket),
		cmocka_unit_test(test_last_bucket_nominal_bound),
	};

	return cmocka_run_group_tests_name("include_hist", tests, NULL, NULL);
}
