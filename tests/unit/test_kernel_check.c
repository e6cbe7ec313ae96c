/* Unit tests for user/model/kernel_check.c: the cross-check of the BPF
 * counts against the kernel's cpuidle counters, on summaries built by hand.
 * Every expected value is worked out by hand in the comment next to it. */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "model/kernel_check.h"
#include "model/model.h"

#define US 1000ULL
#define MS 1000000ULL

/* A state of `entries` periods / time_ns against kernel counters with usage
 * `usage` and time 1 ms. max_ns is 0, so the edge-period term of the time
 * allowance (a multiple of max_ns) vanishes: tests that want it set max_ns. */
static struct state_summary check_st(uint64_t entries, uint64_t time_ns, uint64_t usage)
{
	struct state_summary st = { .index = 1, .name = "C1", .entries = entries,
				    .time_ns = time_ns, .max_ns = 0 };

	st.kernel = (struct kernel_delta){ .valid = true, .usage = usage, .time_ns = 1 * MS };
	return st;
}

static struct summary check_summary(uint64_t snapshot_ns)
{
	struct summary s;

	memset(&s, 0, sizeof(s));
	s.duration_ns = 100 * MS;
	s.snapshot_ns = snapshot_ns;
	return s;
}

static void test_check_entries(void **state)
{
	struct summary s = check_summary(0);
	struct state_summary st;
	struct check_row r;

	(void)state;
	/* 100 vs 98: diff +2, allowed 2 * 1 CPU = 2 -> ok */
	st = check_st(100, 1 * MS, 98);
	check_state(&s, &st, 1, &r);
	assert_true(r.available);
	assert_int_equal(r.entries_diff, 2);
	assert_int_equal(r.entries_allowed, 2);
	assert_true(r.entries_ok);
	/* 100 vs 97: +3 > 2 */
	st = check_st(100, 1 * MS, 97);
	check_state(&s, &st, 1, &r);
	assert_int_equal(r.entries_diff, 3);
	assert_false(r.entries_ok);
	/* rejected entries count: 100 vs 101 + 1 = 102: -2 -> ok */
	st = check_st(100, 1 * MS, 101);
	st.kernel.rejected = 1;
	check_state(&s, &st, 1, &r);
	assert_int_equal(r.entries_diff, -2);
	assert_true(r.entries_ok);
	/* 100 vs 103: -3 */
	st = check_st(100, 1 * MS, 103);
	check_state(&s, &st, 1, &r);
	assert_int_equal(r.entries_diff, -3);
	assert_false(r.entries_ok);
	/* totals over 4 CPUs: allowed 2 * 4 = 8; 100 - 92 = 8 ok, 100 - 91 = 9 not */
	st = check_st(100, 1 * MS, 92);
	check_state(&s, &st, 4, &r);
	assert_int_equal(r.entries_allowed, 8);
	assert_true(r.entries_ok);
	st = check_st(100, 1 * MS, 91);
	check_state(&s, &st, 4, &r);
	assert_false(r.entries_ok);
}

static void test_check_entries_snapshot_allowance(void **state)
{
	struct summary s = check_summary(1 * MS);
	struct state_summary st;
	struct check_row r;

	(void)state;
	/* 1 ms of snapshot reads in a 100 ms window: 1000 entries * 1/100 = 10
	 * more periods may end on one side only: allowed 2 + 10 = 12 */
	st = check_st(1000, 1 * MS, 988);
	check_state(&s, &st, 1, &r);
	assert_int_equal(r.entries_allowed, 12);
	assert_true(r.entries_ok);
	st = check_st(1000, 1 * MS, 987);
	check_state(&s, &st, 1, &r);
	assert_false(r.entries_ok);
	/* 1001 * 0.01 = 10.01, rounded up to 11: allowed 13 */
	st = check_st(1001, 1 * MS, 988);
	check_state(&s, &st, 1, &r);
	assert_int_equal(r.entries_allowed, 13);
	assert_true(r.entries_ok);
}

/* The rows of the 128-CPU TCG guest, synthetic: a CPU's state with 22
 * periods in a 10 s window, sysfs 32. Its snapshots took 2.6 s (edge to
 * edge, both): 22 * 0.26 = 5.72, rounded up to 6, allowed 2 + 6 = 8; the
 * kernel's 10 more are a mismatch at that rate. BPF saw 10 periods of that
 * CPU and state end during the reads (outside the window): allowed 2 + 10,
 * ok; a shorter read (0.5 s) does not narrow that. Per CPU: the totals of
 * 128 such CPUs allow 2 per CPU plus the sum of their edge exits. */
