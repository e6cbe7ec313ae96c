/* The comparison view of two or more summaries, as `idlescope compare`
 * computes it (flat metrics matched by name, OTHER - BASE), with the
 * all-CPU residency and wakeup causes of each input side by side. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "report/html.h"
#include "report/report_compare.h"
#include "report/svg_chart.h"

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

static void value_cell(FILE *f, const char *cls, int i, bool have, double v, bool pct)
{
	char raw[48];

	if (!have) {
		fprintf(f, "<td class=\"n %s\" data-i=\"%d\" data-v=\"null\">-</td>", cls, i);
		return;
	}
	fmt_exact(raw, sizeof(raw), v);
	if (pct)
		fprintf(f, "<td class=\"n %s\" data-i=\"%d\" data-v=\"%s\">%+.1f%%</td>", cls, i, raw, v);
	else
		fprintf(f, "<td class=\"n %s\" data-i=\"%d\" data-v=\"%s\">%s</td>", cls, i, raw, raw);
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
		value_cell(f, "v", 0, true, b->value, false);
		for (int i = 1; i < ns; i++) {
			const struct metric_kv *o = metric_find(&in[idx[i]].m, b->key);

			value_cell(f, "v", i, o, o ? o->value : 0, false);
			value_cell(f, "d", i, o, o ? o->value - b->value : 0, false);
			value_cell(f, "dp", i, o && b->value != 0,
				   o && b->value != 0 ? 100.0 * (o->value - b->value) / fabs(b->value) : 0, true);
		}
		fputs("</tr>\n", f);
	}
	fputs(only_changed ? "</table></div>\n" : "</table></div></details>\n", f);
}

void report_compare_section(FILE *f, const struct report_input *in, int n)
{
	int *idx = calloc((size_t)n, sizeof(*idx)), ns = 0;

	if (!idx)
		return;
	for (int i = 0; i < n; i++)
		if (in[i].summary)
			idx[ns++] = i;
	fputs("<section id=\"compare\">\n<h2>Comparison</h2>\n<p class=\"note\">The summaries side by "
	      "side, as <code>idlescope compare</code> matches them: metrics by name (CPU number, state "
	      "and group names), the first file is the base, delta = value \xe2\x88\x92 base, delta% "
	      "against the base's absolute value.</p>\n", f);
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
