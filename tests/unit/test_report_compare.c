/* Unit tests for user/report/report_compare.c: the comparison section of
 * hand-made summaries, its cells (text in units, exact data-v, tooltip,
 * n.a., significance), the sortable table's columns and the per-state
 * charts' bars and whiskers, worked out by hand below. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <math.h>

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

/* The number in attribute attr (` attr="`) after the n-th (0: first)
 * occurrence of anchor in s. */
static double attr_after(const char *s, const char *anchor, int n, const char *attr)
{
	const char *p = strstr(s, anchor);
	char key[64];

	for (; p && n > 0; n--)
		p = strstr(p + 1, anchor);
	assert_non_null(p);
	snprintf(key, sizeof(key), " %s=\"", attr);
	p = strstr(p, key);
	assert_non_null(p);
	return strtod(p + strlen(key), NULL);
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
	/* sortable: under each column the base A then B's difference, each
	 * header's data-col the index of its cells in the row */
	assert_non_null(strstr(s, "<table class=\"data cv sortable\" id=\"cv-states\">"));
	assert_non_null(strstr(s, "<th colspan=\"2\" class=\"cv-col\">time</th><th colspan=\"2\" "
				  "class=\"cv-col\">share</th>"));
	assert_non_null(strstr(s, "<th data-col=\"1\" title=\"1: r0.json\">A</th><th data-col=\"2\" "
				  "title=\"B \xe2\x88\x92 A: 2: r1.json\">\xce\x94" "B</th><th data-col=\"3\""));
	{
		const char *row = strstr(s, "<tr><th>all CPUs: C1</th>"), *end = strstr(row, "</tr>");
		const char *want[] = { "data-i=\"0\" data-e=\"all CPUs\" data-s=\"C1\" data-c=\"time\"",
				       "data-i=\"1\" data-e=\"all CPUs\" data-s=\"C1\" data-c=\"time\"",
				       "data-i=\"0\" data-e=\"all CPUs\" data-s=\"C1\" data-c=\"share\"",
				       "data-i=\"1\" data-e=\"all CPUs\" data-s=\"C1\" data-c=\"share\"",
				       "data-i=\"0\" data-e=\"all CPUs\" data-s=\"C1\" data-c=\"entries\"" };
		const char *p = row;

		for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
			p = strstr(p, want[k]);
			assert_non_null(p);
			assert_true(p < end);
		}
	}
	assert_non_null(strstr(s, "<li><span class=\"tag\">A</span> 1: r0.json (the base)</li><li><span class=\"tag\">B</span> 2: r1.json</li>"));
	/* a chart per state: C1's share 40% and 55%, one run each (no
	 * whisker); C2 n.a. without a bar */
	assert_non_null(strstr(s, "<figure class=\"chart state\" data-chart=\"state-0\" "
				  "data-e=\"all CPUs\" data-s=\"C1\">"));
	assert_true(attr_after(s, "data-chart=\"state-0-share\"", 0, "data-v") == 0.4);
	assert_non_null(strstr(s, "data-v=\"0.4\" data-lo=\"\" data-hi=\"\"><title>1: r0.json: "
				  "40.0% (one run)</title>"));
	assert_non_null(strstr(s, "data-v=\"0.55\" data-lo=\"\" data-hi=\"\"><title>2: r1.json: "
				  "55.0% (one run)</title>"));
	assert_non_null(strstr(s, "data-v=\"38\" data-lo=\"\" data-hi=\"\">"));
	{
		const char *c2 = strstr(s, "data-chart=\"state-1-share\"");

		assert_non_null(c2);
		assert_null(strstr(c2, "<rect") < strstr(c2, "</svg>") ? strstr(c2, "<rect") : NULL);
		assert_non_null(strstr(c2, ">n.a.</text>"));
	}
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
	assert_non_null(strstr(s, "<li><span class=\"tag\">A</span> 1: r0.json (2 runs) (the base)</li>"));
	assert_non_null(strstr(s, "<li><span class=\"tag\">B</span> 3: r2.json (2 runs)</li>"));
	assert_non_null(strstr(s, "<td class=\"n cv sig\" title=\"1000000 ns \xc2\xb1 608536 at 95%, "
				  "Welch t=7.07, df=2: significant\" data-i=\"1\" data-e=\"all CPUs\" "
				  "data-s=\"C1\" data-c=\"time\" data-v=\"1000000\">+1.00ms \xc2\xb1"
				  "609us*</td>"));
	assert_non_null(strstr(s, "data-c=\"entries\" data-v=\"0\">0 \xc2\xb1" "0</td>"));
	assert_null(strstr(s, "No repetitions"));
	/* C1's chart: A's share 40% and 42%: mean 41%, s = 1.414 points, the
	 * interval 12.706 x 1.414 / sqrt(2) = 12.706 points; B's 50%, 52%:
	 * 51% with the same; entries 40 both, no spread */
	{
		double a = attr_after(s, "data-chart=\"state-0-share\"", 0, "data-v");
		double lo = attr_after(s, "data-chart=\"state-0-share\"", 0, "data-lo");
		double hi = attr_after(s, "data-chart=\"state-0-share\"", 0, "data-hi");
		double b = attr_after(s, "fill=\"#f28e2b\" data-v=", 0, "data-v");

		assert_true(fabs(a - 0.41) < 1e-12);
		assert_true(fabs(lo - (0.41 - 0.12706)) < 1e-9);
		assert_true(fabs(hi - (0.41 + 0.12706)) < 1e-9);
		assert_true(fabs(b - 0.51) < 1e-12);
		assert_non_null(strstr(s, ">41.0% \xc2\xb1" "12.7%</text>"));
		assert_non_null(strstr(s, "data-v=\"40\" data-lo=\"40\" data-hi=\"40\"><title>1: r0.json "
					  "(2 runs): 40 \xc2\xb1 0, the mean of 2 runs and its 95% interval"));
	}
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
