/* The comparison view of two or more summaries, as `idlescope compare`
 * computes it: its state and wakeup tables (variants of runs, tested), the
 * largest differences, the all-CPU residency and wakeup causes side by side,
 * and the flat metrics matched by name (OTHER - BASE). */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "model/compare_view.h"
#include "report/html.h"
#include "report/report_compare.h"
#include "report/svg_chart.h"
#include "util/units.h"

#define MAX_SERIES 64

static void residency_by_input(FILE *f, const struct report_input *in, int n, const int *idx, int ns)
{
	const char *series[MAX_SERIES + 2], *colors[MAX_SERIES + 2] = { 0 }, **cats;
	double *val, *den;
	int nser = 0;

	for (int i = 0; i < ns; i++) {
		const json_t *st;
		size_t j;

		json_array_foreach(json_object_get(json_object_get(in[idx[i]].summary, "totals"), "states"), j, st) {
			const char *name = json_string_value(json_object_get(st, "name"));
			int k;

			for (k = 0; k < nser && strcmp(series[k], name ? name : ""); k++)
				;
			if (k == nser && nser < MAX_SERIES)
				series[nser++] = name ? name : "";
		}
	}
	series[nser] = "edge idle";
	colors[nser++] = "#c9d1d9";
	series[nser] = "busy";
	colors[nser++] = "#6e7781";
	cats = calloc((size_t)ns, sizeof(*cats));
	val = calloc((size_t)ns * (size_t)nser, sizeof(*val));
	den = calloc((size_t)ns, sizeof(*den));
	if (cats && val && den) {
		for (int i = 0; i < ns; i++) {
			const json_t *d = in[idx[i]].summary, *t = json_object_get(d, "totals"), *st;
			size_t j;

			cats[i] = in[idx[i]].label;
			den[i] = json_number_value(json_object_get(d, "duration_ns")) *
				 (double)json_array_size(json_object_get(d, "cpus"));
			json_array_foreach(json_object_get(t, "states"), j, st) {
				const char *name = json_string_value(json_object_get(st, "name"));

				for (int k = 0; k < nser - 2; k++)
					if (!strcmp(series[k], name ? name : ""))
						val[i * nser + k] += json_number_value(json_object_get(st, "time_ns"));
			}
			val[i * nser + nser - 2] = json_number_value(json_object_get(t, "edge_idle_ns"));
			val[i * nser + nser - 1] = json_number_value(json_object_get(t, "busy_ns"));
		}
		fputs("<h3 id=\"compare-residency\">All-CPU residency by input</h3>\n", f);
		svg_stacked_bars(f, &(struct stacked_bars){ "compare-residency", ns, nser, cats, series,
							    colors, val, den, "ns" });
	}
	free(cats);
	free(val);
	free(den);
	(void)n;
}

static void wakeups_by_input(FILE *f, const struct report_input *in, const int *idx, int ns)
{
	const json_t *first = json_object_get(
		json_object_get(json_object_get(in[idx[0]].summary, "totals"), "wakeups"), "causes");
	int nc = (int)json_object_size(first), k = 0;
	const char **causes = calloc((size_t)nc + 1, sizeof(*causes)), **cats = calloc((size_t)ns, sizeof(*cats));
	double *val = calloc((size_t)ns * (size_t)(nc ? nc : 1), sizeof(*val));
	const char *key;
	json_t *v;

	if (!causes || !cats || !val || !nc)
		goto out;
	for (int i = 0; i < ns; i++)
		if (!json_is_object(json_object_get(json_object_get(in[idx[i]].summary, "totals"), "wakeups")))
			goto out; /* --no-wakeups in one of them */
	json_object_foreach((json_t *)first, key, v)
		causes[k++] = key;
	for (int i = 0; i < ns; i++) {
		const json_t *cs = json_object_get(
			json_object_get(json_object_get(in[idx[i]].summary, "totals"), "wakeups"), "causes");

		cats[i] = in[idx[i]].label;
		for (k = 0; k < nc; k++)
			val[i * nc + k] = json_number_value(json_object_get(json_object_get(cs, causes[k]), "count"));
	}
	fputs("<h3 id=\"compare-wakeups\">Wakeup causes by input (all CPUs)</h3>\n", f);
	svg_stacked_bars(f, &(struct stacked_bars){ "compare-wakeups", ns, nc, cats, causes, NULL, val,
						    NULL, "periods" });
out:
	free(causes);
	free(cats);
	free(val);
}

