/* Unit tests for user/util/cpulist.c: the kernel's CPU list syntax ("0-3,6", ""),
 * the stride form, errors, and the canonical formatter. Every expected value
 * is worked out by hand in the comment next to it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/cpulist.h"

/* Parses s, which must succeed. */
static struct cpulist parse_ok(const char *s)
{
	struct cpulist l;
	char err[128] = "";

	if (cpulist_parse(s, &l, err, sizeof(err)) != 0)
		fail_msg("cpulist_parse(\"%s\") failed: %s", s, err);
	return l;
}

/* Asserts that l holds exactly the CPUs in want[0..n) (and nothing else
 * below 64, which covers every list in this file but "4095"). */
static void assert_cpus(const struct cpulist *l, const int *want, int n)
{
	for (int cpu = 0; cpu < 64; cpu++) {
		bool in = false;

		for (int i = 0; i < n; i++)
			in |= want[i] == cpu;
		if (cpulist_has(l, cpu) != in)
			fail_msg("CPU %d: expected %s", cpu, in ? "set" : "clear");
	}
	assert_int_equal(cpulist_count(l), n);
}

static void assert_format(const struct cpulist *l, const char *want)
{
	char buf[256];
	int n = cpulist_format(l, buf, sizeof(buf));

	assert_string_equal(buf, want);
	assert_int_equal(n, (int)strlen(want));
}

/* Parses s, which must fail with a non-empty reason containing needle. */
static void parse_err(const char *s, const char *needle)
{
	struct cpulist l;
	char err[128] = "";

	if (cpulist_parse(s, &l, err, sizeof(err)) != -1)
		fail_msg("cpulist_parse(\"%s\") succeeded, expected an error", s);
	assert_true(strlen(err) > 0);
	if (!strstr(err, needle))
		fail_msg("cpulist_parse(\"%s\"): error '%s' lacks '%s'", s, err, needle);
}

static void test_parse_range_and_single(void **state)
{
	(void)state;
	/* "0-3,6" = {0,1,2,3} + {6}: 4 + 1 = 5 CPUs, 4 and 5 absent */
	struct cpulist l = parse_ok("0-3,6");
	const int want[] = { 0, 1, 2, 3, 6 };

	assert_cpus(&l, want, 5);
	assert_int_equal(cpulist_first(&l), 0);
	assert_false(cpulist_has(&l, 4));
	assert_false(cpulist_has(&l, 5));
	assert_false(cpulist_has(&l, 7));
}

static void test_parse_one_cpu(void **state)
{
	(void)state;
	/* "0" = {0}: count 1, first 0 */
	struct cpulist l = parse_ok("0");
	const int want[] = { 0 };

	assert_cpus(&l, want, 1);
	assert_int_equal(cpulist_first(&l), 0);
}

static void test_parse_empty(void **state)
{
	(void)state;
	/* The kernel writes "" (or "\n") for an empty mask, e.g. offline on a
	 * box with every CPU online: count 0, first -1. */
	const char *inputs[] = { "", "\n", "  \n", "\t" };

	for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++) {
		struct cpulist l = parse_ok(inputs[i]);

		assert_int_equal(cpulist_count(&l), 0);
		assert_int_equal(cpulist_first(&l), -1);
		assert_format(&l, "");
	}
}

static void test_parse_stride(void **state)
{
	(void)state;
	/* kernel group form "0-7:2/4": the first 2 of every 4 -> 0,1 and 4,5 */
	struct cpulist l = parse_ok("0-7:2/4");
	const int want[] = { 0, 1, 4, 5 };

	assert_cpus(&l, want, 4);
	assert_format(&l, "0-1,4-5");

	/* "1-10:1/3": 1 of every 3 from 1 -> 1, 4, 7, 10 */
	l = parse_ok("1-10:1/3");
	const int want2[] = { 1, 4, 7, 10 };
	assert_cpus(&l, want2, 4);

	/* "0-3:1/8": group wider than the range keeps only lo = 0 */
	l = parse_ok("0-3:1/8");
	const int want3[] = { 0 };
	assert_cpus(&l, want3, 1);
}

