/* Unit tests for user/report/html.c: escaping, exact numbers, percentages, heat
 * levels, templates and the number cells. Expected strings by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report/html.h"

/* What fn wrote into a FILE, as a string (caller frees). */
#define CAPTURE(out, stmt)                                          \
	do {                                                        \
		size_t len_;                                        \
		FILE *f = open_memstream(&(out), &len_);            \
		assert_non_null(f);                                 \
		stmt;                                               \
		fclose(f);                                          \
	} while (0)

static void test_escape(void **state)
{
	char *s;

	(void)state;
	CAPTURE(s, html_escape(f, "<img src=x onerror=alert(1)>&\"'"));
	assert_string_equal(s, "&lt;img src=x onerror=alert(1)&gt;&amp;&quot;&#39;");
	free(s);
	/* already-escaped text is escaped again: the JSON's text, not markup */
	CAPTURE(s, html_escape(f, "a &amp; b"));
	assert_string_equal(s, "a &amp;amp; b");
	free(s);
	/* UTF-8 passes through; NULL writes nothing */
	CAPTURE(s, { html_escape(f, "caf\xc3\xa9 \xc2\xb7"); html_escape(f, NULL); });
	assert_string_equal(s, "caf\xc3\xa9 \xc2\xb7");
	free(s);
}

static void check_exact(double v, const char *want)
{
	char buf[48];

	fmt_exact(buf, sizeof(buf), v);
	if (strcmp(buf, want))
		fail_msg("fmt_exact(%.17g) = \"%s\", want \"%s\"", v, buf, want);
	/* and it reads back as the same double */
	assert_true(strtod(buf, NULL) == v);
}

static void test_exact(void **state)
{
	(void)state;
	check_exact(0, "0");
	check_exact(1888798461, "1888798461");        /* integers: no exponent, no fraction */
	check_exact(-26415, "-26415");
	check_exact(0.1, "0.1");                      /* not 0.10000000000000001 */
	check_exact(0.533747975221788, "0.533747975221788");
	check_exact(0.95733071863459707, "0.9573307186345971"); /* 17 digits in, 16 needed */
	check_exact(1.0 / 3, "0.3333333333333333");   /* 16 digits are needed, 15 are not enough */
	check_exact(2.5e-7, "2.5e-07");
	check_exact(1e300, "1e+300");                 /* t = 1e300 in ab's JSON */
	check_exact(9007199254740992.0, "9007199254740992"); /* 2^53 */
}

static void test_json_number(void **state)
{
	char buf[48];
	json_t *v;

	(void)state;
	/* an integer a double cannot hold is written as the JSON has it */
	v = json_integer(9007199254740993LL);
	assert_string_equal(fmt_json_number(buf, sizeof(buf), v), "9007199254740993");
	json_decref(v);
	v = json_real(0.5457419434483302);
	assert_string_equal(fmt_json_number(buf, sizeof(buf), v), "0.5457419434483302");
	json_decref(v);
	v = json_null();
	assert_string_equal(fmt_json_number(buf, sizeof(buf), v), "null");
	v = json_string("12");
	assert_string_equal(fmt_json_number(buf, sizeof(buf), v), "");
	json_decref(v);
	assert_string_equal(fmt_json_number(buf, sizeof(buf), NULL), "");
}

static void test_pct(void **state)
{
	char buf[16];

	(void)state;
	assert_string_equal(fmt_pct(buf, sizeof(buf), 0.915751662718602), "91.58%");
	assert_string_equal(fmt_pct(buf, sizeof(buf), 0), "0.00%");
	assert_string_equal(fmt_pct(buf, sizeof(buf), 1.0004079119835627), "100.04%"); /* can exceed 1 */
}

