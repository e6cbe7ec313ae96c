/* Inline SVG charts for `idlescope report`: stacked horizontal bars and
 * histograms. Every mark carries its exact value (data-v) and a <title>
 * tooltip; coordinates are printed with fixed precision so the same input
 * gives the same bytes. */
#ifndef IDLESCOPE_SVG_CHART_H
#define IDLESCOPE_SVG_CHART_H

#include <stdbool.h>
#include <stdio.h>

/* The fill of series i of n: a fixed palette, cycling. */
const char *series_color(int i);

/* One bar per category, split into series; value[c * nr_series + s]. Each
 * bar is scaled to max(denom[c], sum of its values) (denom NULL: the sum),
 * and tooltips give the value in unit and its share of that. */
struct stacked_bars {
	const char *id;             /* data-chart of every series group */
	int nr_cats, nr_series;
	const char *const *cats;    /* category labels (left of the bars) */
	const char *const *series;  /* series names (legend) */
	const char *const *colors;  /* per series; NULL entries: series_color() */
	const double *value;
	const double *denom;
	const char *unit;           /* "ns", "periods" */
};
void svg_stacked_bars(FILE *f, const struct stacked_bars *b);

/* A small panel: one bar per item from 0 to value[i] (NAN: none drawn), a
 * whisker over [lo[i], hi[i]] (NAN: none), texts[i] right of it; the scale
 * runs from 0 to the largest value or hi. Each bar carries data-v (its
 * exact value), data-lo and data-hi, and tips[i] as its tooltip. */
struct whisker_bars {
	const char *id;             /* data-chart */
	const char *title;          /* above the bars: "share of the window" */
	int n;
	const char *const *labels;  /* left of each bar (a few characters) */
	const char *const *tips;
	const char *const *texts;
	const double *value, *lo, *hi;
};
void svg_whisker_bars(FILE *f, const struct whisker_bars *b);

/* [lo, hi) buckets with counts, ascending. */
struct hist_bucket {
	double lo, hi, count;
	bool open;                  /* the last, open-ended bucket */
};
struct hist_chart {
	const char *id;
	int n;
	const struct hist_bucket *b;
	bool linear;                /* linear x axis (hist --linear), else log10 */
	const char *what;           /* "periods", "samples" */
};
void svg_hist(FILE *f, const struct hist_chart *h);

/* Maps v in [lo, hi] to [0, px] on a log10 scale (v, lo > 0); values
 * outside are clamped. */
double scale_log(double v, double lo, double hi, double px);
/* The same on a linear scale. */
double scale_lin(double v, double lo, double hi, double px);

#endif
