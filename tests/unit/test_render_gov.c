/* Unit tests for user/render/render_gov.c and user/report/report_gov.c: a
 * hand-made summary's governor split renders to the expected cells (counts,
 * shares of the misses), the states with no known period are left out, and
 * where the inputs were not watched the section says why in one line; the
 * report's cells carry each number at its JSON path. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <jansson.h>

#include "render/render_gov.h"
#include "report/report_gov.h"

static char *render(const struct summary *s)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	render_gov_table(f, s);
	fclose(f);
	return text;
}

static void fill(struct summary *s, struct cpu_summary *c)
{
	memset(s, 0, sizeof(*s));
	memset(c, 0, sizeof(*c));
	c->cpu = 3;
	c->nr_states = 3;
	for (int i = 0; i < 3; i++) {
		c->states[i].classified = true;
		snprintf(c->states[i].name, sizeof(c->states[i].name), "C%d", i);
	}
	/* C1: 40 known; too deep 10 = 3 near + 7 woken early */
	c->states[1].gov = (struct gov_split){ .known = 40, .above_near = 3, .above_unannounced = 7 };
	/* C0: 20 known; too shallow 4 = 1 tick + 2 predicted short + 1 timer moved */
	c->states[0].gov = (struct gov_split){ .known = 20, .below_tick = 1, .below_history = 2,
					       .below_timer = 1 };
	s->cpus = c;
	s->nr_cpus = 1;
	s->gov_inputs = true;
}

static void test_split_cells(void **state)
{
	struct summary s;
	struct cpu_summary c;
	char *t;

	(void)state;
	fill(&s, &c);
	t = render(&s);
	assert_non_null(strstr(t, "Why the governor missed"));
	/* C1: known 40, deep 10, 3 (30%), 7 (70%), shallow 0 */
	assert_non_null(strstr(t, "  3    C1                   40       10      3 (30%)      7 (70%)"
				  "        0            0            0            0\n"));
	/* C0: known 20, deep 0, shallow 4: 1 (25%), 2 (50%), 1 (25%) */
	assert_non_null(strstr(t, "  3    C0                   20        0            0            0"
				  "        4      1 (25%)      2 (50%)      1 (25%)\n"));
	/* C2 had no known period */
	assert_null(strstr(t, "C2 "));
	free(t);
}

static void test_wakes_cells(void **state)
{
	struct summary s;
	struct cpu_summary c;
	char *t;

	(void)state;
	fill(&s, &c);
	/* C1's 7 woken early: 5 by reschedule IPIs, 2 by an IRQ; 30 periods a
	 * timer ended: 4 by the kept tick first, 22 as told, 3 later, 1
	 * earlier, |error| of the 26 others summing 13 us: mean 500 ns */
	c.states[1].gov.above_cause[WAKE_IPI_RESCHED] = 5;
	c.states[1].gov.above_cause[WAKE_IRQ] = 2;
	c.states[1].gov.timer_known = 30;
	c.states[1].gov.timer_later = 3;
	c.states[1].gov.timer_earlier = 1;
	c.states[1].gov.timer_tick_first = 4;
	c.states[1].gov.timer_err_sum_ns = 13000;
	t = render(&s);
	assert_null(strstr(t, "What ended them")); /* wakeups off: not said */
	free(t);
	s.wake_enabled = true;
	t = render(&s);
	assert_non_null(strstr(t, "What ended them"));
	assert_non_null(strstr(t, "  3    C1                   30       22        4        3        1"
				  "      500ns  irq 2, ipi-resched 5\n"));
	/* C0: no timer-ended period, no cause */
	assert_non_null(strstr(t, "  3    C0                    0        0        0        0        0"
				  "          -  -\n"));
	free(t);
}

static void test_not_watched(void **state)
{
	struct summary s;
	struct cpu_summary c;
	char *t;

	(void)state;
	fill(&s, &c);
	s.gov_inputs = false;
	s.gov_why = "fentry/fexit refused here (Operation not permitted on vfs_read)";
	t = render(&s);
	assert_string_equal(t, "\nWhy the governor missed: not known here (fentry/fexit refused "
			       "here (Operation not permitted on vfs_read))\n");
	free(t);
	/* no state table: nothing to split, nothing said */
	c.states[0].classified = false;
	t = render(&s);
	assert_string_equal(t, "");
	free(t);
}

static char *report(const char *json)
{
	json_t *doc = json_loads(json, 0, NULL);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(doc);
	report_gov_section(f, 0, doc);
	fclose(f);
	json_decref(doc);
	return text;
}

static void test_report_cells(void **state)
{
	char *t;

	(void)state;
	t = report("{\"governor_inputs\": {\"watched\": true, \"reason\": \"\"},"
		   " \"cpus\": [{\"cpu\": 1, \"states\": [{\"name\": \"C1\", \"above\": 10,"
		   " \"below\": 0, \"below_qos\": 0, \"governor\": {\"known_periods\": 40,"
		   " \"above_timer_near\": 3, \"above_woken_before_timer\": 7, \"below_tick_kept\": 0,"
		   " \"below_predicted_short\": 0, \"below_timer_moved\": 0}},"
		   " {\"name\": \"POLL\", \"governor\": null}]}],"
		   " \"totals\": {\"states\": []}}");
	assert_non_null(strstr(t, "<td>cpu 1</td><td>C1</td>"));
	assert_non_null(strstr(t, "data-p=\"cpus.0.states.0.governor.above_woken_before_timer\" data-v=\"7\""));
	assert_non_null(strstr(t, "data-p=\"cpus.0.states.0.above\" data-v=\"10\""));
	assert_null(strstr(t, "POLL"));
	free(t);
	t = report("{\"governor_inputs\": {\"watched\": false, \"reason\": \"left out (--without fexit)\"}}");
	assert_non_null(strstr(t, "Not known here: left out (--without fexit).</p>"));
	free(t);
	t = report("{}");
	assert_string_equal(t, "");
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_cells),
		cmocka_unit_test(test_wakes_cells),
		cmocka_unit_test(test_not_watched),
		cmocka_unit_test(test_report_cells),
	};

	return cmocka_run_group_tests_name("render_gov", tests, NULL, NULL);
}
