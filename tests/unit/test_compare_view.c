/* Unit tests for user/model/compare_view.c and its text in
 * render_compare.c (render_compare_view): hand-made summaries with known
 * values, every cell's number worked out by hand below. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model/compare_view.h"
#include "render/render_compare.h"

/* A 2-CPU summary of 10 ms, one group cluster0 = CPUs 0-1; state C1 with
 * the given totals, C2 entered e2 times for t2 ns; each CPU has above a1
 * in C1; totals' wakeups: timer w. */
static json_t *doc(double t1, double e1, double t2, double e2, double a1, double w)
{
	json_t *st_tot = json_pack("[{s:s,s:f,s:f,s:f,s:f,s:f},{s:s,s:f,s:f,s:f,s:f,s:f}]", "name",
				   "C1", "time_ns", t1, "share", t1 / 2e7, "entries", e1, "above",
				   2 * a1, "below", 0.0, "name", "C2", "time_ns", t2, "share", t2 / 2e7,
				   "entries", e2, "above", 0.0, "below", 0.0);
	json_t *cpus = json_array();

	for (int c = 0; c < 2; c++)
		json_array_append_new(
			cpus, json_pack("{s:i,s:[{s:s,s:f,s:f,s:f,s:f,s:f}],s:{s:{s:{s:f}}}}", "cpu", c,
					"states", "name", "C1", "time_ns", t1 / 2, "share", t1 / 2e7,
					"entries", e1 / 2, "above", a1, "below", 1.0, "wakeups",
					"causes", "timer", "count", w / 2));
	return json_pack("{s:s,s:f,s:o,s:{s:o,s:{s:{s:{s:f}}}},s:{s:[{s:s,s:s,s:[{s:s,s:f,s:f}]}]}}",
			 "schema", "idlescope/1", "duration_ns", 1e7, "cpus", cpus, "totals",
			 "states", st_tot, "wakeups", "causes", "timer", "count", w, "groups",
			 "groups", "name", "cluster0", "cpus", "0-1", "states", "name", "C1",
			 "periods", e1 / 4, "time_ns", t1 / 4);
}

static const struct cv_row *row(const struct cv_table *t, const char *entity, const char *label)
{
	for (int r = 0; r < t->nrows; r++)
		if (!strcmp(t->rows[r].entity, entity) && !strcmp(t->rows[r].label, label))
			return &t->rows[r];
	fail_msg("no row %s: %s", entity, label);
	return NULL;
}

static const char *cell(const struct compare_view *v, const struct cv_table *t, const char *entity,
			const char *label, int variant, int col)
{
	static char buf[8][96];
	static int next;

	return cv_cell_text(buf[next++ % 8], sizeof(buf[0]), v, t, row(t, entity, label), variant, col);
}

/* render_compare_view's text (free() it). */
static char *view_text(const struct compare_view *v, const char *const *names)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	render_compare_view(f, v, names);
	fclose(f);
	return text;
}

/* Units: 3 significant digits, signs on differences, shares in %, means of
 * counts to one decimal, and what rounds to nothing is 0. */
static void test_number_text(void **state)
{
	char b[32];

	(void)state;
	assert_string_equal(cv_number_text(b, sizeof(b), CV_NS, 1234567, false), "1.23ms");
	assert_string_equal(cv_number_text(b, sizeof(b), CV_NS, -1500, true), "-1.50us");
	assert_string_equal(cv_number_text(b, sizeof(b), CV_NS, 0.4, true), "0");
	assert_string_equal(cv_number_text(b, sizeof(b), CV_SHARE, 0.25, false), "25.0%");
	assert_string_equal(cv_number_text(b, sizeof(b), CV_SHARE, 0.005, true), "+0.50%");
	assert_string_equal(cv_number_text(b, sizeof(b), CV_SHARE, 1e-9, true), "0%");
	assert_string_equal(cv_number_text(b, sizeof(b), CV_COUNT, 12, true), "+12");
	assert_string_equal(cv_number_text(b, sizeof(b), CV_COUNT, 0.02, true), "0");
	assert_string_equal(cv_number_text(b, sizeof(b), CV_COUNT, -2.5, true), "-2.5");
}

