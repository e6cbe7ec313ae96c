/* SVG drawing for the report: layout constants, scales and the two chart
 * kinds. The page around them is in report_html.c. */
#include "report/svg_chart.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "report/html.h"
#include "util/units.h"

/* Tableau 10: distinguishable, also in grey scale for neighbours. */
static const char *const palette[] = {
	"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2",
	"#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac",
};

const char *series_color(int i)
{
	int n = (int)(sizeof(palette) / sizeof(palette[0]));

	return palette[((i % n) + n) % n];
}

double scale_lin(double v, double lo, double hi, double px)
{
	if (hi <= lo)
		return 0;
	if (v <= lo)
		return 0;
	if (v >= hi)
		return px;
	return (v - lo) / (hi - lo) * px;
}

double scale_log(double v, double lo, double hi, double px)
{
	if (lo <= 0 || hi <= lo || v <= lo)
		return 0;
	if (v >= hi)
		return px;
	return (log10(v) - log10(lo)) / (log10(hi) - log10(lo)) * px;
}

static const char *human(char *buf, size_t len, double v, const char *unit)
{
	if (unit[0] == 'n' && unit[1] == 's' && !unit[2] && v >= 0)
		return fmt_ns(buf, len, (uint64_t)v);
	buf[0] = '\0';
	return buf;
}

enum { SB_LABEL_CHARS = 28, SB_W = 760, SB_LABEL = 180, SB_RIGHT = 12, SB_TOP = 22, SB_BAR = 20, SB_GAP = 8 };

void svg_stacked_bars(FILE *f, const struct stacked_bars *b)
{
	const double pw = SB_W - SB_LABEL - SB_RIGHT;
	int h = SB_TOP + b->nr_cats * (SB_BAR + SB_GAP) + 4;

	fprintf(f, "<figure class=\"chart\" data-chart=\"");
	html_escape(f, b->id);
	fprintf(f, "\">\n<svg class=\"bars\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" "
		   "role=\"img\" xmlns=\"http://www.w3.org/2000/svg\">\n", SB_W, h, SB_W, h);
	/* axis: 0..100% of each bar */
	for (int t = 0; t <= 4; t++) {
		double x = SB_LABEL + pw * t / 4;

		fprintf(f, "<line class=\"grid\" x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\"/>"
			   "<text class=\"tick\" x=\"%.2f\" y=\"14\" text-anchor=\"middle\">%d%%</text>\n",
			x, SB_TOP - 4, x, h - 2, x, t * 25);
	}
	for (int c = 0; c < b->nr_cats; c++) {
		size_t len = strlen(b->cats[c]);

		fprintf(f, "<text class=\"cat\" x=\"%d\" y=\"%d\" text-anchor=\"end\">", SB_LABEL - 6,
			SB_TOP + c * (SB_BAR + SB_GAP) + SB_BAR - 6);
		/* a long label (a file path) keeps its end; the whole is in the tooltip */
		if (len > SB_LABEL_CHARS) {
			fputs("\xe2\x80\xa6", f);
			html_escape(f, b->cats[c] + len - (SB_LABEL_CHARS - 1));
			fputs("<title>", f);
			html_escape(f, b->cats[c]);
			fputs("</title>", f);
		} else {
			html_escape(f, b->cats[c]);
		}
		fprintf(f, "</text>\n");
	}
	for (int s = 0; s < b->nr_series; s++) {
		const char *color = b->colors && b->colors[s] ? b->colors[s] : series_color(s);

		fprintf(f, "<g class=\"series\" data-chart=\"");
		html_escape(f, b->id);
		fprintf(f, "\" data-series=\"");
		html_escape(f, b->series[s]);
		fprintf(f, "\" fill=\"%s\">\n", color);
		for (int c = 0; c < b->nr_cats; c++) {
			const double *row = &b->value[c * b->nr_series];
			double sum = 0, before = 0, scale, v = row[s];
			char raw[40], hum[32], pct[16];

			for (int k = 0; k < b->nr_series; k++) {
				sum += row[k];
				if (k < s)
					before += row[k];
			}
			scale = b->denom && b->denom[c] > sum ? b->denom[c] : sum;
			fprintf(f, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" data-v=\"%s\">"
				   "<title>",
				SB_LABEL + scale_lin(before, 0, scale, pw),
				SB_TOP + c * (SB_BAR + SB_GAP),
				scale_lin(before + v, 0, scale, pw) - scale_lin(before, 0, scale, pw),
				SB_BAR, fmt_exact(raw, sizeof(raw), v));
			html_escape(f, b->cats[c]);
			fputs(" \xc2\xb7 ", f);
			html_escape(f, b->series[s]);
			fprintf(f, ": %s %s", raw, b->unit);
			if (*human(hum, sizeof(hum), v, b->unit))
				fprintf(f, " (%s)", hum);
			fprintf(f, ", %s</title></rect>\n",
				fmt_pct(pct, sizeof(pct), scale > 0 ? v / scale : 0));
		}
		fprintf(f, "</g>\n");
	}
	fprintf(f, "</svg>\n<ul class=\"legend\">");
	for (int s = 0; s < b->nr_series; s++) {
		fprintf(f, "<li><svg width=\"12\" height=\"12\"><rect width=\"12\" height=\"12\" "
			   "fill=\"%s\"/></svg>",
			b->colors && b->colors[s] ? b->colors[s] : series_color(s));
		html_escape(f, b->series[s]);
		fprintf(f, "</li>");
	}
	fprintf(f, "</ul>\n</figure>\n");
}