/* The last field of a flat name: "cpu[1].state[C1].time_ns" -> "time_ns". */
static const char *last_field(const char *key)
{
	const char *dot = strrchr(key, '.');

	return dot ? dot + 1 : key;
}

static bool ends_with(const char *s, const char *end)
{
	size_t n = strlen(s), m = strlen(end);

	return n >= m && !strcmp(s + n - m, end);
}

/* key's value in human units: durations, shares and ratios in %, else the
 * number with at most 4 significant digits (integers whole). */
static void human(char *buf, size_t len, const char *key, double v, bool sign)
{
	const char *k = last_field(key);

	if (ends_with(k, "_ns"))
		cv_number_text(buf, len, CV_NS, v, sign);
	else if (ends_with(k, "share") || ends_with(k, "_ratio"))
		cv_number_text(buf, len, CV_SHARE, v, sign);
	else if (v == floor(v) && fabs(v) < 1e15)
		snprintf(buf, len, sign ? "%+.0f" : "%.0f", v);
	else
		snprintf(buf, len, sign ? "%+.4g" : "%.4g", v);
}

static void value_cell(FILE *f, const char *cls, int i, bool have, double v, bool pct,
		       const char *key)
{
	char raw[48], shown[48];

	if (!have) {
		fprintf(f, "<td class=\"n %s\" data-i=\"%d\" data-v=\"null\">-</td>", cls, i);
		return;
	}
	fmt_exact(raw, sizeof(raw), v);
	if (pct)
		snprintf(shown, sizeof(shown), "%+.1f%%", v);
	else
		human(shown, sizeof(shown), key, v, !strcmp(cls, "d"));
	fprintf(f, "<td class=\"n %s\" title=\"%s\" data-i=\"%d\" data-v=\"%s\">%s</td>", cls, raw,
		i, raw, shown);
}

/* Whether a metric differs from base in any input, or is missing there. */
static bool changed(const struct report_input *in, const int *idx, int ns, const struct metric_kv *b)
{
	for (int i = 1; i < ns; i++) {
		const struct metric_kv *o = metric_find(&in[idx[i]].m, b->key);

		if (!o || o->value != b->value)
			return true;
	}
	return false;
}

/* All metrics (under a closed <details>), or only those that changed. */
static void metrics_table(FILE *f, const struct report_input *in, const int *idx, int ns,
			  bool only_changed)
{
	const struct metric_set *base = &in[idx[0]].m;
	int shown = 0;

	for (int r = 0; r < base->n; r++)
		shown += !only_changed || changed(in, idx, ns, &base->kv[r]);
	if (only_changed)
		fprintf(f, "<h3 id=\"compare-changed\">Metrics that differ (%d of %d)</h3>\n", shown,
			base->n);
	else
		fprintf(f, "<h3 id=\"compare-metrics\">All metrics</h3>\n<details><summary>%d metrics "
			   "of the base, with the others' values</summary>\n", base->n);
	fprintf(f, "<div class=\"wide\"><table class=\"data compare %s\">\n<tr><th>metric</th>",
		only_changed ? "changed" : "all");
	for (int i = 0; i < ns; i++) {
		fputs("<th title=\"", f);
		html_escape(f, in[idx[i]].path);
		fputs("\">", f);
		html_escape(f, in[idx[i]].label);
		fputs(i ? "</th><th>delta</th><th>delta%</th>" : "</th>", f);
	}
	fputs("</tr>\n", f);
	for (int r = 0; r < base->n; r++) {
		const struct metric_kv *b = &base->kv[r];

		if (only_changed && !changed(in, idx, ns, b))
			continue;
		fputs("<tr data-metric=\"", f);
		html_escape(f, b->key);
		fputs("\"><td>", f);
		html_escape(f, b->key);
		fputs("</td>", f);
		value_cell(f, "v", 0, true, b->value, false, b->key);
		for (int i = 1; i < ns; i++) {
			const struct metric_kv *o = metric_find(&in[idx[i]].m, b->key);

			value_cell(f, "v", i, o, o ? o->value : 0, false, b->key);
			value_cell(f, "d", i, o, o ? o->value - b->value : 0, false, b->key);
			value_cell(f, "dp", i, o && b->value != 0,
				   o && b->value != 0 ? 100.0 * (o->value - b->value) / fabs(b->value) : 0, true,
				   b->key);
		}
		fputs("</tr>\n", f);
	}
	fputs(only_changed ? "</table></div>\n" : "</table></div></details>\n", f);
}


