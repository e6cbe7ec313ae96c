/* Unit tests for user/render/render_top.c: top's screen layout on summaries
 * built by hand: 80x24 holds, with many CPUs and states. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "render/render_top.h"

static const char *const long_names[IS_MAX_STATES] = {
	"POLL", "C1", "C1E", "C3-deep-package", "C6", "C7s", "C8", "C9", "C10", "cluster-sleep-0",
};

/* ncpu CPUs, nst states, 1 s window: CPU c busy (c % 4) * 25 %, the rest
 * of its time in its last state; one group over all CPUs. */
static void fake_summary(struct summary *s, int ncpu, int nst)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->sys.driver, sizeof(s->sys.driver), "intel_idle");
	snprintf(s->sys.governor, sizeof(s->sys.governor), "menu");
	s->duration_ns = 1000000000ULL;
	s->nr_cpus = ncpu;
	s->cpus = calloc((size_t)ncpu, sizeof(*s->cpus));
	s->wake_enabled = true;
	for (int c = 0; c < ncpu; c++) {
		struct cpu_summary *cs = &s->cpus[c];

		cs->cpu = c;
		cs->nr_states = nst;
		for (int i = 0; i < nst; i++) {
			cs->states[i].index = i;
			cs->states[i].classified = true;
			snprintf(cs->states[i].name, IS_NAME_LEN, "%s", long_names[i]);
		}
		cs->busy_ns = (uint64_t)(c % 4) * 250000000ULL;
		cs->states[nst - 1].time_ns = s->duration_ns - cs->busy_ns;
		cs->states[nst - 1].below = 10;
		cs->wake.count[WAKE_TIMER] = 100;
		cs->wake.count[WAKE_IPI_RESCHED] = 20;
		cs->wake.total = 120;
		s->totals.busy_ns += cs->busy_ns;
	}
	s->totals.nr_states = nst;
	for (int i = 0; i < nst; i++) {
		s->totals.states[i] = s->cpus[0].states[i];
		for (int c = 1; c < ncpu; c++)
			s->totals.states[i].time_ns += s->cpus[c].states[i].time_ns;
	}
	s->totals.wake.count[WAKE_TIMER] = 100ULL * (uint64_t)ncpu;
	s->totals.wake.total = 120ULL * (uint64_t)ncpu;
	s->nr_groups = 1;
	s->groups = calloc(1, sizeof(*s->groups));
	snprintf(s->groups[0].name, sizeof(s->groups[0].name), "package0");
	if (asprintf(&s->groups[0].cpus, "0-%d", ncpu - 1) < 0)
		abort();
	s->groups[0].nr_states = nst;
	for (int i = 0; i < nst; i++) {
		s->groups[0].states[i].index = i;
		snprintf(s->groups[0].states[i].name, IS_NAME_LEN, "%s", long_names[i]);
	}
	s->nr_wake_rows = 12;
	s->wake_rows = calloc(12, sizeof(*s->wake_rows));
	for (int i = 0; i < 12; i++) {
		struct wake_row *r = &s->wake_rows[i];

		r->kind = i % 2 ? WDETAIL_WAKEE : WDETAIL_TIMER_FN;
		r->count = 1000 - (uint64_t)i;
		snprintf(r->name, sizeof(r->name), "%s", i % 2 ? "a-very-long-task-name" : "hrtimer_wakeup_long_function_name");
	}
}

static void free_fake(struct summary *s)
{
	free(s->cpus);
	free(s->groups[0].cpus);
	free(s->groups);
	free(s->wake_rows);
}

static int find(const struct top_text *t, const char *prefix)
{
	for (int i = 0; i < t->nr; i++)
		if (!strncmp(t->lines[i], prefix, strlen(prefix)))
			return i;
	return -1;
}

/* 64 CPUs and 10 states with long names in 80x24: every line fits, the
 * footer is on the last row and says which rows are shown. */
static void test_fits_80x24(void **state)
{
	struct summary s;
	struct top_layout l = { .width = 80, .height = 24, .footer = true, .clock = "12:00:00" };
	struct top_text t = { 0 };

	(void)state;
	fake_summary(&s, 64, 10);
	assert_int_equal(render_top(&s, &l, &t), 0);
	assert_true(t.nr <= 24);
	for (int i = 0; i < t.nr; i++)
		assert_true(strlen(t.lines[i]) <= 80);
	assert_int_equal(t.nr_rows, 65);
	assert_true(t.shown >= 4 && t.shown < 65);
	assert_non_null(strstr(t.lines[t.nr - 1], "q quit"));
	assert_non_null(strstr(t.lines[t.nr - 1], "rows 1-"));
	assert_true(find(&t, "states:") >= 0); /* the names were cut: a legend */
	assert_true(find(&t, "0 ") >= 0);
	top_text_free(&t);
	/* scrolled past the end: clamped to the last page, the group row shown */
	l.scroll = 1000;
	assert_int_equal(render_top(&s, &l, &t), 0);
	assert_int_equal(t.scroll, 65 - t.shown);
	assert_true(find(&t, "package0") >= 0);
	assert_true(find(&t, "63 ") >= 0);
	top_text_free(&t);
	free_fake(&s);
}

/* Plain lines: every CPU row, busy and the state share from the summary. */
static void test_plain_rows(void **state)
{
	struct summary s;
	struct top_layout l = { .width = 512 };
	struct top_text t = { 0 };
	int i;

	(void)state;
	fake_summary(&s, 8, 3);
	assert_int_equal(render_top(&s, &l, &t), 0);
	assert_int_equal(t.shown, 9);
	i = find(&t, "3 ");
	assert_true(i >= 0);
	/* CPU 3: busy 75.0, POLL 0.0, C1 0.0, C1E 25.0, below 10/s, wake 120/s */
	{
		char label[8];
		double busy, s0, s1, s2, above, below, wake;

		assert_int_equal(sscanf(t.lines[i], "%7s %lf %lf %lf %lf %lf %lf %lf", label, &busy,
					&s0, &s1, &s2, &above, &below, &wake),
				 8);
		assert_true(busy == 75.0 && s0 == 0 && s1 == 0 && s2 == 25.0);
		assert_true(above == 0 && below == 10 && wake == 120);
	}
	i = find(&t, "all ");
	assert_true(i >= 0);
	assert_non_null(strstr(t.lines[1], "wakeups/s 960: timer 800"));
	/* no exit cost known (the fake's totals have none): no line */
	assert_int_equal(find(&t, "exit cost"), -1);
	top_text_free(&t);
	/* 8 CPUs x 1 s: declared 8 ms = 0.10%, measured 16 ms = 0.20% over 240
	 * of 960 periods = 25%, early 40 ms = 0.50% */
	s.totals.entries = 960;
	s.totals.exit = (struct exit_cost){ .declared_known = true, .declared_ns = 8000000,
					    .measured_known = true, .measured_ns = 16000000,
					    .measured_periods = 240, .early_known = true,
					    .early_ns = 40000000 };
	memset(&t, 0, sizeof(t));
	assert_int_equal(render_top(&s, &l, &t), 0);
	assert_string_equal(t.lines[2], "exit cost (of the CPUs' time): declared 0.10%, measured "
					"0.20% (25% of periods); early 0.50%");
	top_text_free(&t);
	free_fake(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fits_80x24),
		cmocka_unit_test(test_plain_rows),
	};

	return cmocka_run_group_tests_name("render_top", tests, NULL, NULL);
}