enum { WB_W = 290, WB_LABEL = 26, WB_TEXT = 104, WB_TOP = 20, WB_BAR = 14, WB_GAP = 6 };

void svg_whisker_bars(FILE *f, const struct whisker_bars *b)
{
	const double pw = WB_W - WB_LABEL - WB_TEXT;
	int h = WB_TOP + b->n * (WB_BAR + WB_GAP) + 2;
	double max = 0;
	char v[40], lo[40], hi[40];

	for (int i = 0; i < b->n; i++) {
		if (isfinite(b->value[i]) && b->value[i] > max)
			max = b->value[i];
		if (isfinite(b->hi[i]) && b->hi[i] > max)
			max = b->hi[i];
	}
	fprintf(f, "<svg class=\"whisker\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" "
		   "role=\"img\" xmlns=\"http://www.w3.org/2000/svg\">\n<text x=\"%d\" y=\"13\">",
		WB_W, h, WB_W, h, WB_LABEL);
	html_escape(f, b->title);
	fprintf(f, "</text>\n<line class=\"grid\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n",
		WB_LABEL, WB_TOP - 2, WB_LABEL, h);
	fputs("<g class=\"series\" data-chart=\"", f);
	html_escape(f, b->id);
	fputs("\">\n", f);
	for (int i = 0; i < b->n; i++) {
		int y = WB_TOP + i * (WB_BAR + WB_GAP);
		bool bar = isfinite(b->value[i]), whisker = isfinite(b->lo[i]) && isfinite(b->hi[i]);
		double x = bar ? scale_lin(b->value[i], 0, max, pw) : 0;

		fprintf(f, "<text class=\"tick\" x=\"%d\" y=\"%d\" text-anchor=\"end\">", WB_LABEL - 4,
			y + WB_BAR - 3);
		html_escape(f, b->labels[i]);
		fputs("</text>", f);
		if (bar) {
			fprintf(f, "<rect class=\"bar\" x=\"%d\" y=\"%d\" width=\"%.2f\" height=\"%d\" "
				   "fill=\"%s\" data-v=\"%s\" data-lo=\"%s\" data-hi=\"%s\"><title>",
				WB_LABEL, y, x, WB_BAR, series_color(i), fmt_exact(v, sizeof(v), b->value[i]),
				whisker ? fmt_exact(lo, sizeof(lo), b->lo[i]) : "",
				whisker ? fmt_exact(hi, sizeof(hi), b->hi[i]) : "");
			html_escape(f, b->tips[i]);
			fputs("</title></rect>", f);
		}
		if (whisker) {
			double x1 = WB_LABEL + scale_lin(b->lo[i], 0, max, pw);
			double x2 = WB_LABEL + scale_lin(b->hi[i], 0, max, pw);
			int ym = y + WB_BAR / 2;

			fprintf(f, "<path class=\"whisker\" d=\"M%.2f %dV%dM%.2f %dH%.2fM%.2f %dV%d\"/>", x1,
				ym - 4, ym + 4, x1, ym, x2, x2, ym - 4, ym + 4);
		}
		fprintf(f, "<text x=\"%.2f\" y=\"%d\">", WB_LABEL + pw + 6, y + WB_BAR - 3);
		html_escape(f, b->texts[i]);
		fputs("</text>\n", f);
	}
	fputs("</g>\n</svg>\n", f);
}

enum { H_W = 760, H_H = 210, H_LEFT = 64, H_RIGHT = 30, H_TOP = 10, H_BOTTOM = 34 };

