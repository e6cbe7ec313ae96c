/* Unit tests for user/advise/haltpoll_advise.c: the waits from the POLL and
 * halt histograms, poll time and catches under a ceiling, the ceiling for a
 * budget or a latency target, and the summary's figures; every number
 * worked out by hand below. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "advise/haltpoll_advise.h"

#define US 1000ULL

/* POLL: 6 periods in [0, 10) us, 4 in [10, 20) us, 2 of them timed out
 * (the longest): [10, 20) keeps 2, its lower part [10, 15) us.
 * Halt: 4 periods in [100, 200) us.
 * Waits: [0,10):6, [10,15):2, [100,200):4 = 12. */
static const struct hist_bin poll[] = { { 0, 10 * US, 6 }, { 10 * US, 20 * US, 4 } };
static const struct hist_bin halt[] = { { 100 * US, 200 * US, 4 } };

static struct adv_dist waits(struct hist_bin *buf)
{
	int n = hp_waits(poll, 2, 2, halt, 1, buf);

	return (struct adv_dist){ n, buf };
}

static void test_waits(void **state)
{
	struct hist_bin b[3];
	struct adv_dist w = waits(b);

	(void)state;
	assert_int_equal(w.n, 3);
	assert_int_equal(b[0].lo, 0);
	assert_int_equal(b[0].hi, 10 * US);
	assert_true(b[0].count == 6);
	assert_int_equal(b[1].lo, 10 * US);
	assert_int_equal(b[1].hi, 15 * US);
	assert_true(b[1].count == 2);
	assert_int_equal(b[2].lo, 100 * US);
	assert_true(adv_total(&w) == 12);
	/* more timed out than polls in the top bucket: the next one gives too */
	w.n = hp_waits(poll, 2, 5, halt, 1, b);
	assert_int_equal(w.n, 2);
	assert_int_equal(b[0].hi, 8333); /* 5 of [0, 10 us) left: its lower 5/6, [0, 8333 ns) */
	assert_true(b[0].count == 5);
}

static void test_poll_time_and_catches(void **state)
{
	struct hist_bin b[3];
	struct adv_dist w = waits(b);

	(void)state;
	/* L = 50 us: 6 x 5 + 2 x 12.5 polled and caught, 4 x 50 polled then halted */
	assert_true(hp_poll_time(&w, 50 * US) == 255 * US);
	assert_true(hp_caught(&w, 50 * US) == 8);
	/* L = 150 us: half the halts' bucket caught at a mean of 125 us, the
	 * other half polls 150: 30 + 25 + 2 x 125 + 2 x 150 = 605 us */
	assert_true(hp_poll_time(&w, 150 * US) == 605 * US);
	assert_true(hp_caught(&w, 150 * US) == 10);
	/* L = 0: nothing polled, nothing caught */
	assert_true(hp_poll_time(&w, 0) == 0);
	assert_true(hp_caught(&w, 0) == 0);
	/* past the longest wait: everything caught, poll time = the waits' sum */
	assert_true(hp_poll_time(&w, 1000 * US) == (30 + 25 + 600) * US);
}

static void test_limits(void **state)
{
	struct hist_bin b[3];
	struct adv_dist w = waits(b);

	(void)state;
	/* between 15 and 100 us poll time is 55 + 4 L us: 255 us at L = 50 us */
	assert_int_equal(hp_limit_for_budget(&w, 255 * US), 50 * US);
	/* a budget above everything: the longest wait, 200 us */
	assert_int_equal(hp_limit_for_budget(&w, 10000 * US), 200 * US);
	/* a budget of 0 polls nothing */
	assert_int_equal(hp_limit_for_budget(&w, 0), 0);
	/* 2/3 of 12 = 8 waits caught: the top of [10, 15) */
	assert_int_equal(hp_limit_for_share(&w, 8.0 / 12), 15 * US);
	/* half: 6, the top of [0, 10) */
	assert_int_equal(hp_limit_for_share(&w, 0.5), 10 * US);
}

