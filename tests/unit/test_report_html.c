/* Unit tests for user/report/report_html.c: the page's one script and the
 * hash its Content-Security-Policy allows it by (recomputed here from the
 * page's own bytes), the embedded JSON read back, and ab's sweep page (a
 * section per workload, ids apart, the workload's figures). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report/report_html.h"
#include "report_assets.h" /* the script and its hash, as the build embedded them */

/* One CPU, 10 ms; state C1 for t ns in e entries. */
static json_t *doc(double t, double e)
{
	return json_pack("{s:s,s:f,s:[{s:i,s:f}],s:{s:f,s:[{s:s,s:f,s:f,s:f,s:i,s:i}]}}",
			 "schema", "idlescope/1", "duration_ns", 1e7, "cpus", "cpu", 0, "idle_ns", t,
			 "totals", "idle_ns", t, "states", "name", "C1</script><b>", "time_ns", t,
			 "share", t / 1e7, "entries", e, "above", 1, "below", 0);
}

static int count(const char *s, const char *what)
{
	int n = 0;

	for (const char *p = s; (p = strstr(p, what)); p++)
		n++;
	return n;
}

/* The page's one <script> holds the script byte for byte, and the CSP
 * allows exactly the hash the build computed of it (report.bats checks that
 * hash against openssl's of the page's text); no other script runs. */
static void check_script(const char *page)
{
	const char *csp = strstr(page, "script-src 'sha256-"), *open, *close;

	assert_non_null(csp);
	assert_int_equal(strncmp(csp + strlen("script-src 'sha256-"), REPORT_PAGE_JS_SHA256 "'",
				 strlen(REPORT_PAGE_JS_SHA256) + 1),
			 0);
	assert_int_equal(strlen(REPORT_PAGE_JS_SHA256), 44); /* 32 bytes in base64 */
	assert_int_equal(count(page, "<script>"), 1);
	assert_int_equal(count(page, "<script"), 2); /* and the data block */
	open = strstr(page, "<script>") + strlen("<script>");
	close = strstr(open, "</script>");
	assert_non_null(close);
	assert_true(close - open > 500);
	assert_int_equal((size_t)(close - open), strlen(report_page_js));
	assert_int_equal(memcmp(open, report_page_js, strlen(report_page_js)), 0);
	assert_non_null(strstr(page, "content=\"default-src 'none'; style-src 'unsafe-inline'; "
				     "script-src 'sha256-"));
}

/* The data block with id, parsed. */
static json_t *embedded(const char *page, const char *id)
{
	char open[96];
	const char *p, *end;
	json_error_t e;

	snprintf(open, sizeof(open), "<script type=\"application/json\" id=\"%s\">", id);
	p = strstr(page, open);
	assert_non_null(p);
	p += strlen(open);
	end = strstr(p, "</script>");
	assert_non_null(end);
	return json_loadb(p, (size_t)(end - p), 0, &e);
}

static char *page_of(struct report_input *in, int n, const struct report_sweep *sw)
{
	char *s = NULL;
	size_t len;
	FILE *f = open_memstream(&s, &len);

	assert_non_null(f);
	assert_int_equal(sw ? report_write_sweep_html(f, sw) : report_write_html(f, in, n), 0);
	fclose(f);
	if (getenv("DUMP"))
		fputs(s, stderr);
	return s;
}

static void test_report_page(void **state)
{
	struct report_input in[2] = { { .path = "a.json", .summary = doc(4e6, 40) },
				      { .path = "b.json", .summary = doc(5e6, 38), .variant = 1 } };
	char *s;
	json_t *j;

	(void)state;
	for (int i = 0; i < 2; i++)
		assert_int_equal(flatten_summary(in[i].summary, &in[i].m), 0);
	s = page_of(in, 2, NULL);
	check_script(s);
	/* the inputs as read, a name with </script> in it kept as text */
	j = embedded(s, "inputs-json");
	assert_non_null(j);
	assert_int_equal(json_array_size(j), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(j, 1), "path")), "b.json");
	assert_true(json_equal(json_object_get(json_array_get(j, 0), "json"), in[0].summary));
	assert_null(strstr(s, "C1</script>"));
	assert_non_null(strstr(s, "C1\\u003c/script>\\u003cb>"));
	assert_non_null(strstr(s, "(<code>idlescope report</code>)"));
	json_decref(j);
	free(s);
	for (int i = 0; i < 2; i++) {
		metric_set_free(&in[i].m);
		json_decref(in[i].summary);
	}
}

/* Two workloads, two variants of two runs each; the second workload's
 * figures: latency 10us, 12us under A and 20us, 22us under B. */
static void test_sweep_page(void **state)
{
	const json_t *docs[2][4];
	const int runs[2] = { 2, 2 };
	struct compare_view v[2];
	const char *names[] = { "idle", "cyc" }, *cmds[] = { "sleep 1", "cyclictest -q" };
	const char *variants[] = { "governor=menu", "governor=ladder" };
	const char *cols[] = { "latency avg" };
	const double fig[] = { 10e3, 12e3, 20e3, 22e3 };
	json_t *ab = json_pack("{s:s}", "schema", "idlescope-ab-sweep/1"), *j;
	char *s;

	(void)state;
	for (int w = 0; w < 2; w++) {
		for (int k = 0; k < 4; k++)
			docs[w][k] = doc(4e6 + 1e5 * k + w, 40 + k);
		assert_int_equal(compare_view_build(docs[w], runs, 2, false, &v[w]), 0);
	}
	assert_int_equal(compare_view_add_figures(&v[1], 1, cols, fig), 0);
	s = page_of(NULL, 0, &(struct report_sweep){ .nr_workloads = 2, .nr_variants = 2, .repeat = 2,
						       .names = names, .commands = cmds, .views = v,
						       .variants = variants, .warning = "",
						       .doc = ab });
	check_script(s);
	assert_non_null(strstr(s, "<title>idlescope ab: governor=menu vs governor=ladder</title>"));
	assert_non_null(strstr(s, "<section class=\"workload\" id=\"w0\">\n<h2>workload idle: "
				  "<code>sleep 1</code></h2>"));
	assert_non_null(strstr(s, "<section class=\"workload\" id=\"w1\">\n<h2>workload cyc: "
				  "<code>cyclictest -q</code></h2>"));
	/* ids apart per workload */
	assert_int_equal(count(s, "id=\"w0-cv-states\""), 1);
	assert_int_equal(count(s, "id=\"w1-cv-states\""), 1);
	assert_int_equal(count(s, "id=\"cv-states\""), 0);
	assert_int_equal(count(s, "data-chart=\"w1-state-0\""), 1);
	/* the figures where the workload printed them: 11us, then +10us */
	assert_int_equal(count(s, "cv-figures\""), 1);
	assert_non_null(strstr(s, "id=\"w1-cv-figures\""));
	assert_non_null(strstr(s, "data-c=\"latency avg\" data-v=\"11000\">11.0us \xc2\xb1"));
	assert_non_null(strstr(s, "data-c=\"latency avg\" data-v=\"10000\">+10.0us \xc2\xb1"));
	assert_non_null(strstr(s, "2 variants \xc3\x97 2 runs each"));
	assert_non_null(strstr(s, "(<code>idlescope ab</code>)"));
	j = embedded(s, "ab-json");
	assert_true(json_equal(j, ab));
	json_decref(j);
	free(s);
	json_decref(ab);
	for (int w = 0; w < 2; w++) {
		compare_view_free(&v[w]);
		for (int k = 0; k < 4; k++)
			json_decref((json_t *)docs[w][k]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report_page),
		cmocka_unit_test(test_sweep_page),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