/* One run each: values and plain differences, n.a. for C2 never entered in
 * the base, the group's too deep the sum of its CPUs' (3 + 3), no test. */
static void test_single_pair(void **state)
{
	json_t *d[2] = { doc(4e6, 40, 0, 0, 3, 10), doc(5e6, 41, 2e5, 2, 5, 12) };
	const int runs[2] = { 1, 1 };
	struct compare_view v;

	(void)state;
	assert_int_equal(compare_view_build((const json_t *const *)d, runs, 2, false, &v), 0);
	/* all CPUs: C1 4ms, share 4e6/2e7 = 20%, 40 entries; other +1ms, +5%, +1 */
	assert_string_equal(cell(&v, &v.states, "all CPUs", "C1", 0, 0), "4.00ms");
	assert_string_equal(cell(&v, &v.states, "all CPUs", "C1", 0, 1), "20.0%");
	assert_string_equal(cell(&v, &v.states, "all CPUs", "C1", 0, 2), "40");
	assert_string_equal(cell(&v, &v.states, "all CPUs", "C1", 1, 0), "+1.00ms");
	assert_string_equal(cell(&v, &v.states, "all CPUs", "C1", 1, 1), "+5.00%");
	assert_string_equal(cell(&v, &v.states, "all CPUs", "C1", 1, 2), "+1");
	assert_string_equal(cell(&v, &v.states, "all CPUs", "C1", 1, 3), "+4");
	/* C2: never entered in the base; the other's difference from 0 */
	assert_string_equal(cell(&v, &v.states, "all CPUs", "C2", 0, 0), "n.a.");
	assert_string_equal(cell(&v, &v.states, "all CPUs", "C2", 1, 0), "+200us");
	assert_string_equal(cell(&v, &v.states, "all CPUs", "C2", 1, 2), "+2");
	/* cluster0: all-idle 1ms of 10ms = 10%, 10 periods; too deep 3 + 3 = 6,
	 * too shallow 1 + 1 = 2; the other +250us, 41/4 - 10 = +0.25 periods
	 * (%.1f: 0.2), +4 */
	assert_string_equal(cell(&v, &v.states, "cluster0", "C1", 0, 0), "1.00ms");
	assert_string_equal(cell(&v, &v.states, "cluster0", "C1", 0, 1), "10.0%");
	assert_string_equal(cell(&v, &v.states, "cluster0", "C1", 0, 3), "6");
	assert_string_equal(cell(&v, &v.states, "cluster0", "C1", 0, 4), "2");
	assert_string_equal(cell(&v, &v.states, "cluster0", "C1", 1, 0), "+250us");
	assert_string_equal(cell(&v, &v.states, "cluster0", "C1", 1, 2), "+0.2");
	assert_string_equal(cell(&v, &v.states, "cluster0", "C1", 1, 3), "+4");
	/* wakeups: a timer column; all CPUs 10 then +2, cluster0 5 + 5 then +2 */
	assert_int_equal(v.wakeups.ncols, 1);
	assert_string_equal(v.wakeups.cols[0], "timer");
	assert_string_equal(cell(&v, &v.wakeups, "all CPUs", "", 0, 0), "10");
	assert_string_equal(cell(&v, &v.wakeups, "cluster0", "", 1, 0), "+2");
	/* no per-CPU rows unless asked */
	for (int r = 0; r < v.states.nrows; r++)
		assert_null(strstr(v.states.rows[r].entity, "cpu"));
	assert_false(row(&v.states, "all CPUs", "C1")->cells[5].tested);
	compare_view_free(&v);
	assert_int_equal(compare_view_build((const json_t *const *)d, runs, 2, true, &v), 0);
	assert_string_equal(cell(&v, &v.states, "cpu 1", "C1", 0, 0), "2.00ms");
	assert_string_equal(cell(&v, &v.states, "cpu 1", "C1", 1, 3), "+2");
	compare_view_free(&v);
	json_decref(d[0]);
	json_decref(d[1]);
}

