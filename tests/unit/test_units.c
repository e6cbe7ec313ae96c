/* Unit tests for user/util/units.c: fmt_ns (3 significant digits) and
 * parse_duration. Expected strings and numbers are worked out by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/units.h"

#define NS 1ULL
#define US 1000ULL
#define MS 1000000ULL
#define SEC 1000000000ULL

static void check_fmt(uint64_t ns, const char *want)
{
	char buf[32];
	const char *got = fmt_ns(buf, sizeof(buf), ns);

	assert_ptr_equal(got, buf);
	if (strcmp(got, want))
		fail_msg("fmt_ns(%llu) = \"%s\", want \"%s\"", (unsigned long long)ns, got, want);
}

static void test_fmt_examples(void **state)
{
	(void)state;
	check_fmt(0, "0ns");                /* below 1 us: integer ns */
	check_fmt(850, "850ns");
	check_fmt(999, "999ns");
	check_fmt(1000, "1.00us");          /* 1000 / 1e3 = 1.00 (< 9.995: 2 decimals) */
	check_fmt(12300, "12.3us");         /* 12.3 (>= 9.995, < 99.95: 1 decimal) */
	check_fmt(4560000, "4.56ms");       /* 4560000 / 1e6 = 4.56 */
	check_fmt(1200000000, "1.20s");     /* 1.2e9 / 1e9 = 1.20 */
	check_fmt(100 * SEC, "100s");       /* 100 >= 99.95: no decimals */
	check_fmt(3600 * SEC, "3600s");     /* s is the largest unit */
}

static void test_fmt_digit_boundaries(void **state)
{
	(void)state;
	check_fmt(9994, "9.99us");   /* 9.994 < 9.995: "%.2f" -> 9.99 */
	check_fmt(9996, "10.0us");   /* 9.996 >= 9.995: "%.1f" -> 10.0 */
	check_fmt(99949, "99.9us");  /* 99.949 < 99.95: "%.1f" -> 99.9 */
	check_fmt(99951, "100us");   /* 99.951 >= 99.95: "%.0f" -> 100 */
	check_fmt(999499, "999us");  /* 999.499: "%.0f" -> 999 */
	check_fmt(1 * MS, "1.00ms"); /* 1e6 / 1e6 = 1.00 */
	check_fmt(1 * SEC, "1.00s");
	check_fmt(123456789, "123ms"); /* 123.456789 -> 123 */
}

static void test_fmt_unit_rollover(void **state)
{
	(void)state;
	/* Values that round to 1000 of a unit move to the next unit: 999.5 us
	 * would print "1000us" (4 digits) in us, so it is "1.00ms" instead
	 * (found as a bug in fmt_ns; the unit now starts at 0.9995 of it). */
	check_fmt(999499, "999us");      /* 999.499 us: stays in us */
	check_fmt(999500, "1.00ms");     /* 999.5 us = 0.9995 ms -> 1.00 */
	check_fmt(999999, "1.00ms");     /* 999.999 us */
	check_fmt(999499999, "999ms");   /* 999.499999 ms */
	check_fmt(999999999, "1.00s");   /* 999.999999 ms */
}

static void test_fmt_truncates(void **state)
{
	(void)state;
	char buf[4];

	/* "12.3us" in 4 bytes: snprintf keeps 3 characters + NUL */
	assert_string_equal(fmt_ns(buf, sizeof(buf), 12300), "12.");
	assert_string_equal(fmt_ns(buf, sizeof(buf), 850), "850");
}

static void check_parse(const char *s, uint64_t unit, uint64_t want)
{
	uint64_t out = 12345;

	if (parse_duration(s, unit, &out))
		fail_msg("parse_duration(\"%s\") failed", s);
	if (out != want)
		fail_msg("parse_duration(\"%s\") = %llu, want %llu", s, (unsigned long long)out,
			 (unsigned long long)want);
}

static void check_parse_bad(const char *s)
{
	uint64_t out = 12345;

	assert_int_equal(parse_duration(s, SEC, &out), -1);
	assert_int_equal(out, 12345); /* untouched on error */
}

static void test_parse_ok(void **state)
{
	(void)state;
	check_parse("10", SEC, 10 * SEC);             /* bare number, default unit s: 1e10 */
	check_parse("2.5", SEC, 2500000000ULL);       /* 2.5 * 1e9 */
	check_parse("0.1", SEC, 100000000ULL);        /* 0.1 * 1e9 = 1e8 (rounded) */
	check_parse("500ms", SEC, 500 * MS);          /* 5e8 */
	check_parse("100us", SEC, 100 * US);          /* 1e5 */
	check_parse("1m", SEC, 60 * SEC);             /* 6e10 */
	check_parse("1.5m", SEC, 90 * SEC);           /* 1.5 * 60e9 = 9e10 */
	check_parse("2s", SEC, 2 * SEC);
	check_parse("5ns", SEC, 5 * NS);
	check_parse("0.5us", SEC, 500);               /* 0.5 * 1e3 */
	check_parse("0", SEC, 0);
	check_parse("250", MS, 250 * MS);             /* default unit ms: 2.5e8 */
	check_parse("1000000000s", SEC, 1000000000000000000ULL); /* 1e18 is the limit */
}

static void test_parse_bad(void **state)
{
	(void)state;
	check_parse_bad("");
	check_parse_bad(NULL);
	check_parse_bad("abc");
	check_parse_bad("-1");
	check_parse_bad("-5ms");
	check_parse_bad("10x");
	check_parse_bad("10 s");  /* no blanks before the suffix */
	check_parse_bad("10ms "); /* nor after */
	check_parse_bad("1e30");  /* 1e30 * 1e9 > 1e18 */
	check_parse_bad("1000000001s"); /* 1.000000001e18 > 1e18 */
	check_parse_bad("nan");
	check_parse_bad("inf");
	check_parse_bad("ms");    /* suffix without a number */
	check_parse_bad("5h");    /* hours are not a unit */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fmt_examples),
		cmocka_unit_test(test_fmt_digit_boundaries),
		cmocka_unit_test(test_fmt_unit_rollover),
		cmocka_unit_test(test_fmt_truncates),
		cmocka_unit_test(test_parse_ok),
		cmocka_unit_test(test_parse_bad),
	};

	return cmocka_run_group_tests_name("units", tests, NULL, NULL);
}