/* One cell of the view: its text, the exact number in data-v, and in the
 * tooltip the exact number with the runs' statistics and the test. */
static void view_cell(FILE *f, const struct compare_view *v, const struct cv_table *t,
		      const struct cv_row *r, int variant, int col)
{
	const struct cv_cell *c = &r->cells[variant * t->ncols + col];
	char text[96], raw[48] = "null";
	double x;
	bool have = cv_cell_value(t, r, variant, col, &x);

	if (have)
		fmt_exact(raw, sizeof(raw), x);
	fprintf(f, "<td class=\"n cv%s\" title=\"", c->tested && c->w.significant ? " sig" : "");
	if (!have)
		fputs(c->have ? "never entered" : "not in this input", f);
	else if (variant == 0)
		fprintf(f, "%s%s (n=%d)", raw, t->unit[col] == CV_NS ? " ns" : "", c->st.n);
	else if (c->tested)
		fprintf(f, "%s%s \xc2\xb1 %.6g at 95%%, Welch t=%.3g, df=%.3g: %s", raw,
			t->unit[col] == CV_NS ? " ns" : "", c->w.half_width, c->w.t, c->w.df,
			c->w.significant ? "significant" : "no difference proven");
	else
		fprintf(f, "%s%s (not tested: one run)", raw, t->unit[col] == CV_NS ? " ns" : "");
	fprintf(f, "\" data-i=\"%d\" data-e=\"", variant);
	html_escape(f, r->entity);
	fputs("\" data-s=\"", f);
	html_escape(f, r->label);
	fputs("\" data-c=\"", f);
	html_escape(f, t->cols[col]);
	fprintf(f, "\" data-v=\"%s\">", raw);
	html_escape(f, cv_cell_text(text, sizeof(text), v, t, r, variant, col));
	fputs("</td>", f);
}

/* A variant's tag in the tables' headers: A..Z, then V27 and on. */
static const char *tag(char *buf, size_t len, int i)
{
	if (i < 26)
		snprintf(buf, len, "%c", 'A' + i);
	else
		snprintf(buf, len, "V%d", i + 1);
	return buf;
}

static void row_name(FILE *f, const struct cv_row *row)
{
	html_escape(f, row->entity);
	if (*row->label) {
		fputs(": ", f);
		html_escape(f, row->label);
	}
}

/* The table as the EAS thread's: a row per entity (and state), under each
 * column the base's value and each other variant's difference. Sortable:
 * every header with a data-col (the page's script). */