static void test_heat(void **state)
{
	(void)state;
	assert_int_equal(heat_level(0, 100), 0);
	assert_int_equal(heat_level(5, 0), 0);       /* empty matrix */
	assert_int_equal(heat_level(100, 100), 9);
	assert_int_equal(heat_level(1, 100000), 1);  /* 1 + (int)(8e-5): tiny but visible */
	assert_int_equal(heat_level(50, 100), 5);    /* 1 + (int)4.0 */
	assert_int_equal(heat_level(99, 100), 8);    /* 1 + (int)7.92 */
}

static int fill(FILE *f, const char *name, void *arg)
{
	int *calls = arg;

	(*calls)++;
	if (!strcmp(name, "A"))
		fputs("<1>", f);
	else if (!strcmp(name, "B_2"))
		fputs("two", f);
	else
		return 7;
	return 0;
}

static void test_template(void **state)
{
	char *s;
	int calls = 0, r;

	(void)state;
	CAPTURE(s, r = template_expand(f, "x@A@y@B_2@@A@", fill, &calls));
	assert_int_equal(r, 0);
	assert_string_equal(s, "x<1>ytwo<1>");
	assert_int_equal(calls, 3);
	free(s);
	/* lone @, lower case and empty markers are text (CSS @media, e-mail) */
	calls = 0;
	CAPTURE(s, r = template_expand(f, "@media a@b.c @@ end@", fill, &calls));
	assert_int_equal(r, 0);
	assert_string_equal(s, "@media a@b.c @@ end@");
	assert_int_equal(calls, 0);
	free(s);
	/* an unknown marker stops with fill's code */
	CAPTURE(s, r = template_expand(f, "a@NOPE@b", fill, &calls));
	assert_int_equal(r, 7);
	free(s);
}

static void test_cells(void **state)
{
	char *s;
	json_t *v = json_real(0.5457419434483302), *n = json_integer(812345678), *z = json_null();

	(void)state;
	CAPTURE(s, html_num_cell(f, 1, n, "cpus.1.states.1.time_ns"));
	/* a duration in human units, exact in the tooltip and data-v */
	assert_string_equal(s, "<td class=\"n\" title=\"812345678 ns\" data-f=\"1\" "
			       "data-p=\"cpus.1.states.1.time_ns\" data-v=\"812345678\">812ms</td>");
	free(s);
	json_decref(n);
	n = json_integer(-1500);
	CAPTURE(s, html_num_cell(f, 0, n, "rows.0.time_diff_ns"));
	assert_string_equal(s, "<td class=\"n\" title=\"-1500 ns\" data-f=\"0\" "
			       "data-p=\"rows.0.time_diff_ns\" data-v=\"-1500\">-1.50us</td>");
	free(s);
	json_decref(n);
	/* a count stays the integer */
	n = json_integer(39792);
	CAPTURE(s, html_num_cell(f, 0, n, "totals.entries"));
	assert_string_equal(s, "<td class=\"n\" data-f=\"0\" data-p=\"totals.entries\" "
			       "data-v=\"39792\">39792</td>");
	free(s);
	CAPTURE(s, html_pct_cell(f, 0, v, "a.share"));
	assert_string_equal(s, "<td class=\"n\" title=\"0.5457419434483302\" data-f=\"0\" "
			       "data-p=\"a.share\" data-v=\"0.5457419434483302\">54.57%</td>");
	free(s);
	CAPTURE(s, html_num_cell(f, 0, z, "a.rejected"));
	assert_string_equal(s, "<td class=\"n\" data-f=\"0\" data-p=\"a.rejected\" data-v=\"null\">-</td>");
	free(s);
	CAPTURE(s, html_text_cell(f, "a<b>&c"));
	assert_string_equal(s, "<td>a&lt;b&gt;&amp;c</td>");
	free(s);
	json_decref(v);
	json_decref(n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_exact),
		cmocka_unit_test(test_json_number),
		cmocka_unit_test(test_pct),
		cmocka_unit_test(test_heat),
		cmocka_unit_test(test_template),
		cmocka_unit_test(test_cells),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
