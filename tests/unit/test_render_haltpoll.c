/* Unit tests for user/model/haltpoll.c and user/render/render_haltpoll.c:
 * per-CPU figures from hand-made inputs (the saved latency's basis, the
 * untold polls), their sum over CPUs, and the table and JSON rendered from
 * a hand-built summary, checked against values worked out in the comments. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "model/haltpoll.h"
#include "model/model.h"
#include "render/render_haltpoll.h"

/* CPU0: 10 polls, 4 woken, 5 timed out (1 untold); halt timer lateness
 * 3 samples summing 30 us -> 10 us each: saved 4 x 10 us = 40 us measured.
 * CPU1: 3 polls, 3 woken, no lateness, declared 1 us: saved 3 us declared;
 * no limit move. */
static const struct haltpoll_cpu raw0 = { .woken = 4, .timed_out = 5, .grow = 2, .shrink = 1,
					  .limit_ns = 40000, .limit_first_ns = 10000,
					  .limit_min_ns = 10000, .limit_max_ns = 80000 };
static const struct haltpoll_cpu raw1 = { .woken = 3 };

static struct haltpoll_summary cpu0(void)
{
	return haltpoll_of(&(struct haltpoll_input){ .raw = &raw0, .polls = 10, .poll_ns = 500000,
						     .halt_declared = true,
						     .halt_exit_latency_ns = 1000,
						     .lateness_samples = 3,
						     .lateness_sum_ns = 30000 });
}

static struct haltpoll_summary cpu1(void)
{
	return haltpoll_of(&(struct haltpoll_input){ .raw = &raw1, .polls = 3, .poll_ns = 3000,
						     .halt_declared = true,
						     .halt_exit_latency_ns = 1000 });
}

static void test_per_cpu(void **state)
{
	struct haltpoll_summary a = cpu0(), b = cpu1(), c;

	(void)state;
	assert_true(a.known);
	assert_int_equal(a.unresolved, 1);
	assert_int_equal(a.basis, HP_BASIS_MEASURED);
	assert_int_equal(a.halt_exit_ns, 10000);
	assert_int_equal(a.saved_ns, 40000);
	assert_true(a.limit_known);
	assert_int_equal(a.limit_ns, 40000);
	assert_int_equal(b.basis, HP_BASIS_DECLARED);
	assert_int_equal(b.saved_ns, 3000);
	assert_int_equal(b.unresolved, 0);
	assert_false(b.limit_known);
	/* no halt state at all: nothing saved, basis none */
	c = haltpoll_of(&(struct haltpoll_input){ .raw = &raw1, .polls = 3 });
	assert_int_equal(c.basis, HP_BASIS_NONE);
	assert_int_equal(c.saved_ns, 0);
	assert_null(haltpoll_basis_name(c.basis));
	/* more told ends than counted polls (a poll before the window): none untold */
	c = haltpoll_of(&(struct haltpoll_input){ .raw = &raw0, .polls = 2 });
	assert_int_equal(c.unresolved, 0);
}

static void test_totals(void **state)
{
	struct haltpoll_summary t = { .known = true }, a = cpu0(), b = cpu1();

	(void)state;
	haltpoll_add(&t, &b); /* the one without a limit first */
	haltpoll_add(&t, &a);
	assert_int_equal(t.polls, 13);
	assert_int_equal(t.woken, 7);
	assert_int_equal(t.timed_out, 5);
	assert_int_equal(t.unresolved, 1);
	assert_int_equal(t.saved_ns, 43000);
	assert_string_equal(haltpoll_basis_name(t.basis), "mixed");
	assert_true(t.limit_known);
	assert_int_equal(t.limit_min_ns, 10000);
	assert_int_equal(t.limit_max_ns, 80000);
}

static struct cpu_summary cpus[2];
static struct summary sum;

static void build(void)
{
	memset(&sum, 0, sizeof(sum));
	memset(cpus, 0, sizeof(cpus));
	snprintf(sum.sys.driver, sizeof(sum.sys.driver), "haltpoll");
	snprintf(sum.sys.governor, sizeof(sum.sys.governor), "haltpoll");
	sum.sys.guest_halt_poll_ns = 200000;
	sum.duration_ns = 1000000; /* 1 ms: CPU0 polled 50% of it */
	sum.nr_cpus = 2;
	sum.cpus = cpus;
	cpus[0].cpu = 0;
	cpus[0].haltpoll = cpu0();
	cpus[1].cpu = 1;
	cpus[1].haltpoll = cpu1();
	sum.totals.cpu = -1;
	sum.totals.haltpoll = (struct haltpoll_summary){ .known = true };
	haltpoll_add(&sum.totals.haltpoll, &cpus[0].haltpoll);
	haltpoll_add(&sum.totals.haltpoll, &cpus[1].haltpoll);
}

static void test_json(void **state)
{
	json_t *o, *c0, *c1, *t;

	(void)state;
	build();
	o = haltpoll_json(&sum);
	assert_true(json_is_object(o));
	assert_int_equal(json_integer_value(json_object_get(o, "guest_halt_poll_ns")), 200000);
	c0 = json_array_get(json_object_get(o, "cpus"), 0);
	c1 = json_array_get(json_object_get(o, "cpus"), 1);
	t = json_object_get(o, "total");
	assert_int_equal(json_integer_value(json_object_get(c0, "woken")), 4);
	assert_int_equal(json_integer_value(json_object_get(c0, "unresolved")), 1);
	assert_int_equal(json_integer_value(json_object_get(c0, "limit_ns")), 40000);
	assert_int_equal(json_integer_value(json_object_get(c0, "halt_exit_ns")), 10000);
	assert_string_equal(json_string_value(json_object_get(c0, "saved_basis")), "measured");
	assert_true(json_is_null(json_object_get(c1, "limit_ns")));
	assert_true(json_is_null(json_object_get(c1, "limit_min_ns")));
	assert_int_equal(json_integer_value(json_object_get(t, "saved_ns")), 43000);
	assert_true(json_is_null(json_object_get(t, "limit_ns")));
	assert_int_equal(json_integer_value(json_object_get(t, "limit_max_ns")), 80000);
	assert_null(json_object_get(t, "cpu"));
	json_decref(o);
	/* not counted: null, and no table section */
	sum.totals.haltpoll.known = false;
	o = haltpoll_json(&sum);
	assert_true(json_is_null(o));
	json_decref(o);
}

static void test_table(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	build();
	f = open_memstream(&buf, &len);
	render_haltpoll_table(f, &sum);
	fclose(f);
	assert_non_null(strstr(buf, "guest_halt_poll_ns 200000"));
	/* CPU0: 10 polls, 500us = 50.00% of 1 ms, 4 woken, 5 timed out, 1 untold */
	assert_non_null(strstr(buf, "  0           10     500us  50.00%        4         5          1"));
	assert_non_null(strstr(buf, "40.0us measured"));
	assert_non_null(strstr(buf, "43.0us mixed"));
	free(buf);
	buf = NULL;
	sum.totals.haltpoll.known = false;
	f = open_memstream(&buf, &len);
	render_haltpoll_table(f, &sum);
	fclose(f);
	assert_int_equal(len, 0);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_per_cpu),
		cmocka_unit_test(test_totals),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_table),
	};

	return cmocka_run_group_tests_name("render-haltpoll", tests, NULL, NULL);
}