static void view_table(FILE *f, const struct compare_view *v, const struct cv_table *t,
		       const char *const *names, const char *pre, const char *id,
		       const char *first_col)
{
	char a[16], b[16];
	int k = 1;

	fprintf(f, "<div class=\"wide\"><table class=\"data cv sortable\" id=\"%s%s\">\n<thead><tr>"
		   "<th rowspan=\"2\" data-col=\"0\">%s</th>", pre, id, first_col);
	for (int c = 0; c < t->ncols; c++) {
		fprintf(f, "<th colspan=\"%d\" class=\"cv-col\">", v->nr_variants);
		html_escape(f, t->cols[c]);
		fputs("</th>", f);
	}
	fputs("</tr>\n<tr>", f);
	for (int c = 0; c < t->ncols; c++)
		for (int i = 0; i < v->nr_variants; i++) {
			fprintf(f, "<th data-col=\"%d\" title=\"", k++);
			if (i)
				fprintf(f, "%s \xe2\x88\x92 %s: ", tag(a, sizeof(a), i), tag(b, sizeof(b), 0));
			html_escape(f, names[i]);
			fprintf(f, "\">%s%s</th>", i ? "\xce\x94" : "", tag(a, sizeof(a), i));
		}
	fputs("</tr></thead>\n<tbody>\n", f);
	for (int r = 0; r < t->nrows; r++) {
		fputs("<tr><th>", f);
		row_name(f, &t->rows[r]);
		fputs("</th>", f);
		for (int c = 0; c < t->ncols; c++)
			for (int i = 0; i < v->nr_variants; i++)
				view_cell(f, v, t, &t->rows[r], i, c);
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table></div>\n", f);
}

/* The tags' meanings, above the tables. */
static void variant_legend(FILE *f, const struct compare_view *v, const char *const *names)
{
	char a[16];

	fputs("<ul class=\"variants\">", f);
	for (int i = 0; i < v->nr_variants; i++) {
		fprintf(f, "<li><span class=\"tag\">%s</span> ", tag(a, sizeof(a), i));
		html_escape(f, names[i]);
		fprintf(f, "%s</li>", i ? "" : " (the base)");
	}
	fputs("</ul>\n", f);
}

struct diff_ref {
	const struct cv_row *row;
	int variant;
	double d;
};

static int by_size(const void *a, const void *b)
{
	double x = fabs(((const struct diff_ref *)a)->d), y = fabs(((const struct diff_ref *)b)->d);

	return x < y ? 1 : x > y ? -1 : 0;
}

#define TOP_DIFFS 20

/* Written in this order; a click on a header sorts by another column. */
static void largest_differences(FILE *f, const struct compare_view *v, const char *const *names,
				const char *pre)
{
	const struct cv_table *t = &v->states;
	struct diff_ref *d = calloc((size_t)t->nrows * (size_t)v->nr_variants + 1, sizeof(*d));
	int n = 0;
	char a[16];

	if (!d)
		return;
	for (int r = 0; r < t->nrows; r++)
		for (int i = 1; i < v->nr_variants; i++) {
			double x;

			if (cv_cell_value(t, &t->rows[r], i, 0, &x) && x != 0)
				d[n++] = (struct diff_ref){ &t->rows[r], i, x };
		}
	qsort(d, (size_t)n, sizeof(*d), by_size);
	fprintf(f, "<h3 id=\"%scompare-largest\">Largest differences in time</h3>\n<p class=\"note\">"
		   "The rows above sorted by the size of their time difference, largest first (the "
		   "%d largest of %d); a click on a column's header sorts by that column, a second "
		   "click reverses.</p>\n",
		pre, n < TOP_DIFFS ? n : TOP_DIFFS, n);
	if (n) {
		fprintf(f, "<div class=\"wide\"><table class=\"data cv sortable\" id=\"%scv-largest\">\n"
			   "<thead><tr><th data-col=\"0\">group or CPU: state</th><th data-col=\"1\">"
			   "input</th>", pre);
		for (int c = 0; c < t->ncols; c++) {
			fprintf(f, "<th data-col=\"%d\">", c + 2);
			html_escape(f, t->cols[c]);
			fputs("</th>", f);
		}
		fputs("</tr></thead>\n<tbody>\n", f);
		for (int k = 0; k < n && k < TOP_DIFFS; k++) {
			fputs("<tr><th>", f);
			row_name(f, d[k].row);
			fprintf(f, "</th><td>%s: ", tag(a, sizeof(a), d[k].variant));
			html_escape(f, names[d[k].variant]);
			fputs("</td>", f);
			for (int c = 0; c < t->ncols; c++)
				view_cell(f, v, t, d[k].row, d[k].variant, c);
			fputs("</tr>\n", f);
		}
		fputs("</tbody></table></div>\n", f);
	}
	free(d);
}

static int col_named(const struct cv_table *t, const char *name)
{
	for (int c = 0; c < t->ncols; c++)
		if (!strcmp(t->cols[c], name))
			return c;
	return -1;
}

/* One panel of a state's chart: each variant's own mean of column col
 * (not its difference), its 95% interval as the whisker. */
static void state_panel(FILE *f, const struct compare_view *v, const struct cv_table *t,
			const struct cv_row *r, int col, const char *const *names, const char *id,
			const char *title)
{
	int nv = v->nr_variants;
	double *val = calloc((size_t)nv * 3, sizeof(*val));
	char (*lab)[16] = calloc((size_t)nv, sizeof(*lab)), (*txt)[80] = calloc((size_t)nv, sizeof(*txt));
	char (*tip)[400] = calloc((size_t)nv, sizeof(*tip));
	const char **lp = calloc((size_t)nv * 3, sizeof(*lp));

	if (!val || !lab || !txt || !tip || !lp)
		goto out;
	for (int i = 0; i < nv; i++) {
		const struct cv_cell *c = &r->cells[i * t->ncols + col];
		double hw = cv_cell_half_width(c);
		char m[32], h[32];

		tag(lab[i], sizeof(lab[i]), i);
		val[i] = val[nv + i] = val[2 * nv + i] = NAN;
		if (!c->have || c->na) {
			snprintf(txt[i], sizeof(txt[i]), "%s", c->have ? "n.a." : "-");
			snprintf(tip[i], sizeof(tip[i]), "%s", c->have ? "never entered" : "not in this input");
			continue;
		}
		val[i] = c->st.mean;
		cv_number_text(m, sizeof(m), t->unit[col], c->st.mean, false);
		if (isnan(hw)) {
			snprintf(txt[i], sizeof(txt[i]), "%s", m);
			snprintf(tip[i], sizeof(tip[i]), "%.60s: %s (one run)", names[i], m);
		} else {
			val[nv + i] = c->st.mean - hw;
			val[2 * nv + i] = c->st.mean + hw;
			cv_number_text(h, sizeof(h), t->unit[col], hw, false);
			snprintf(txt[i], sizeof(txt[i]), "%s \xc2\xb1%s", m, h);
			snprintf(tip[i], sizeof(tip[i]), "%.60s: %s \xc2\xb1 %s, the mean of %d runs and its "
							 "95%% interval", names[i], m, h, c->st.n);
		}
	}
	for (int i = 0; i < nv; i++) {
		lp[i] = lab[i];
		lp[nv + i] = txt[i];
		lp[2 * nv + i] = tip[i];
	}
	svg_whisker_bars(f, &(struct whisker_bars){ id, title, nv, lp, &lp[2 * nv], &lp[nv], val,
						    &val[nv], &val[2 * nv] });
out:
	free(val);
	free(lab);
	free(txt);
	free(tip);
	free(lp);
}

/* A small chart per row of the states table: share and entries. */
static void state_charts(FILE *f, const struct compare_view *v, const char *const *names,
			 const char *pre)
{
	const struct cv_table *t = &v->states;
	int share = col_named(t, "share"), entries = col_named(t, "entries");
	char id[96];

	if (!t->nrows || share < 0 || entries < 0)
		return;
	fprintf(f, "<h3 id=\"%scompare-state-charts\">Each state, variant by variant</h3>\n"
		   "<p class=\"note\">Each variant's own mean (not its difference): the share of the "
		   "window spent in the state and the entries; the whisker is the 95%% interval of the "
		   "mean where a variant has two runs or more.</p>\n<div class=\"small-charts\">\n", pre);
	for (int r = 0; r < t->nrows; r++) {
		fprintf(f, "<figure class=\"chart state\" data-chart=\"%sstate-%d\" data-e=\"", pre, r);
		html_escape(f, t->rows[r].entity);
		fputs("\" data-s=\"", f);
		html_escape(f, t->rows[r].label);
		fputs("\"><figcaption>", f);
		row_name(f, &t->rows[r]);
		fputs("</figcaption>\n", f);
		snprintf(id, sizeof(id), "%sstate-%d-share", pre, r);
		state_panel(f, v, t, &t->rows[r], share, names, id, "share of the window");
		snprintf(id, sizeof(id), "%sstate-%d-entries", pre, r);
		state_panel(f, v, t, &t->rows[r], entries, names, id, "entries");
		fputs("</figure>\n", f);
	}
	fputs("</div>\n", f);
}

void report_view_section(FILE *f, const struct compare_view *v, const char *const *names,
			 const char *pre)
{
	bool tested = true;

	for (int i = 0; i < v->nr_variants; i++)
		tested &= v->nr_runs[i] > 1;
	fprintf(f, "<h3 id=\"%scompare-states\">Idle states per group</h3>\n<p class=\"note\">As "
		   "<code>idlescope compare</code> prints it: for all CPUs and each topology group, per "
		   "state, the base's value (A), then each other variant's difference from it (a share's "
		   "in percentage points); too deep and too shallow are the CPUs' counts (a group's: the "
		   "sum over its CPUs); <strong>n.a.</strong>: never entered. The tooltip has the exact "
		   "number; a click on a header sorts by its column.", pre);
	fputs(tested ? " Each cell is the mean of the runs \xc2\xb1 its 95% interval; "
		       "<span class=\"sig\">bold</span> with * is a difference Welch's t-test finds "
		       "significant.</p>\n"
		     : " No repetitions: an input of one run, so no difference is tested (give "
		       "runs per variant separated by <code>--</code>).</p>\n",
	      f);
	variant_legend(f, v, names);
	view_table(f, v, &v->states, names, pre, "cv-states", "group or CPU: state");
	if (v->figures.nrows) {
		fprintf(f, "<h3 id=\"%scompare-figures\">The workload's own figures</h3>\n", pre);
		view_table(f, v, &v->figures, names, pre, "cv-figures", "source");
	}
	state_charts(f, v, names, pre);
	if (v->wakeups.nrows) {
		fprintf(f, "<h3 id=\"%scompare-causes\">Wakeup causes per group</h3>\n", pre);
		view_table(f, v, &v->wakeups, names, pre, "cv-wakeups", "group or CPU");
	}
	if (v->misses.nrows) {
		fprintf(f, "<h3 id=\"%scompare-misses\">Why the governor missed</h3>\n<p class=\"note\">"
			   "Of the periods whose governor inputs were seen: too deep with the timer near "
			   "or woken early; too shallow for PM QoS (all such periods), with the tick kept, "
			   "predicted short, or the timer moved.</p>\n", pre);
		view_table(f, v, &v->misses, names, pre, "cv-misses", "CPU: state");
	}
	largest_differences(f, v, names, pre);
}

/* compare's table over the summaries, their variants as the inputs say. */
static void view_section(FILE *f, const struct report_input *in, const int *idx, int ns)
{
	const json_t **docs = calloc((size_t)ns, sizeof(*docs));
	int *runs = calloc((size_t)ns, sizeof(*runs)), nv = 0;
	char (*names)[96] = calloc((size_t)ns, sizeof(*names));
	const char **np = calloc((size_t)ns, sizeof(*np));
	struct compare_view v;

	if (!docs || !runs || !names || !np)
		goto out;
	for (int i = 0; i < ns; i++) {
		docs[i] = in[idx[i]].summary;
		if (!i || in[idx[i]].variant != in[idx[i - 1]].variant) {
			snprintf(names[nv], sizeof(names[nv]), "%s", in[idx[i]].label);
			np[nv] = names[nv];
			nv++;
		}
		runs[nv - 1]++;
	}
	for (int i = 0; i < nv; i++)
		if (runs[i] > 1) {
			size_t l = strlen(names[i]);

			snprintf(names[i] + l, sizeof(names[i]) - l, " (%d runs)", runs[i]);
		}
	if (nv < 2 || compare_view_build(docs, runs, nv, false, &v))
		goto out;
	report_view_section(f, &v, np, "");
	compare_view_free(&v);
out:
	free(docs);
	free(runs);
	free(names);
	free(np);
}

void report_compare_section(FILE *f, const struct report_input *in, int n)
{
	int *idx = calloc((size_t)n, sizeof(*idx)), ns = 0;

	if (!idx)
		return;
	for (int i = 0; i < n; i++)
		if (in[i].summary)
			idx[ns++] = i;
	fputs("<section id=\"compare\">\n<h2>Comparison</h2>\n", f);
	view_section(f, in, idx, ns);
	fputs("<p class=\"note\">Below, the summaries side by side, as <code>idlescope compare "
	      "--all</code> matches them: metrics by name (CPU number, state and group names), the "
	      "first file is the base, delta = value \xe2\x88\x92 base, delta% against the base's "
	      "absolute value.</p>\n", f);
	residency_by_input(f, in, n, idx, ns);
	wakeups_by_input(f, in, idx, ns);
	metrics_table(f, in, idx, ns, true);
	metrics_table(f, in, idx, ns, false);
	for (int i = 1; i < ns; i++)
		for (int dir = 0; dir < 2; dir++) {
			const struct report_input *a = &in[idx[dir ? i : 0]], *o = &in[idx[dir ? 0 : i]];
			json_t *u = metric_unmatched(&a->m, &o->m), *e;
			size_t k;

			if (json_array_size(u)) {
				fputs("<h4>Unmatched: only in ", f);
				html_escape(f, a->path);
				fputs(", not in ", f);
				html_escape(f, o->path);
				fputs("</h4>\n<ul class=\"unmatched\">", f);
				json_array_foreach(u, k, e) {
					fputs("<li>", f);
					html_escape(f, json_string_value(e));
					fputs("</li>", f);
				}
				fputs("</ul>\n", f);
			}
			json_decref(u);
		}
	fputs("</section>\n", f);
	free(idx);
}
