/* Unit tests for user/render/render_poll_advice.c: advise's halt-polling
 * part from a hand-made hp_advice: its JSON, its text and the ab line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "render/render_poll_advice.h"

static const struct hp_advice_in in = { .known = true, .have_param = true,
					.guest_halt_poll_ns = 200000, .nr_cpus = 2, .polls = 13,
					.poll_ns = 530000, .woken = 7, .timed_out = 5, .grow = 2,
					.shrink = 4 };
static const struct hp_advice adv = { .goal = HP_GOAL_LATENCY, .waits = 12, .halt_exit_ns = 30000,
				      .proposed_ns = 15000, .poll_ns = 115000, .caught = 8,
				      .saved_ns = 240000, .have_current = true,
				      .cur_poll_ns = 655000, .cur_caught = 12, .hold_limit = true };

static char *text(const json_t *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	poll_advice_print(f, p);
	fclose(f);
	return buf;
}

static void test_latency(void **state)
{
	json_t *p = poll_advice_json(&adv, &in, 10000, 2.0 / 3), *tables;
	char *t, *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_string_equal(json_string_value(json_object_get(p, "goal")), "latency_target");
	assert_true(json_is_null(json_object_get(p, "budget_ns")));
	assert_int_equal(json_integer_value(json_object_get(p, "proposed_guest_halt_poll_ns")), 15000);
	assert_int_equal(json_integer_value(json_object_get(p, "current_guest_halt_poll_ns")), 200000);
	assert_true(json_real_value(json_object_get(json_object_get(p, "current"), "caught")) == 12);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(p, "measured"), "timed_out")), 5);
	t = text(p);
	assert_non_null(strstr(t, "for a wake latency of 10.0us at p66.6667 (a halt's wake costs 30.0us)"));
	assert_non_null(strstr(t, "measured: 13 polls, 530us polling, 7 woken, 5 timed out; 12 waits"));
	assert_non_null(strstr(t, "now guest_halt_poll_ns 200us: model 655us polling, 12 waits caught (100.0%)"));
	/* 8 of 12 = 66.7% */
	assert_non_null(strstr(t, "proposed guest_halt_poll_ns 15000 (15.0us): 115us polling, 8 waits "
				  "caught (66.7%), 240us of wake latency saved"));
	assert_non_null(strstr(t, "verify: idlescope ab --set guest_halt_poll_ns=200000,15000"));
	assert_non_null(strstr(t, "the limit shrank 4 times against 2 grows"));
	assert_true(json_is_true(json_object_get(p, "hold_limit")));
	free(t);
	/* the ab line from the tables */
	tables = json_pack("[{s:o}]", "halt_polling", p);
	f = open_memstream(&buf, &len);
	assert_int_equal(poll_advice_write_ab(f, tables), 1);
	fclose(f);
	assert_non_null(strstr(buf, "\nguest_halt_poll_ns=200000,15000\n"));
	free(buf);
	json_decref(tables);
}

static void test_budget_no_current(void **state)
{
	struct hp_advice_in r = in;
	struct hp_advice b = adv;
	json_t *p, *tables;
	char *t, *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	r.have_param = false; /* a replayed trace */
	b.goal = HP_GOAL_BUDGET;
	b.have_current = false;
	b.hold_limit = false;
	p = poll_advice_json(&b, &r, 140000, 0);
	assert_true(json_real_value(json_object_get(p, "budget_ns")) == 140000);
	assert_true(json_is_null(json_object_get(p, "current")));
	assert_true(json_is_null(json_object_get(p, "current_guest_halt_poll_ns")));
	t = text(p);
	assert_non_null(strstr(t, "for a poll-time budget of 140us over the window and 2 CPUs"));
	assert_null(strstr(t, "now guest_halt_poll_ns"));
	assert_null(strstr(t, "verify:"));
	assert_null(strstr(t, "shrank"));
	free(t);
	/* nothing to compare against: no ab line */
	tables = json_pack("[{s:o}]", "halt_polling", p);
	f = open_memstream(&buf, &len);
	assert_int_equal(poll_advice_write_ab(f, tables), 0);
	fclose(f);
	free(buf);
	json_decref(tables);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_latency),
		cmocka_unit_test(test_budget_no_current),
	};

	return cmocka_run_group_tests_name("render-poll-advice", tests, NULL, NULL);
}
