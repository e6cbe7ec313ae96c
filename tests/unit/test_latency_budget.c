/* Unit tests for the latency-budget advisor (user/advise/latency_budget.c)
 * on the test guests' ACPI table (POLL 0, C1 1 us, C2 50 us, C3 400 us
 * declared), with answers worked out by hand in the comments. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "advise/latency_budget.h"

#define US 1000ULL

/* Measured p99s: POLL 2 us (measured), C1 30 us, C2 80 us, C3 (no
 * samples: declared 400 us). Periods/time: POLL 100/1 ms, C1 50/5 ms, C2
 * 20/40 ms, C3 10/100 ms. */
static void guest(struct lb_state st[4])
{
	st[0] = (struct lb_state){ true, 0, true, 2 * US, 100, 1000 * US };
	st[1] = (struct lb_state){ true, 1 * US, true, 30 * US, 50, 5000 * US };
	st[2] = (struct lb_state){ true, 50 * US, true, 80 * US, 20, 40000 * US };
	st[3] = (struct lb_state){ true, 400 * US, false, 0, 10, 100000 * US };
}

/* 50 us: C2 (80 measured) and C3 (400 declared) out; their 30 periods and
 * 140 ms go to C1; QoS = C1's declared 1 us leaves out C2 (50 > 1) and C3;
 * afterwards p99 <= C1's 30 us. */
static void test_budget_50us(void **state)
{
	struct lb_state st[4];
	struct lb_result r;

	(void)state;
	guest(st);
	lb_advise(st, 4, 50 * US, &r);
	assert_true(r.feasible);
	assert_int_equal(r.disable, 0xc);
	assert_int_equal(r.deepest_kept, 1);
	assert_true(r.qos_ok);
	assert_int_equal(r.qos_us, 1);
	assert_int_equal(r.moved_entries, 30);
	assert_int_equal(r.moved_ns, 140000 * US);
	assert_int_equal(r.predicted_ns, 30 * US);
	assert_int_equal(r.predicted_declared, -1); /* C1 and POLL measured */
}

/* 100 us: only C3 out (400 > 100); QoS 50 us (C2's declared) leaves it out
 * (400 > 50); its 10 periods go to C2: bound 80 us. */
static void test_budget_100us(void **state)
{
	struct lb_state st[4];
	struct lb_result r;

	(void)state;
	guest(st);
	lb_advise(st, 4, 100 * US, &r);
	assert_int_equal(r.disable, 0x8);
	assert_true(r.qos_ok);
	assert_int_equal(r.qos_us, 50);
	assert_int_equal(r.moved_entries, 10);
	assert_int_equal(r.predicted_ns, 80 * US);
}

/* The haltpoll host's table: POLL 0 us declared with 2 samples (not
 * measured), "haltpoll idle" 1 us declared, 600 us measured. A budget
 * just under 600 us leaves haltpoll idle out; its periods go to POLL,
 * whose latency is only declared (0): the bound is 0 and says so. */
static void test_budget_declared_bound(void **state)
{
	struct lb_state st[2] = {
		{ true, 0, false, 0, 60, 1000 * US },
		{ true, 1 * US, true, 600 * US, 2909, 2000000 * US },
	};
	struct lb_result r;

	(void)state;
	lb_advise(st, 2, 599 * US, &r);
	assert_true(r.feasible);
	assert_int_equal(r.disable, 0x2);
	assert_int_equal(r.predicted_ns, 0);
	assert_int_equal(r.predicted_declared, 0);
}

/* 1 ms: everything fits, nothing moves; the bound is C3's 400 us
 * (declared: it had periods and no samples). 1 us: even POLL's measured
 * 2 us does not fit: infeasible; every deeper state is out. */
static void test_budget_loose_and_impossible(void **state)
{
	struct lb_state st[4];
	struct lb_result r;

	(void)state;
	guest(st);
	lb_advise(st, 4, 1000 * US, &r);
	assert_true(r.feasible);
	assert_int_equal(r.disable, 0);
	assert_int_equal(r.moved_entries, 0);
	assert_int_equal(r.predicted_ns, 400 * US);
	assert_int_equal(r.predicted_declared, 3); /* C3: no samples */
	assert_int_equal(r.qos_us, 400);
	lb_advise(st, 4, 1 * US, &r);
	assert_false(r.feasible);
	assert_int_equal(r.disable, 0xe);
	assert_int_equal(r.deepest_kept, 0);
	assert_int_equal(r.qos_us, 0);
	assert_true(r.qos_ok);
}

/* QoS cannot say it: C2 measured 80 us out at 60 us, but C3 measured 40 us
 * (declared 400) stays: a left-out state shallower than a kept one (menu
 * stops at the first state over the limit). Disabled states are skipped. */
static void test_qos_cannot(void **state)
{
	struct lb_state st[4];
	struct lb_result r;

	(void)state;
	guest(st);
	st[3].measured = true;
	st[3].measured_ns = 40 * US;
	lb_advise(st, 4, 60 * US, &r);
	assert_int_equal(r.disable, 0x4);
	assert_int_equal(r.deepest_kept, 3);
	assert_false(r.qos_ok);
	assert_int_equal(r.qos_blocker, 2);
	/* C2's periods go to C1 (30 us); C3 keeps its own (40 us) */
	assert_int_equal(r.predicted_ns, 40 * US);
	st[2].enabled = false; /* already disabled: not proposed, not moved */
	lb_advise(st, 4, 60 * US, &r);
	assert_int_equal(r.disable, 0);
	assert_int_equal(r.moved_entries, 0);
}

/* A declared latency that is not above the kept ones: C2 declares 1 us
 * like C1 but measures 80 us: QoS 1 us would keep it. */
static void test_qos_declared_too_low(void **state)
{
	struct lb_state st[4];
	struct lb_result r;

	(void)state;
	guest(st);
	st[2].declared_ns = 1 * US;
	lb_advise(st, 4, 50 * US, &r);
	assert_int_equal(r.disable, 0xc);
	assert_false(r.qos_ok);
	assert_int_equal(r.qos_blocker, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_budget_50us),
		cmocka_unit_test(test_budget_100us),
		cmocka_unit_test(test_budget_declared_bound),
		cmocka_unit_test(test_budget_loose_and_impossible),
		cmocka_unit_test(test_qos_cannot),
		cmocka_unit_test(test_qos_declared_too_low),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
