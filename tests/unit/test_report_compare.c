/* Unit tests for user/report/report_compare.c: the comparison section of
 * hand-made summaries, its cells (text in units, exact data-v, tooltip,
 * n.a., significance) worked out by hand below. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report/report_compare.h"

/* One CPU, 10 ms; state C1 for t ns in e entries, C2 never entered. */
static json_t *doc(double t, double e)
{
	return json_pack("{s:s,s:f,s:[{s:i,s:f}],s:{s:f,s:[{s:s,s:f,s:f,s:f,s:i,s:i},"
			 "{s:s,s:i,s:i,s:i,s:i,s:i}]}}",
			 "schema", "idlescope/1", "duration_ns", 1e7, "cpus", "cpu", 0, "idle_ns", t,
			 "totals", "idle_ns", t, "states", "name", "C1", "time_ns", t, "share", t / 1e7,
			 "entries", e, "above", 1, "below", 0, "name", "C2", "time_ns", 0, "share", 0,
			 "entries", 0, "above", 0, "below", 0);
}

static char *section(struct report_input *in, int n)
{
	char *s = NULL;
	size_t len;
	FILE *f = open_memstream(&s, &len);

	assert_non_null(f);
	for (int i = 0; i < n; i++) {
		snprintf(in[i].label, sizeof(in[i].label), "%d: r%d.json", i + 1, i);
		in[i].path = in[i].label;
	}
	report_compare_section(f, in, n);
	fclose(f);
	if (getenv("DUMP"))
		fputs(s, stderr);
	return s;
}

/* Two inputs, one run each: 4ms then +1.5ms; C2 n.a.; said untested. */
static void test_single_runs(void **state)
{
	struct report_input in[2] = { { .summary = doc(4e6, 40), .variant = 0 },
				      { .summary = doc(5.5e6, 38), .variant = 1 } };
	char *s;

	(void)state;
	s = section(in, 2);
	assert_non_null(strstr(s, "<td class=\"n cv\" title=\"4000000 ns (n=1)\" data-i=\"0\" "
				  "data-e=\"all CPUs\" data-s=\"C1\" data-c=\"time\" "
				  "data-v=\"4000000\">4.00ms</td>"));
	assert_non_null(strstr(s, "title=\"1500000 ns (not tested: one run)\" data-i=\"1\" "
				  "data-e=\"all CPUs\" data-s=\"C1\" data-c=\"time\" "
				  "data-v=\"1500000\">+1.50ms</td>"));
	/* share 40% then +15 points (0.55 - 0.4 in doubles); entries -2 */
	assert_non_null(strstr(s, "data-c=\"share\" data-v=\"0.4\">40.0%</td>"));
	assert_non_null(strstr(s, "data-c=\"share\" data-v=\"0.15000000000000002\">+15.0%</td>"));
	assert_non_null(strstr(s, "data-c=\"entries\" data-v=\"-2\">-2</td>"));
	assert_non_null(strstr(s, "title=\"never entered\" data-i=\"0\" data-e=\"all CPUs\" "
				  "data-s=\"C2\" data-c=\"time\" data-v=\"null\">n.a.</td>"));
	assert_non_null(strstr(s, "No repetitions"));
	assert_null(strstr(s, "cv sig"));
	/* the largest differences: C1's one */
	assert_non_null(strstr(s, "(the 1 largest of 1)"));
	free(s);
	for (int i = 0; i < 2; i++)
		json_decref(in[i].summary);
}

/* Two runs each: 4.0, 4.2 ms against 5.0, 5.2 ms: diff +1ms, s = 141.4us
 * each, se = 141.4us, df = 2, half width 4.303 x 141421 = 608536 ns,
 * t = 7.07: significant. Entries 40, 40 against 40, 40: 0, not. */
static void test_runs_tested(void **state)
{
	struct report_input in[4] = { { .summary = doc(4.0e6, 40), .variant = 0 },
				      { .summary = doc(4.2e6, 40), .variant = 0 },
				      { .summary = doc(5.0e6, 40), .variant = 1 },
				      { .summary = doc(5.2e6, 40), .variant = 1 } };
	char *s;

	(void)state;
	s = section(in, 4);
	assert_non_null(strstr(s, "<td>1: r0.json (2 runs)</td>"));
	assert_non_null(strstr(s, "<td>3: r2.json (2 runs)</td>"));
	assert_non_null(strstr(s, "<td class=\"n cv sig\" title=\"1000000 ns \xc2\xb1 608536 at 95%, "
				  "Welch t=7.07, df=2: significant\" data-i=\"1\" data-e=\"all CPUs\" "
				  "data-s=\"C1\" data-c=\"time\" data-v=\"1000000\">+1.00ms \xc2\xb1"
				  "609us*</td>"));
	assert_non_null(strstr(s, "data-c=\"entries\" data-v=\"0\">0 \xc2\xb1" "0</td>"));
	assert_null(strstr(s, "No repetitions"));
	free(s);
	for (int i = 0; i < 4; i++)
		json_decref(in[i].summary);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_single_runs),
		cmocka_unit_test(test_runs_tested),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