static void test_parse_sysfs_endings(void **state)
{
	(void)state;
	/* sysfs files end in "\n" ("%*pbl\n"); -C values may carry leading blanks */
	const char *inputs[] = { "0-3,6\n", " 0-3,6", "\t0-3,6\n", "0-3,6" };
	const int want[] = { 0, 1, 2, 3, 6 };

	for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++) {
		struct cpulist l = parse_ok(inputs[i]);

		assert_cpus(&l, want, 5);
	}
	/* Anything after the single trailing newline is an error. */
	parse_err("0-3\nx", "unexpected");
	parse_err("0-3\n\n", "unexpected");
}

static void test_parse_overlap_and_order(void **state)
{
	(void)state;
	/* "6,0-3,2" = {6} u {0,1,2,3} u {2} = {0,1,2,3,6}: 5 CPUs, canonical "0-3,6" */
	struct cpulist l = parse_ok("6,0-3,2");
	const int want[] = { 0, 1, 2, 3, 6 };

	assert_cpus(&l, want, 5);
	assert_format(&l, "0-3,6");
	/* "5-5" is the single CPU 5 */
	l = parse_ok("5-5");
	const int want2[] = { 5 };
	assert_cpus(&l, want2, 1);
}

static void test_parse_last_cpu(void **state)
{
	(void)state;
	/* IS_CPULIST_MAX = 4096, so 4095 is the largest CPU number accepted */
	struct cpulist l = parse_ok("4095");

	assert_int_equal(cpulist_count(&l), 1);
	assert_int_equal(cpulist_first(&l), 4095);
	assert_true(cpulist_has(&l, 4095));
	assert_format(&l, "4095");
	/* "4090-4095" = 6 CPUs */
	l = parse_ok("4090-4095");
	assert_int_equal(cpulist_count(&l), 6);
	assert_int_equal(cpulist_first(&l), 4090);
	assert_format(&l, "4090-4095");
}

static void test_parse_errors(void **state)
{
	(void)state;
	parse_err("3-1", "backwards");    /* hi 1 < lo 3 */
	parse_err("a", "expected a CPU number");
	parse_err("1,,2", "expected a CPU number"); /* empty item between commas */
	parse_err("1-", "expected a CPU number");   /* range without its end */
	parse_err("4096", "too large");   /* 4096 >= IS_CPULIST_MAX */
	parse_err("0-4096", "too large"); /* range end out of bounds */
	parse_err("99999999999999999999", "too large"); /* strtol ERANGE */
	parse_err("0-7:0/4", "bad group");
	parse_err("0-7:5/4", "bad group");
	parse_err("0-7:2", "expected '/'");
	parse_err("-1", "expected a CPU number");
	parse_err("1,", "expected a CPU number");   /* trailing comma */
	parse_err(",1", "expected a CPU number");
	parse_err("0-3 6", "unexpected");
	parse_err("0-3;6", "unexpected");
	parse_err("0-3:", "expected a CPU number"); /* group without a number */
}

static void test_parse_error_resets_and_truncates(void **state)
{
	(void)state;
	struct cpulist l;
	char err[8];

	/* A tiny error buffer is truncated, still NUL-terminated and non-empty:
	 * snprintf writes at most 7 characters + NUL. */
	memset(err, 'x', sizeof(err));
	assert_int_equal(cpulist_parse("zzz", &l, err, sizeof(err)), -1);
	assert_int_equal(strlen(err), 7);
	/* Parsing starts from an empty set: "2" after "0-3" leaves only {2}. */
	l = parse_ok("0-3");
	assert_int_equal(cpulist_parse("2", &l, err, sizeof(err)), 0);
	assert_int_equal(cpulist_count(&l), 1);
	assert_true(cpulist_has(&l, 2));
}

static void test_set_has_bounds(void **state)
{
	(void)state;
	struct cpulist l;

	memset(&l, 0, sizeof(l));
	cpulist_set(&l, -1);   /* ignored */
	cpulist_set(&l, 4096); /* ignored */
	assert_int_equal(cpulist_count(&l), 0);
	assert_false(cpulist_has(&l, -1));
	assert_false(cpulist_has(&l, 4096));
	/* 63 and 64 straddle a word boundary of the bitmap */
	cpulist_set(&l, 63);
	cpulist_set(&l, 64);
	cpulist_set(&l, 64); /* idempotent */
	assert_int_equal(cpulist_count(&l), 2);
	assert_int_equal(cpulist_first(&l), 63);
	assert_format(&l, "63-64");
}