/* Three runs each. C1 time: base 1.0, 1.1, 1.2 ms: mean 1.1ms, s = 100us,
 * interval t(2) 4.303 x 100us / sqrt(3) = 248.4us. Other 2.0, 2.1, 2.2 ms:
 * diff +1ms, se^2 = 2 x 1e10/3, se = 81.65us, df = 4, t_crit 2.776, half
 * width 226.7us, t = 12.2: significant. Entries 40, 40, 40 against 39,
 * 40, 41: diff 0, s_b = 1, se = 0.577, df = 2, half width 4.303 x 0.577 =
 * 2.48: "0 ±2.5", not significant. */
static void test_repetitions(void **state)
{
	json_t *d[6] = { doc(1.0e6, 40, 0, 0, 1, 4), doc(1.1e6, 40, 0, 0, 1, 4),
			 doc(1.2e6, 40, 0, 0, 1, 4), doc(2.0e6, 39, 0, 0, 1, 4),
			 doc(2.1e6, 40, 0, 0, 1, 4), doc(2.2e6, 41, 0, 0, 1, 4) };
	const int runs[2] = { 3, 3 };
	const char *const names[2] = { "a.json (3 runs)", "b.json (3 runs)" };
	struct compare_view v;
	char *text;

	(void)state;
	assert_int_equal(compare_view_build((const json_t *const *)d, runs, 2, false, &v), 0);
	assert_string_equal(cell(&v, &v.states, "all CPUs", "C1", 0, 0), "1.10ms \xc2\xb1" "248us");
	assert_string_equal(cell(&v, &v.states, "all CPUs", "C1", 1, 0), "+1.00ms \xc2\xb1" "227us*");
	assert_string_equal(cell(&v, &v.states, "all CPUs", "C1", 1, 2), "0 \xc2\xb1" "2.5");
	/* identical runs: no spread, no difference: 0 and not significant */
	assert_string_equal(cell(&v, &v.wakeups, "all CPUs", "", 1, 0), "0 \xc2\xb1" "0");
	assert_string_equal(cell(&v, &v.states, "all CPUs", "C2", 1, 0), "n.a.");
	text = view_text(&v, names);
	assert_non_null(strstr(text, "all CPUs: C1\n"));
	assert_non_null(strstr(text, "* = significant"));
	assert_null(strstr(text, "No repetitions"));
	/* the base's line under the row's name, then the other's, aligned */
	assert_non_null(strstr(text, "  a.json (3 runs)    1.10ms \xc2\xb1" "248us"));
	assert_non_null(strstr(text, "  b.json (3 runs)  +1.00ms \xc2\xb1" "227us*"));
	free(text);
	compare_view_free(&v);
	/* one run against three: no test, said so */
	assert_int_equal(compare_view_build((const json_t *const *)d + 2, (const int[]){ 1, 3 }, 2,
					    false, &v), 0);
	assert_string_equal(cell(&v, &v.states, "all CPUs", "C1", 1, 0), "+900us");
	text = view_text(&v, names);
	assert_non_null(strstr(text, "No repetitions: some variant is one run"));
	free(text);
	compare_view_free(&v);
	for (int i = 0; i < 6; i++)
		json_decref(d[i]);
}

/* The workload's figures: latency 60, 62 us against 70, 72 us. Base mean
 * 61us, interval 12.706 x 1414.2 / sqrt(2) = 12.7us; difference +10us,
 * se = 1414.2, df = 2, half width 4.303 x 1414.2 = 6085 ns (6.085: "6.08us"), t = 7.07:
 * significant. A column no run has is left out. */
/* The governor split (states[].governor, below_qos): a row per state of
 * the totals where a run has it; none where no run does (the docs above). */
