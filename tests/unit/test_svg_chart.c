/* Unit tests for user/report/svg_chart.c: the scales, and the geometry and
 * tooltips of stacked bars and histograms, worked out by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include <cmocka.h>

#include "report/svg_chart.h"

static void test_scales(void **state)
{
	(void)state;
	assert_float_equal(scale_lin(5, 0, 10, 620), 310, 1e-9);
	assert_float_equal(scale_lin(-1, 0, 10, 620), 0, 1e-9);   /* clamped */
	assert_float_equal(scale_lin(11, 0, 10, 620), 620, 1e-9);
	assert_float_equal(scale_lin(1, 3, 3, 620), 0, 1e-9);     /* empty domain */
	/* 1 us .. 1 ms over 600 px: 10 us is one third, 100 us two thirds */
	assert_float_equal(scale_log(10000, 1000, 1000000, 600), 200, 1e-9);
	assert_float_equal(scale_log(100000, 1000, 1000000, 600), 400, 1e-9);
	assert_float_equal(scale_log(0, 1000, 1000000, 600), 0, 1e-9);
	assert_float_equal(scale_log(5, 0, 10, 600), 0, 1e-9);     /* no log of 0 */
}

/* The x and width of every data rect (bars, segments; not the legend's
 * swatches, which have no x), in output order. */
static int rects(const char *svg, double *x, double *w, int max)
{
	int n = 0;

	for (const char *p = svg; (p = strstr(p, "<rect ")) && n < max; p++) {
		const char *end = strchr(p, '>'), *px = strstr(p, " x=\""), *pw = strstr(p, " width=\"");

		if (px && pw && px < end && pw < end && sscanf(px, " x=\"%lf\"", &x[n]) == 1 &&
		    sscanf(pw, " width=\"%lf\"", &w[n]) == 1)
			n++;
	}
	return n;
}

static char *stacked(const double *denom)
{
	static const char *const cats[] = { "cpu 0", "all" };
	static const char *const series[] = { "POLL", "C1 <&>", "busy" };
	static const double val[] = { 1, 1, 2, /* cpu 0 */ 0, 3, 1 /* all */ };
	char *s;
	size_t len;
	FILE *f = open_memstream(&s, &len);

	assert_non_null(f);
	svg_stacked_bars(f, &(struct stacked_bars){ "t", 2, 3, cats, series, NULL, val, denom, "ns" });
	fclose(f);
	return s;
}

static void test_stacked_geometry(void **state)
{
	/* plot width 760 - 180 - 12 = 568 px from x = 180; cpu 0: 1/4 1/4 2/4, all: 0 3/4 1/4 */
	static const double want_x[] = { 180, 180, 322, 180, 464, 606 };
	static const double want_w[] = { 142, 0, 142, 426, 284, 142 };
	double x[8], w[8];
	char *s = stacked(NULL);

	(void)state;
	/* series-major: POLL cpu0, POLL all, C1 cpu0, C1 all, busy cpu0, busy all */
	assert_int_equal(rects(s, x, w, 8), 6);
	for (int i = 0; i < 6; i++) {
		assert_float_equal(x[i], want_x[i], 0.006);
		assert_float_equal(w[i], want_w[i], 0.006);
	}
	/* one group per series, names escaped, exact values and shares in the tooltips */
	assert_non_null(strstr(s, "<g class=\"series\" data-chart=\"t\" data-series=\"C1 &lt;&amp;&gt;\""));
	assert_non_null(strstr(s, "data-v=\"3\"><title>all \xc2\xb7 C1 &lt;&amp;&gt;: 3 ns (3ns), 75.00%</title>"));
	assert_null(strstr(s, "<&>"));
	free(s);
}

static void test_stacked_denominator(void **state)
{
	/* cpu 0 over a window of 8 (half is not shown), all over 2 < its sum 4 */
	static const double denom[] = { 8, 2 };
	double x[8], w[8];
	char *s = stacked(denom);

	(void)state;
	assert_int_equal(rects(s, x, w, 8), 6);
	assert_float_equal(w[0], 71, 0.006);   /* 1/8 of 568 */
	assert_float_equal(w[4], 142, 0.006);  /* 2/8 */
	assert_float_equal(w[3], 426, 0.006);  /* 3/4: the sum wins over a smaller denominator */
	assert_non_null(strstr(s, "cpu 0 \xc2\xb7 busy: 2 ns (2ns), 25.00%"));
	free(s);
}

static void test_hist(void **state)
{
	/* [0,1000) drawn from 500 on the log axis; 1 us .. 100 us decades */
	static const struct hist_bucket b[] = {
		{ 0, 1000, 4, false }, { 8000, 16000, 10, false }, { 32000, 64000, 5, true },
	};
	double x[4], w[4];
	char *s;
	size_t len;
	FILE *f = open_memstream(&s, &len);

	(void)state;
	assert_non_null(f);
	svg_hist(f, &(struct hist_chart){ "h", 3, b, false, "periods" });
	fclose(f);
	/* 3 bars; the axis runs 100 ns (10^floor(log10 500)) .. 100 us over 760 - 64 - 30 = 666 px from x = 64 */
	assert_int_equal(rects(s, x, w, 4), 3);
	assert_float_equal(x[0], 64 + 666 * (log10(500) - 2) / 3, 0.006);
	assert_float_equal(x[1], 64 + 666 * (log10(8000) - 2) / 3, 0.006);
	assert_float_equal(w[1], 666 * log10(2) / 3, 0.006);
	/* heights: the largest count fills the 166 px plot */
	assert_non_null(strstr(s, "height=\"166.00\" data-lo=\"8000\" data-hi=\"16000\" data-v=\"10\""));
	assert_non_null(strstr(s, "height=\"83.00\" data-lo=\"32000\" data-hi=\"\" data-v=\"5\"><title>[32000 ns, open): 5 periods</title>"));
	assert_non_null(strstr(s, "<title>[0 ns, 1000 ns): 4 periods</title>"));
	assert_non_null(strstr(s, ">100us</text>"));
	free(s);
}

static void test_colors(void **state)
{
	(void)state;
	assert_string_equal(series_color(0), "#4e79a7");
	assert_string_equal(series_color(10), series_color(0)); /* cycles */
	assert_string_equal(series_color(-1), series_color(9));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scales),
		cmocka_unit_test(test_stacked_geometry),
		cmocka_unit_test(test_stacked_denominator),
		cmocka_unit_test(test_hist),
		cmocka_unit_test(test_colors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