static void test_format_canonical(void **state)
{
	(void)state;
	struct cpulist l;

	/* round trip of the canonical "0-3,6" */
	l = parse_ok("0-3,6");
	assert_format(&l, "0-3,6");
	/* no two adjacent CPUs: no ranges */
	l = parse_ok("1,3,5");
	assert_format(&l, "1,3,5");
	/* runs are merged: 0,1,2 -> "0-2"; 4 alone; 7,8 -> "7-8" */
	l = parse_ok("0,1,2,4,7,8");
	assert_format(&l, "0-2,4,7-8");
	/* single CPU */
	l = parse_ok("7");
	assert_format(&l, "7");
	/* every CPU: one range 0..4095 */
	memset(&l, 0, sizeof(l));
	for (int c = 0; c < IS_CPULIST_MAX; c++)
		cpulist_set(&l, c);
	assert_int_equal(cpulist_count(&l), 4096);
	assert_format(&l, "0-4095");
}

static void test_format_truncates(void **state)
{
	(void)state;
	struct cpulist l = parse_ok("0-3,6");
	char buf[8];

	/* len 4: "0-3" fits (3 chars + NUL); ",6" does not: returns 4 - 1 = 3 */
	memset(buf, 'x', sizeof(buf));
	assert_int_equal(cpulist_format(&l, buf, 4), 3);
	assert_string_equal(buf, "0-3");
	/* len 3: "0-3" is cut to "0-": returns 3 - 1 = 2 */
	memset(buf, 'x', sizeof(buf));
	assert_int_equal(cpulist_format(&l, buf, 3), 2);
	assert_string_equal(buf, "0-");
	/* len 0: writes nothing, returns 0 */
	memset(buf, 'x', sizeof(buf));
	assert_int_equal(cpulist_format(&l, buf, 0), 0);
	assert_int_equal(buf[0], 'x');
}

/* cpulist_str never cuts: the longest patterns (every other CPU, two of
 * every three, every third) up to IS_CPULIST_MAX parse back to the same list
 * and fit CPULIST_STR_MAX. */
static void test_str_whole_at_any_length(void **state)
{
	(void)state;
	static const int step[][2] = { { 2, 1 }, { 3, 2 }, { 3, 1 }, { 1, 1 }, { 7, 3 } };

	for (size_t k = 0; k < sizeof(step) / sizeof(step[0]); k++) {
		struct cpulist l, back;
		char err[128], *s;

		memset(&l, 0, sizeof(l));
		/* step[k][1] CPUs on, then the rest of step[k][0] off */
		for (int c = 0; c < IS_CPULIST_MAX; c++)
			if (c % step[k][0] < step[k][1])
				cpulist_set(&l, c);
		s = cpulist_str(&l);
		assert_non_null(s);
		assert_true(strlen(s) < CPULIST_STR_MAX);
		assert_int_equal(cpulist_parse(s, &back, err, sizeof(err)), 0);
		assert_true(cpulist_equal(&l, &back));
		free(s);
	}
}

static void test_count_first_equal(void **state)
{
	(void)state;
	struct cpulist a = parse_ok("0-3"), b = parse_ok("3,2,1,0"), c = parse_ok("0-2");
	struct cpulist d = parse_ok("5-9"), e = parse_ok("");

	assert_true(cpulist_equal(&a, &b));  /* same set, other spelling */
	assert_false(cpulist_equal(&a, &c)); /* {0..3} vs {0..2} */
	assert_false(cpulist_equal(&a, &e));
	assert_int_equal(cpulist_count(&a), 4); /* 3 - 0 + 1 */
	assert_int_equal(cpulist_count(&c), 3);
	assert_int_equal(cpulist_count(&d), 5); /* 9 - 5 + 1 */
	assert_int_equal(cpulist_first(&d), 5);
	assert_int_equal(cpulist_first(&e), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_range_and_single),
		cmocka_unit_test(test_parse_one_cpu),
		cmocka_unit_test(test_parse_empty),
		cmocka_unit_test(test_parse_stride),
		cmocka_unit_test(test_parse_sysfs_endings),
		cmocka_unit_test(test_parse_overlap_and_order),
		cmocka_unit_test(test_parse_last_cpu),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_parse_error_resets_and_truncates),
		cmocka_unit_test(test_set_has_bounds),
		cmocka_unit_test(test_format_canonical),
		cmocka_unit_test(test_format_truncates),
		cmocka_unit_test(test_str_whole_at_any_length),
		cmocka_unit_test(test_count_first_equal),
	};

	return cmocka_run_group_tests_name("cpulist", tests, NULL, NULL);
}