static void test_misses(void **state)
{
	json_t *d[2] = { doc(4e6, 40, 0, 0, 3, 10), doc(5e6, 41, 2e5, 2, 5, 12) };
	const int runs[2] = { 1, 1 };
	struct compare_view v;
	json_t *c1;
	char *t;

	(void)state;
	assert_int_equal(compare_view_build((const json_t *const *)d, runs, 2, false, &v), 0);
	assert_int_equal(v.misses.nrows, 0);
	compare_view_free(&v);
	for (int i = 0; i < 2; i++) {
		c1 = json_array_get(json_object_get(json_object_get(d[i], "totals"), "states"), 0);
		json_object_set_new(c1, "below_qos", json_integer(i ? 1 : 4));
		json_object_set_new(c1, "governor",
				    json_pack("{s:i,s:i,s:i,s:i,s:i,s:i}", "known_periods", 40,
					      "above_timer_near", i ? 5 : 2, "above_woken_before_timer",
					      i ? 1 : 4, "below_tick_kept", 0, "below_predicted_short", 3,
					      "below_timer_moved", i ? 2 : 0));
	}
	assert_int_equal(compare_view_build((const json_t *const *)d, runs, 2, false, &v), 0);
	assert_int_equal(v.misses.nrows, 1);
	assert_string_equal(v.misses.cols[0], "timer near");
	/* base 2 near, 4 woken early, 4 qos; the other +3, -3, -3, the moved +2 */
	assert_string_equal(cell(&v, &v.misses, "all CPUs", "C1", 0, 0), "2");
	assert_string_equal(cell(&v, &v.misses, "all CPUs", "C1", 0, 1), "4");
	assert_string_equal(cell(&v, &v.misses, "all CPUs", "C1", 0, 2), "4");
	assert_string_equal(cell(&v, &v.misses, "all CPUs", "C1", 1, 0), "+3");
	assert_string_equal(cell(&v, &v.misses, "all CPUs", "C1", 1, 1), "-3");
	assert_string_equal(cell(&v, &v.misses, "all CPUs", "C1", 1, 2), "-3");
	assert_string_equal(cell(&v, &v.misses, "all CPUs", "C1", 1, 5), "+2");
	t = view_text(&v, (const char *const[]){ "menu.json", "teo.json" });
	assert_non_null(strstr(t, "Why the governor missed"));
	free(t);
	compare_view_free(&v);
	json_decref(d[0]);
	json_decref(d[1]);
}

static void test_figures(void **state)
{
	json_t *d[4] = { doc(1e6, 4, 0, 0, 0, 1), doc(1e6, 4, 0, 0, 0, 1), doc(1e6, 4, 0, 0, 0, 1),
			 doc(1e6, 4, 0, 0, 0, 1) };
	const int runs[2] = { 2, 2 };
	const char *const cols[2] = { "latency avg", "none" };
	const double vals[8] = { 60000, NAN, 62000, NAN, 70000, NAN, 72000, NAN };
	const char *const names[2] = { "menu", "teo" };
	struct compare_view v;
	char *text;

	(void)state;
	assert_int_equal(compare_view_build((const json_t *const *)d, runs, 2, false, &v), 0);
	assert_int_equal(compare_view_add_figures(&v, 2, cols, vals), 0);
	assert_int_equal(v.figures.ncols, 1);
	assert_string_equal(v.figures.cols[0], "latency avg");
	assert_string_equal(cell(&v, &v.figures, "workload", "", 0, 0), "61.0us \xc2\xb1" "12.7us");
	assert_string_equal(cell(&v, &v.figures, "workload", "", 1, 0), "+10.0us \xc2\xb1" "6.08us*");
	text = view_text(&v, names);
	assert_non_null(strstr(text, "The workload's own figures"));
	free(text);
	compare_view_free(&v);
	for (int i = 0; i < 4; i++)
		json_decref(d[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_number_text),
		cmocka_unit_test(test_single_pair),
		cmocka_unit_test(test_repetitions),
		cmocka_unit_test(test_misses),
		cmocka_unit_test(test_figures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