static void test_check_edge_exits(void **state)
{
	struct summary s = check_summary(0);
	struct state_summary st;
	struct check_row r;

	(void)state;
	s.duration_ns = 10000 * MS;
	s.snapshot_ns = 2600 * MS;
	st = check_st(22, 1 * MS, 32);
	check_state(&s, &st, 1, &r);
	assert_int_equal(r.entries_diff, -10);
	assert_int_equal(r.entries_allowed, 8);
	assert_false(r.entries_ok);
	st.edge_exits = 10;
	check_state(&s, &st, 1, &r);
	assert_int_equal(r.entries_allowed, 12);
	assert_true(r.entries_ok);
	s.snapshot_ns = 500 * MS;
	check_state(&s, &st, 1, &r);
	assert_int_equal(r.entries_allowed, 12);
	assert_true(r.entries_ok);
	/* where the rate over the read time is the larger: 22 * 0.26 -> 6 > 4 */
	s.snapshot_ns = 2600 * MS;
	st.edge_exits = 4;
	check_state(&s, &st, 1, &r);
	assert_int_equal(r.entries_allowed, 8);
	/* the totals of 128 CPUs: 2816 periods, 3 edge exits each */
	st = check_st(128 * 22, 1 * MS, 128 * 22 + 300);
	st.edge_exits = 128 * 3;
	s.snapshot_ns = 0;
	check_state(&s, &st, 128, &r);
	assert_int_equal(r.entries_allowed, 256 + 384);
	assert_true(r.entries_ok);
	/* a 2.6 s read in a 10 s window widens the rate term to 733 */
	s.snapshot_ns = 2600 * MS;
	check_state(&s, &st, 128, &r);
	assert_int_equal(r.entries_allowed, 256 + 733);
}

static void test_check_time(void **state)
{
	struct summary s = check_summary(0);
	struct state_summary st;
	struct check_row r;

	(void)state;
	/* 10 entries on both sides (diff 0); kernel 1 ms; max_ns 0. Allowed:
	 * 1% of 1e6 = 10000, + 10 * 1000 = 10000, + 2000 = 22000 */
	st = check_st(10, 1 * MS + 10000, 10);
	check_state(&s, &st, 1, &r);
	assert_int_equal(r.time_diff_ns, 10000);
	assert_true(r.time_ok);
	/* bias: 10000 / 10 = 1000 ns per period */
	assert_true(r.bias_ns > 999.999 && r.bias_ns < 1000.001);
	st = check_st(10, 1 * MS + 22000, 10);
	check_state(&s, &st, 1, &r);
	assert_true(r.time_ok);
	st = check_st(10, 1 * MS + 22001, 10);
	check_state(&s, &st, 1, &r);
	assert_false(r.time_ok);
	/* BPF shorter: -22000 ok, -22001 not */
	st = check_st(10, 1 * MS - 22000, 10);
	check_state(&s, &st, 1, &r);
	assert_int_equal(r.time_diff_ns, -22000);
	assert_true(r.time_ok);
	st = check_st(10, 1 * MS - 22001, 10);
	check_state(&s, &st, 1, &r);
	assert_false(r.time_ok);
	/* 1% scales with the kernel time: 100 ms -> 1000000 + 10000 + 2000 */
	st = check_st(10, 100 * MS + 1012000, 10);
	st.kernel.time_ns = 100 * MS;
	check_state(&s, &st, 1, &r);
	assert_true(r.time_ok);
	st.time_ns += 1;
	check_state(&s, &st, 1, &r);
	assert_false(r.time_ok);
}

static void test_check_time_edge_periods(void **state)
{
	struct summary s = check_summary(0);
	struct state_summary st;
	struct check_row r;

	(void)state;
	/* edge periods: (|entries_diff| + 2 per CPU) * max_ns on top.
	 * max 200 us, diff 0, 1 CPU: 22000 + (0 + 2) * 200000 = 422000 */
	st = check_st(10, 1 * MS + 422000, 10);
	st.max_ns = 200 * US;
	check_state(&s, &st, 1, &r);
	assert_true(r.time_ok);
	st.time_ns += 1;
	check_state(&s, &st, 1, &r);
	assert_false(r.time_ok);
	/* diff +1 (kernel 9): 22000 + (1 + 2) * 200000 = 622000, both ways */
	st = check_st(10, 1 * MS - 622000, 9);
	st.max_ns = 200 * US;
	check_state(&s, &st, 1, &r);
	assert_true(r.time_ok);
	st.time_ns -= 1;
	check_state(&s, &st, 1, &r);
	assert_false(r.time_ok);
	/* totals over 3 CPUs, diff 0: 22000 + (0 + 6) * 200000 = 1222000 */
	st = check_st(10, 1 * MS + 1222000, 10);
	st.max_ns = 200 * US;
	check_state(&s, &st, 3, &r);
	assert_true(r.time_ok);
	st.time_ns += 1;
	check_state(&s, &st, 3, &r);
	assert_false(r.time_ok);
}