void svg_hist(FILE *f, const struct hist_chart *h)
{
	const double pw = H_W - H_LEFT - H_RIGHT, ph = H_H - H_TOP - H_BOTTOM;
	double xlo = INFINITY, xhi = 0, ymax = 0;
	char a[40], b2[40], c[40];

	for (int i = 0; i < h->n; i++) {
		/* on a log axis a bucket starting at 0 is drawn from half its end */
		double lo = h->linear || h->b[i].lo > 0 ? h->b[i].lo : h->b[i].hi / 2;

		if (lo < xlo)
			xlo = lo;
		if (h->b[i].hi > xhi)
			xhi = h->b[i].hi;
		if (h->b[i].count > ymax)
			ymax = h->b[i].count;
	}
	if (!h->n)
		xlo = 0, xhi = 1;
	if (!h->linear) {
		xlo = pow(10, floor(log10(xlo > 1 ? xlo : 1)));
		xhi = pow(10, ceil(log10(xhi > xlo ? xhi : xlo * 10)));
		if (xhi <= xlo)
			xhi = xlo * 10;
	} else if (xhi <= xlo) {
		xhi = xlo + 1;
	}
	fprintf(f, "<figure class=\"chart\" data-chart=\"");
	html_escape(f, h->id);
	fprintf(f, "\">\n<svg class=\"hist\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" "
		   "role=\"img\" xmlns=\"http://www.w3.org/2000/svg\">\n", H_W, H_H, H_W, H_H);
	/* y: 0, half and the largest count */
	for (int t = 0; t <= 2; t++) {
		double y = H_TOP + ph - ph * t / 2;

		fprintf(f, "<line class=\"grid\" x1=\"%d\" y1=\"%.2f\" x2=\"%d\" y2=\"%.2f\"/>"
			   "<text class=\"tick\" x=\"%d\" y=\"%.2f\" text-anchor=\"end\">%s</text>\n",
			H_LEFT, y, H_W - H_RIGHT, y, H_LEFT - 6, y + 4,
			/* the middle tick is a position, not a count: rounded */
			t == 1 ? (snprintf(a, sizeof(a), "%.0f", ymax / 2), a)
			       : fmt_exact(a, sizeof(a), t == 2 ? ymax : 0));
	}
	/* x: decades on a log axis, quarters on a linear one */
	if (h->linear) {
		for (int t = 0; t <= 4; t++) {
			double v = xlo + (xhi - xlo) * t / 4, x = H_LEFT + pw * t / 4;

			fprintf(f, "<text class=\"tick\" x=\"%.2f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
				x, H_H - 12, fmt_ns(a, sizeof(a), (uint64_t)v));
		}
	} else {
		for (double v = xlo; v <= xhi * 1.0001; v *= 10) {
			double x = H_LEFT + scale_log(v, xlo, xhi, pw);

			fprintf(f, "<line class=\"grid\" x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%.2f\"/>"
				   "<text class=\"tick\" x=\"%.2f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
				x, H_TOP, x, H_TOP + ph, x, H_H - 12, fmt_ns(a, sizeof(a), (uint64_t)v));
		}
	}
	fprintf(f, "<g class=\"series\" data-chart=\"");
	html_escape(f, h->id);
	fprintf(f, "\" data-series=\"count\" fill=\"%s\">\n", series_color(0));
	for (int i = 0; i < h->n; i++) {
		const struct hist_bucket *k = &h->b[i];
		double lo = h->linear || k->lo > 0 ? k->lo : k->hi / 2;
		double x1 = h->linear ? scale_lin(lo, xlo, xhi, pw) : scale_log(lo, xlo, xhi, pw);
		double x2 = h->linear ? scale_lin(k->hi, xlo, xhi, pw) : scale_log(k->hi, xlo, xhi, pw);
		double bh = ymax > 0 ? ph * k->count / ymax : 0;

		if (x2 - x1 < 1)
			x2 = x1 + 1; /* a narrow bucket stays visible */
		fmt_exact(a, sizeof(a), k->lo);
		fmt_exact(b2, sizeof(b2), k->hi);
		fmt_exact(c, sizeof(c), k->count);
		fprintf(f, "<rect class=\"bar\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
			   "data-lo=\"%s\" data-hi=\"%s\" data-v=\"%s\"><title>",
			H_LEFT + x1, H_TOP + ph - bh, x2 - x1, bh, a, k->open ? "" : b2, c);
		if (k->open)
			fprintf(f, "[%s ns, open): %s %s", a, c, h->what);
		else
			fprintf(f, "[%s ns, %s ns): %s %s", a, b2, c, h->what);
		fprintf(f, "</title></rect>\n");
	}
	fprintf(f, "</g>\n</svg>\n</figure>\n");
}