static void test_advise(void **state)
{
	struct hist_bin b[3];
	struct adv_dist w = waits(b);
	struct hp_advice_in in = { .known = true, .have_param = true, .guest_halt_poll_ns = 200 * US };
	struct hp_advice a;

	(void)state;
	/* a halt costs 30 us; the target 10 us for 2/3 of the waits: 15 us */
	hp_advise(&w, 30 * US, HP_GOAL_LATENCY, 10 * US, 8.0 / 12, &in, &a);
	assert_false(a.halt_fits);
	assert_int_equal(a.proposed_ns, 15 * US);
	assert_true(a.caught == 8);
	assert_true(a.poll_ns == (30 + 25 + 4 * 15) * US);
	assert_true(a.saved_ns == 8 * 30 * US);
	assert_true(a.have_current);
	/* at 200 us: 30 + 25 + 4 x 150 = 655 us, all 12 caught */
	assert_true(a.cur_poll_ns == 655 * US);
	assert_true(a.cur_caught == 12);
	assert_false(a.hold_limit); /* no shrink in the recording */
	/* a recording whose limit shrank as often as it grew: hold it */
	in.grow = 3;
	in.shrink = 3;
	hp_advise(&w, 30 * US, HP_GOAL_LATENCY, 10 * US, 8.0 / 12, &in, &a);
	assert_true(a.hold_limit);
	in.shrink = 2;
	hp_advise(&w, 30 * US, HP_GOAL_LATENCY, 10 * US, 8.0 / 12, &in, &a);
	assert_false(a.hold_limit);
	in.shrink = 3;
	/* a target the halt meets: no polling */
	hp_advise(&w, 30 * US, HP_GOAL_LATENCY, 40 * US, 0.99, &in, &a);
	assert_true(a.halt_fits);
	assert_int_equal(a.proposed_ns, 0);
	assert_true(a.poll_ns == 0);
	assert_false(a.hold_limit); /* nothing to hold */
	/* a budget of 255 us: shrinks help it, nothing to hold */
	hp_advise(&w, 30 * US, HP_GOAL_BUDGET, 255 * US, 0, &in, &a);
	assert_false(a.hold_limit);
	hp_advise(&w, 30 * US, HP_GOAL_BUDGET, 255 * US, 0, NULL, &a);
	assert_int_equal(a.proposed_ns, 50 * US);
	assert_true(a.saved_ns == 8 * 30 * US);
	assert_false(a.have_current);
}

static void test_load(void **state)
{
	json_t *doc = json_loads(
		"{\"haltpoll\": {\"guest_halt_poll_ns\": 200000, \"cpus\": ["
		"{\"cpu\": 0, \"polls\": 10, \"poll_ns\": 500, \"woken\": 4, \"timed_out\": 5,"
		" \"saved_ns\": 40, \"grow\": 2, \"shrink\": 1},"
		"{\"cpu\": 1, \"polls\": 3, \"poll_ns\": 30, \"woken\": 3, \"timed_out\": 0,"
		" \"saved_ns\": null}]}}", 0, NULL);
	struct hp_advice_in in;
	struct cpulist one;
	char err[128];

	(void)state;
	assert_non_null(doc);
	assert_int_equal(hp_advice_load(doc, NULL, &in, err, sizeof(err)), 0);
	assert_true(in.known && in.have_param);
	assert_int_equal(in.nr_cpus, 2);
	assert_int_equal(in.polls, 13);
	assert_int_equal(in.timed_out, 5);
	assert_int_equal(in.saved_ns, 40);
	assert_int_equal(in.grow, 2);
	assert_int_equal(in.shrink, 1);
	assert_int_equal(cpulist_parse("1", &one, err, sizeof(err)), 0);
	assert_int_equal(hp_advice_load(doc, &one, &in, err, sizeof(err)), 0);
	assert_int_equal(in.nr_cpus, 1);
	assert_int_equal(in.woken, 3);
	json_decref(doc);
	/* a replay: no parameter; null: not known */
	doc = json_loads("{\"haltpoll\": {\"guest_halt_poll_ns\": null, \"cpus\": []}}", 0, NULL);
	assert_int_equal(hp_advice_load(doc, NULL, &in, err, sizeof(err)), 0);
	assert_true(in.known);
	assert_false(in.have_param);
	json_decref(doc);
	doc = json_loads("{\"haltpoll\": null}", 0, NULL);
	assert_int_equal(hp_advice_load(doc, NULL, &in, err, sizeof(err)), 0);
	assert_false(in.known);
	json_decref(doc);
	doc = json_loads("{\"haltpoll\": {\"cpus\": [{\"polls\": 1}]}}", 0, NULL);
	assert_int_equal(hp_advice_load(doc, NULL, &in, err, sizeof(err)), -1);
	assert_string_equal(err, "haltpoll.cpus[0]: no cpu");
	json_decref(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_waits),
		cmocka_unit_test(test_poll_time_and_catches),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_advise),
		cmocka_unit_test(test_load),
	};

	return cmocka_run_group_tests_name("haltpoll-advise", tests, NULL, NULL);
}