static void test_check_time_kernel_counted_more(void **state)
{
	struct summary s = check_summary(0);
	struct state_summary st;
	struct check_row r;

	(void)state;
	/* kernel counted 11 periods, BPF 10 (entries_diff -1): a period in flight
	 * at attach has unknown length, so BPF may be short by any amount.
	 * Allowed (max_ns 0): 10000 + 10000 + 2000 = 22000 */
	st = check_st(10, 500 * US, 11);
	check_state(&s, &st, 1, &r);
	assert_int_equal(r.entries_diff, -1);
	assert_int_equal(r.time_diff_ns, -500000);
	assert_true(r.time_ok);
	/* the same -500 us with equal counts is a mismatch (500000 > 22000) */
	st = check_st(10, 500 * US, 10);
	check_state(&s, &st, 1, &r);
	assert_false(r.time_ok);
	/* the upper bound still applies: +22000 ok, +22001 not */
	st = check_st(10, 1 * MS + 22000, 11);
	check_state(&s, &st, 1, &r);
	assert_true(r.time_ok);
	st = check_st(10, 1 * MS + 22001, 11);
	check_state(&s, &st, 1, &r);
	assert_false(r.time_ok);
	/* BPF counted one more (diff +1): the lower bound stays, -22000 ok,
	 * -22001 not */
	st = check_st(10, 1 * MS - 22000, 9);
	check_state(&s, &st, 1, &r);
	assert_true(r.time_ok);
	st = check_st(10, 1 * MS - 22001, 9);
	check_state(&s, &st, 1, &r);
	assert_false(r.time_ok);
}

static void test_check_miss_and_unavailable(void **state)
{
	struct summary s = check_summary(0);
	struct state_summary st;
	struct check_row r;

	(void)state;
	st = check_st(10, 1 * MS, 10);
	st.above = 4;
	st.below = 1;
	st.have_miss = true;
	st.miss_above = 5;
	st.miss_below = 3;
	st.kernel.has_miss_counters = true;
	st.kernel.above = 3;
	st.kernel.below = 3;
	check_state(&s, &st, 1, &r);
	/* classification: 4 - 3 = 1, 1 - 3 = -2; misses: 5 - 3 = 2, 3 - 3 = 0 */
	assert_int_equal(r.above_diff, 1);
	assert_int_equal(r.below_diff, -2);
	assert_true(r.miss_available);
	assert_int_equal(r.miss_above_diff, 2);
	assert_int_equal(r.miss_below_diff, 0);
	assert_true(r.miss_ok);
	/* miss_below 0 vs 3: -3 beyond 2 */
	st.miss_below = 0;
	check_state(&s, &st, 1, &r);
	assert_false(r.miss_ok);
	/* without cpu_idle_miss there is nothing to compare */
	st.have_miss = false;
	check_state(&s, &st, 1, &r);
	assert_false(r.miss_available);
	assert_int_equal(r.miss_above_diff, 0);
	/* no kernel above/below files: no classification diffs either */
	st.kernel.has_miss_counters = false;
	check_state(&s, &st, 1, &r);
	assert_int_equal(r.above_diff, 0);
	assert_int_equal(r.below_diff, 0);
	/* no sysfs counters at all */
	st.kernel.valid = false;
	check_state(&s, &st, 1, &r);
	assert_false(r.available);
	assert_false(r.entries_ok);
	assert_int_equal(r.entries_allowed, 0);
}

static void test_check_verdict(void **state)
{
	struct summary s = check_summary(0);
	struct cpu_summary cpus[2];

	(void)state;
	memset(cpus, 0, sizeof(cpus));
	s.cpus = cpus;
	s.nr_cpus = 2;
	cpus[0].nr_states = cpus[1].nr_states = 2;
	/* no state has counters */
	assert_string_equal(check_verdict(&s), "unavailable");
	/* all agree */
	cpus[0].states[1] = check_st(10, 1 * MS, 10);
	cpus[1].states[0] = check_st(10, 1 * MS + 5000, 9);
	assert_string_equal(check_verdict(&s), "ok");
	/* one entries mismatch on cpu1: 10 vs 13 */
	cpus[1].states[0] = check_st(10, 1 * MS, 13);
	assert_string_equal(check_verdict(&s), "mismatch");
	/* one time mismatch: +30000 > 22000 */
	cpus[1].states[0] = check_st(10, 1 * MS + 30000, 10);
	assert_string_equal(check_verdict(&s), "mismatch");
	/* miss mismatch: miss_above 9 vs kernel above 0 */
	cpus[1].states[0] = check_st(10, 1 * MS, 10);
	cpus[1].states[0].have_miss = true;
	cpus[1].states[0].miss_above = 9;
	cpus[1].states[0].kernel.has_miss_counters = true;
	assert_string_equal(check_verdict(&s), "mismatch");
	/* states beyond nr_states are ignored */
	cpus[1].nr_states = 0;
	assert_string_equal(check_verdict(&s), "ok");
	/* no CPUs */
	s.nr_cpus = 0;
	assert_string_equal(check_verdict(&s), "unavailable");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check_entries),
		cmocka_unit_test(test_check_entries_snapshot_allowance),
		cmocka_unit_test(test_check_edge_exits),
		cmocka_unit_test(test_check_time),
		cmocka_unit_test(test_check_time_edge_periods),
		cmocka_unit_test(test_check_time_kernel_counted_more),
		cmocka_unit_test(test_check_miss_and_unavailable),
		cmocka_unit_test(test_check_verdict),
	};

	return cmocka_run_group_tests_name("kernel_check", tests, NULL, NULL);
}
