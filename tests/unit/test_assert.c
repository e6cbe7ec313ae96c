/* Unit tests for --fail-if parsing and evaluation (user/cmd/assert.c). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cmd/assert.h"

static struct assertion parse(const char *s)
{
	struct assertion a;
	char err[256];

	assert_int_equal(assertion_parse(s, &a, err, sizeof(err)), 0);
	return a;
}

static void bad(const char *s, const char *why)
{
	struct assertion a;
	char err[256] = "";

	assert_int_equal(assertion_parse(s, &a, err, sizeof(err)), -1);
	assert_non_null(strstr(err, why));
}

static void test_parse(void **state)
{
	struct assertion a;

	(void)state;
	a = parse("total.above_ratio > 0.10");
	assert_string_equal(a.metric, "total.above_ratio");
	assert_int_equal(a.op, OP_GT);
	assert_true(a.value == 0.10);
	a = parse("state[haltpoll idle].p99_ns >= 2ms"); /* 2 ms = 2e6 ns */
	assert_string_equal(a.metric, "state[haltpoll idle].p99_ns");
	assert_int_equal(a.op, OP_GE);
	assert_true(a.value == 2e6);
	a = parse("cluster[0].idle_share < 50%"); /* alias, and 50% = 0.5 */
	assert_string_equal(a.metric, "group[cluster0].idle_share");
	assert_true(a.value == 0.5);
	a = parse("delta(total.below) > 5%"); /* relative: stays 5 */
	assert_true(a.delta && a.percent && a.value == 5);
	assert_string_equal(a.metric, "total.below");
	a = parse("count!=0");
	assert_int_equal(a.op, OP_NE);
	a = parse("p50_ns <= 1.5us");
	assert_true(a.value == 1500);
}

static void test_parse_errors(void **state)
{
	(void)state;
	bad("total.above_ratio", "no comparison");
	bad("> 3", "bad metric name");
	bad("x > ", "expected a number");
	bad("x > 3 parsecs", "unexpected");
	bad("x > abc", "expected a number");
}

static void test_eval(void **state)
{
	struct metric_kv kv[] = { { "total.below", 110 }, { "total.above_ratio", 0.2 } };
	struct metric_kv kb[] = { { "total.below", 100 }, { "total.above_ratio", 0.2 } };
	struct metric_set m = { 2, 2, kv }, base = { 2, 2, kb };
	struct assertion a;
	double got;

	(void)state;
	a = parse("total.above_ratio > 10%"); /* 0.2 > 0.1: the failure holds */
	assert_int_equal(assertion_eval(&a, &m, &got), 0);
	assert_true(got == 0.2);
	a = parse("total.above_ratio > 30%");
	assert_int_equal(assertion_eval(&a, &m, &got), 1);
	a = parse("nope > 1");
	assert_int_equal(assertion_eval(&a, &m, &got), -1);
	a = parse("delta(total.below) > 5%"); /* +10% */
	assert_int_equal(assertion_eval_delta(&a, &base, &m, &got), 0);
	assert_true(fabs(got - 10) < 1e-9);
	a = parse("delta(total.below) > 20"); /* +10 absolute */
	assert_int_equal(assertion_eval_delta(&a, &base, &m, &got), 1);
	assert_true(got == 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_eval),
	};

	return cmocka_run_group_tests_name("assert", tests, NULL, NULL);
}
