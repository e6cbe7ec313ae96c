/* The report section of one `record` summary (idlescope/1): residency per
 * CPU and group, wakeup causes, the chosen x ideal matrices, residency and
 * timer-lateness histograms, wakeup details, packing and frequency. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report/html.h"
#include "report/report_gov.h"
#include "report/report_qos.h"
#include "report/report_summary.h"
#include "report/svg_chart.h"
#include "util/units.h"

#define EDGE_COLOR "#c9d1d9"
#define BUSY_COLOR "#6e7781"
/* wakeup_details rows shown per table; the JSON has them all */
#define DETAIL_ROWS 20

/* Series names of a chart: those from the JSON (deduplicated, at most
 * MAX_NAMED; cpuidle has at most 10 states), then fixed ones pushed after. */
#define MAX_NAMED 62
struct names {
	int n;
	const char *v[MAX_NAMED + 2];
};

static int names_find(const struct names *s, const char *name)
{
	for (int i = 0; i < s->n; i++)
		if (!strcmp(s->v[i], name))
			return i;
	return -1;
}

static void names_add(struct names *s, const char *name)
{
	if (names_find(s, name) < 0 && s->n < MAX_NAMED)
		s->v[s->n++] = name;
}

static void names_push(struct names *s, const char *name)
{
	s->v[s->n++] = name;
}

/* The string member key of object o, "" when o lacks it or it is no string. */
static const char *string_member(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

static double jnum(const json_t *o, const char *key)
{
	return json_number_value(json_object_get(o, key));
}

static void cell(FILE *f, int fi, const json_t *o, const char *key, const char *prefix)
{
	char p[256];

	html_num_cell(f, fi, json_object_get(o, key), report_path(p, sizeof(p), "%s.%s", prefix, key));
}

static void pct_cell(FILE *f, int fi, const json_t *o, const char *key, const char *prefix)
{
	char p[256];

	html_pct_cell(f, fi, json_object_get(o, key), report_path(p, sizeof(p), "%s.%s", prefix, key));
}

/* The keys as headers, "_ns" dropped: the cells carry their units. */
static void th_row(FILE *f, const char *const *cols)
{
	fputs("<tr>", f);
	for (; *cols; cols++) {
		size_t n = strlen(*cols);

		if (n > 3 && !strcmp(*cols + n - 3, "_ns"))
			n -= 3;
		fprintf(f, "<th>%.*s</th>", (int)n, *cols);
	}
	fputs("</tr>\n", f);
}

/* "cpu 3" or "all" for cpus[i] / totals */
static void cpu_label(char *buf, size_t len, const json_t *c)
{
	json_t *n = json_object_get(c, "cpu");

	if (json_is_integer(n))
		snprintf(buf, len, "cpu %" JSON_INTEGER_FORMAT, json_integer_value(n));
	else
		snprintf(buf, len, "all");
}

/* cpus[0..n) then totals, with their JSON path prefixes */
struct cpu_row {
	const json_t *c;
	char prefix[32];
	char label[32];
};

static int cpu_rows(const json_t *doc, struct cpu_row **out)
{
	const json_t *cpus = json_object_get(doc, "cpus");
	size_t n = json_array_size(cpus), i;
	struct cpu_row *r = calloc(n + 1, sizeof(*r));

	if (!r)
		return -1;
	for (i = 0; i < n; i++) {
		r[i].c = json_array_get(cpus, i);
		snprintf(r[i].prefix, sizeof(r[i].prefix), "cpus.%zu", i);
		cpu_label(r[i].label, sizeof(r[i].label), r[i].c);
	}
	r[n].c = json_object_get(doc, "totals");
	snprintf(r[n].prefix, sizeof(r[n].prefix), "totals");
	snprintf(r[n].label, sizeof(r[n].label), "all");
	*out = r;
	return (int)n + 1;
}

static void span_num(FILE *f, int fi, const json_t *v, const char *path)
{
	char raw[48];

	fprintf(f, "<span data-f=\"%d\" data-p=\"%s\" data-v=\"%s\">%s</span>", fi, path,
		fmt_json_number(raw, sizeof(raw), v), json_is_number(v) ? raw : "n/a");
}

/* The EAS context line (eas: absent in summaries before it existed). */
static void eas(FILE *f, int fi, const json_t *e)
{
	const json_t *cap = json_object_get(e, "cpu_capacity"), *x;
	char p[64];
	size_t i;

	if (!json_is_object(e))
		return;
	fputs("</dd><dt>EAS</dt><dd>sched_energy_aware ", f);
	span_num(f, fi, json_object_get(e, "sched_energy_aware"), "eas.sched_energy_aware");
	fputs(", energy model ", f);
	html_escape(f, string_member(e, "energy_model"));
	fputs(", cpu_capacity ", f);
	if (!json_is_array(cap))
		fputs("n/a", f);
	json_array_foreach(cap, i, x) {
		if (i)
			fputs(",", f);
		span_num(f, fi, x, report_path(p, sizeof(p), "eas.cpu_capacity.%zu", i));
	}
}

/* The rows of the cross-check against sysfs, folded. */
static void kernel_check(FILE *f, int fi, const json_t *kc)
{
	const json_t *rows = json_object_get(kc, "rows"), *r;
	char p[64], q[96];
	size_t i;

	if (!json_array_size(rows))
		return;
	fputs("<details><summary>kernel cross-check: BPF against the sysfs cpuidle counters</summary>"
	      "<div class=\"wide\"><table class=\"data\"><tr><th>CPU</th><th>state</th><th>BPF entries</th>"
	      "<th>usage</th><th>rejected</th><th>entries_diff</th><th>entries_allowed</th>"
	      "<th>BPF time_ns</th><th>kernel time_ns</th><th>time_diff_ns</th>"
	      "<th>bias_ns_per_period</th><th>ok</th></tr>\n", f);
	json_array_foreach(rows, i, r) {
		const json_t *cpu = json_object_get(r, "cpu");
		char label[32];

		report_path(p, sizeof(p), "kernel_check.rows.%zu", i);
		if (json_is_integer(cpu))
			snprintf(label, sizeof(label), "cpu %" JSON_INTEGER_FORMAT, json_integer_value(cpu));
		else
			snprintf(label, sizeof(label), "all");
		fputs("<tr>", f);
		html_text_cell(f, label);
		html_text_cell(f, string_member(r, "name"));
		cell(f, fi, json_object_get(r, "bpf"), "entries", report_path(q, sizeof(q), "%s.bpf", p));
		cell(f, fi, json_object_get(r, "kernel"), "usage", report_path(q, sizeof(q), "%s.kernel", p));
		cell(f, fi, json_object_get(r, "kernel"), "rejected", q);
		cell(f, fi, r, "entries_diff", p);
		cell(f, fi, r, "entries_allowed", p);
		cell(f, fi, json_object_get(r, "bpf"), "time_ns", report_path(q, sizeof(q), "%s.bpf", p));
		cell(f, fi, json_object_get(r, "kernel"), "time_ns", report_path(q, sizeof(q), "%s.kernel", p));
		cell(f, fi, r, "time_diff_ns", p);
		cell(f, fi, r, "bias_ns_per_period", p);
		html_text_cell(f, json_is_true(json_object_get(r, "ok")) ? "yes" : "no");
		fputs("</tr>\n", f);
	}
	fputs("</table></div></details>\n", f);
}

static void meta(FILE *f, int fi, const struct report_input *in)
{
	const json_t *d = in->summary, *w = json_object_get(d, "warnings"), *v;
	const char *verdict = string_member(json_object_get(d, "kernel_check"), "verdict");
	char buf[48], hum[32];
	size_t i;

	fputs("<dl class=\"meta\">", f);
	fputs("<dt>schema</dt><dd>", f);
	html_escape(f, string_member(d, "schema"));
	fputs("</dd><dt>idlescope</dt><dd>", f);
	html_escape(f, string_member(json_object_get(d, "tool"), "version"));
	fputs("</dd><dt>kernel</dt><dd>", f);
	html_escape(f, string_member(d, "kernel"));
	fprintf(f, "</dd><dt>window</dt><dd><span data-f=\"%d\" data-p=\"duration_ns\" data-v=\"%s\">%s</span> ns (%s), %zu CPU%s</dd>",
		fi, fmt_json_number(buf, sizeof(buf), json_object_get(d, "duration_ns")), buf,
		fmt_ns(hum, sizeof(hum), (uint64_t)jnum(d, "duration_ns")),
		json_array_size(json_object_get(d, "cpus")),
		json_array_size(json_object_get(d, "cpus")) == 1 ? "" : "s");
	fputs("<dt>cpuidle</dt><dd>driver ", f);
	html_escape(f, string_member(json_object_get(d, "cpuidle"), "driver"));
	fputs(", governor ", f);
	html_escape(f, string_member(json_object_get(d, "cpuidle"), "governor"));
	fputs("</dd><dt>events</dt><dd>cpu_idle ", f);
	html_escape(f, string_member(json_object_get(d, "events"), "cpu_idle"));
	fputs(", cpu_idle_miss ", f);
	v = json_object_get(json_object_get(d, "events"), "cpu_idle_miss");
	html_escape(f, json_is_string(v) ? json_string_value(v) : "not attached");
	if (*string_member(d, "missing_events")) {
		fputs("; missing: ", f);
		html_escape(f, string_member(d, "missing_events"));
	}
	eas(f, fi, json_object_get(d, "eas"));
	fprintf(f, "</dd><dt>kernel cross-check</dt><dd class=\"%s\">", strcmp(verdict, "ok") ? "bad" : "ok");
	html_escape(f, verdict);
	fputs("</dd></dl>\n", f);
	kernel_check(f, fi, json_object_get(d, "kernel_check"));
	if (json_array_size(w)) {
		fputs("<ul class=\"warn\">", f);
		json_array_foreach(w, i, v) {
			fputs("<li>warning: ", f);
			html_escape(f, json_string_value(v));
			fputs("</li>", f);
		}
		fputs("</ul>\n", f);
	}
}

static void residency(FILE *f, int fi, const json_t *d, const struct cpu_row *r, int nr)
{
	static const char *const cols[] = { "CPU", "state", "entries", "time_ns", "share", "min_ns",
					     "avg_ns", "p50_ns", "p90_ns", "p99_ns", "max_ns", "above",
					     "below", "below_qos", "miss_above", "miss_below", "rejected",
					     NULL };
	static const char *const keys[] = { "entries", "min_ns", "avg_ns", "p50_ns", "p90_ns",
					    "p99_ns", "max_ns", "above", "below", "below_qos",
					    "miss_above", "miss_below", "rejected", NULL };
	static const char *const cpu_cols[] = { "CPU", "status", "entries", "idle_ns", "edge_idle_ns",
						"busy_ns", "unmatched_exits", NULL };
	double dur = jnum(d, "duration_ns");
	struct names s = { 0 };
	const char **cats = calloc((size_t)nr, sizeof(*cats));
	const char **colors;
	double *val, *den;
	char id[32], p[256];
	size_t j;
	json_t *st;

	for (int c = 0; c < nr; c++)
		json_array_foreach(json_object_get(r[c].c, "states"), j, st)
			names_add(&s, string_member(st, "name"));
	names_push(&s, "edge idle");
	names_push(&s, "busy");
	colors = calloc((size_t)s.n, sizeof(*colors));
	val = calloc((size_t)nr * (size_t)s.n, sizeof(*val));
	den = calloc((size_t)nr, sizeof(*den));
	if (!cats || !colors || !val || !den)
		goto out;
	colors[s.n - 2] = EDGE_COLOR;
	colors[s.n - 1] = BUSY_COLOR;
	for (int c = 0; c < nr; c++) {
		cats[c] = r[c].label;
		/* the totals row spans every CPU's window */
		den[c] = c == nr - 1 ? dur * (double)(nr - 1) : dur;
		json_array_foreach(json_object_get(r[c].c, "states"), j, st) {
			int k = names_find(&s, string_member(st, "name"));

			if (k >= 0 && k < s.n - 2)
				val[c * s.n + k] += jnum(st, "time_ns");
		}
		val[c * s.n + s.n - 2] = jnum(r[c].c, "edge_idle_ns");
		val[c * s.n + s.n - 1] = jnum(r[c].c, "busy_ns");
	}
	fprintf(f, "<h3 id=\"f%d-residency\">Idle-state residency per CPU</h3>\n"
		   "<p class=\"note\">Share of the window in each state (<code>time_ns</code>), at the "
		   "window's edges and busy; the <em>all</em> bar spans every CPU's window.</p>\n", fi);
	snprintf(id, sizeof(id), "f%d-residency-cpu", fi);
	svg_stacked_bars(f, &(struct stacked_bars){ id, nr, s.n, cats, s.v, colors, val, den, "ns" });
	fputs("<div class=\"wide\"><table class=\"data\">\n", f);
	th_row(f, cpu_cols);
	for (int c = 0; c < nr; c++) {
		fputs("<tr>", f);
		html_text_cell(f, r[c].label);
		html_text_cell(f, string_member(r[c].c, "status"));
		for (int k = 2; cpu_cols[k]; k++)
			cell(f, fi, r[c].c, cpu_cols[k], r[c].prefix);
		fputs("</tr>\n", f);
	}
	fputs("</table></div>\n<div class=\"wide\"><table class=\"data\">\n", f);
	th_row(f, cols);
	for (int c = 0; c < nr; c++) {
		json_array_foreach(json_object_get(r[c].c, "states"), j, st) {
			report_path(p, sizeof(p), "%s.states.%zu", r[c].prefix, j);
			fputs("<tr>", f);
			html_text_cell(f, r[c].label);
			html_text_cell(f, string_member(st, "name"));
			cell(f, fi, st, "entries", p);
			cell(f, fi, st, "time_ns", p);
			pct_cell(f, fi, st, "share", p);
			for (int k = 1; keys[k]; k++)
				cell(f, fi, st, keys[k], p);
			fputs("</tr>\n", f);
		}
	}
	fputs("</table></div>\n", f);
out:
	free(cats);
	free(colors);
	free(val);
	free(den);
}

static void groups(FILE *f, int fi, const json_t *d)
{
	static const char *const cols[] = { "group", "CPUs", "state", "periods", "time_ns", "share",
					    "min_ns", "avg_ns", "p50_ns", "p90_ns", "p99_ns", "max_ns",
					    "edge_idle_ns", "races", NULL };
	static const char *const keys[] = { "min_ns", "avg_ns", "p50_ns", "p90_ns", "p99_ns",
					    "max_ns", "edge_idle_ns", "races", NULL };
	const json_t *gs = json_object_get(json_object_get(d, "groups"), "groups"), *g, *st;
	double dur = jnum(d, "duration_ns");
	int ng = (int)json_array_size(gs);
	struct names s = { 0 };
	const char **cats, **colors;
	char (*labels)[64];
	double *val, *den;
	char id[32], p[256];
	size_t i, j;

	if (!ng)
		return;
	json_array_foreach(gs, i, g)
		json_array_foreach(json_object_get(g, "states"), j, st)
			names_add(&s, string_member(st, "name"));
	names_push(&s, "edge (all idle at the end)");
	names_push(&s, "not all idle");
	cats = calloc((size_t)ng, sizeof(*cats));
	labels = calloc((size_t)ng, sizeof(*labels));
	colors = calloc((size_t)s.n, sizeof(*colors));
	val = calloc((size_t)ng * (size_t)s.n, sizeof(*val));
	den = calloc((size_t)ng, sizeof(*den));
	if (!cats || !labels || !colors || !val || !den)
		goto out;
	colors[s.n - 2] = EDGE_COLOR;
	colors[s.n - 1] = BUSY_COLOR;
	json_array_foreach(gs, i, g) {
		double rest = dur - jnum(g, "time_ns") - jnum(g, "edge_idle_ns");

		snprintf(labels[i], sizeof(labels[i]), "%s (%s)", string_member(g, "name"),
			 string_member(g, "cpus"));
		cats[i] = labels[i];
		den[i] = dur;
		json_array_foreach(json_object_get(g, "states"), j, st) {
			int k = names_find(&s, string_member(st, "name"));

			if (k >= 0 && k < s.n - 2)
				val[i * (size_t)s.n + (size_t)k] += jnum(st, "time_ns");
		}
		val[i * (size_t)s.n + (size_t)s.n - 2] = jnum(g, "edge_idle_ns");
		val[i * (size_t)s.n + (size_t)s.n - 1] = rest > 0 ? rest : 0;
	}
	fprintf(f, "<h3 id=\"f%d-groups\">All-idle time per topology group (", fi);
	html_escape(f, string_member(json_object_get(d, "groups"), "level"));
	fputs(")</h3>\n<p class=\"note\">Time all CPUs of the group were idle at once, by group "
	      "state (the shallowest member state); the rest of the window at least one was busy. "
	      "Levels smallest first; a group's parent is the group of the next level that holds "
	      "it.</p>\n", f);
	snprintf(id, sizeof(id), "f%d-residency-group", fi);
	svg_stacked_bars(f, &(struct stacked_bars){ id, ng, s.n, cats, s.v, colors, val, den, "ns" });
	fputs("<div class=\"wide\"><table class=\"data\">\n", f);
	th_row(f, cols);
	json_array_foreach(gs, i, g) {
		report_path(p, sizeof(p), "groups.groups.%zu", i);
		fputs("<tr>", f);
		html_text_cell(f, string_member(g, "name"));
		html_text_cell(f, string_member(g, "cpus"));
		html_text_cell(f, "(all)");
		cell(f, fi, g, "periods", p);
		cell(f, fi, g, "time_ns", p);
		pct_cell(f, fi, g, "share", p);
		for (int k = 0; keys[k]; k++)
			cell(f, fi, g, keys[k], p);
		fputs("</tr>\n", f);
		json_array_foreach(json_object_get(g, "states"), j, st) {
			char q[300];

			report_path(q, sizeof(q), "%s.states.%zu", p, j);
			fputs("<tr>", f);
			html_text_cell(f, string_member(g, "name"));
			html_text_cell(f, string_member(g, "cpus"));
			html_text_cell(f, string_member(st, "name"));
			cell(f, fi, st, "periods", q);
			cell(f, fi, st, "time_ns", q);
			fputs("<td colspan=\"9\"></td></tr>\n", f);
		}
	}
	fputs("</table></div>\n", f);
out:
	free(cats);
	free(labels);
	free(colors);
	free(val);
	free(den);
}

static void wakeups(FILE *f, int fi, const struct cpu_row *r, int nr)
{
	const json_t *first = json_object_get(json_object_get(r[nr - 1].c, "wakeups"), "causes");
	int nc = (int)json_object_size(first), k = 0;
	const char **causes = calloc((size_t)nc + 1, sizeof(*causes)), **cats = calloc((size_t)nr, sizeof(*cats));
	double *val = calloc((size_t)nr * (size_t)(nc ? nc : 1), sizeof(*val));
	const char *key;
	json_t *v;
	char id[32], p[256];

	if (!causes || !cats || !val || !nc)
		goto out;
	json_object_foreach((json_t *)first, key, v)
		causes[k++] = key;
	for (int c = 0; c < nr; c++) {
		const json_t *cs = json_object_get(json_object_get(r[c].c, "wakeups"), "causes");

		cats[c] = r[c].label;
		for (k = 0; k < nc; k++)
			val[c * nc + k] = jnum(json_object_get(cs, causes[k]), "count");
	}
	fprintf(f, "<h3 id=\"f%d-wakeups\">Wakeup causes</h3>\n<p class=\"note\">What ended each "
		   "counted idle period, as a share of the CPU's periods; <em>early</em>: shorter than "
		   "the entered state's target residency.</p>\n", fi);
	snprintf(id, sizeof(id), "f%d-wakeups", fi);
	svg_stacked_bars(f, &(struct stacked_bars){ id, nr, nc, cats, causes, NULL, val, NULL, "periods" });
	fputs("<table class=\"data\">\n<tr><th rowspan=\"2\">cause</th>", f);
	for (int c = 0; c < nr; c++) {
		fputs("<th colspan=\"2\">", f);
		html_escape(f, r[c].label);
		fputs("</th>", f);
	}
	fputs("</tr>\n<tr>", f);
	for (int c = 0; c < nr; c++)
		fputs("<th>count</th><th>early</th>", f);
	fputs("</tr>\n", f);
	for (k = 0; k <= nc; k++) {
		fputs("<tr>", f);
		html_text_cell(f, k < nc ? causes[k] : "total");
		for (int c = 0; c < nr; c++) {
			const json_t *w = json_object_get(r[c].c, "wakeups");

			if (k == nc) {
				cell(f, fi, w, "total", report_path(p, sizeof(p), "%s.wakeups", r[c].prefix));
				fputs("<td></td>", f);
				continue;
			}
			report_path(p, sizeof(p), "%s.wakeups.causes.%s", r[c].prefix, causes[k]);
			cell(f, fi, json_object_get(json_object_get(w, "causes"), causes[k]), "count", p);
			cell(f, fi, json_object_get(json_object_get(w, "causes"), causes[k]), "early", p);
		}
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
out:
	free(causes);
	free(cats);
	free(val);
}

static void matrix(FILE *f, int fi, const struct cpu_row *r, int nr)
{
	fprintf(f, "<h3 id=\"f%d-matrix\">Prediction error: chosen \xc3\x97 ideal</h3>\n"
		   "<p class=\"note\">Periods by the state the governor chose (rows) and the ideal state "
		   "for their length (columns): the deepest enabled state whose target residency fits. "
		   "Green: the ideal state was chosen; red left of the diagonal: too deep (above), right: "
		   "too shallow (below).</p>\n", fi);
	for (int c = 0; c < nr; c++) {
		const json_t *sts = json_object_get(r[c].c, "states"), *st, *x;
		double max = 0;
		size_t i, k;

		if (!json_array_size(sts) || !json_is_array(json_object_get(json_array_get(sts, 0), "ideal")))
			continue;
		json_array_foreach(sts, i, st)
			json_array_foreach(json_object_get(st, "ideal"), k, x)
				if (json_number_value(x) > max)
					max = json_number_value(x);
		fputs("<h4>", f);
		html_escape(f, r[c].label);
		fprintf(f, "</h4>\n<table class=\"heat\" data-f=\"%d\" data-p=\"%s.states\">\n"
			   "<tr><th>chosen \\ ideal</th>", fi, r[c].prefix);
		json_array_foreach(sts, i, st) {
			fputs("<th>", f);
			html_escape(f, string_member(st, "name"));
			fputs("</th>", f);
		}
		fputs("<th>above</th><th>below</th></tr>\n", f);
		json_array_foreach(sts, i, st) {
			char p[256];

			fputs("<tr><th>", f);
			html_escape(f, string_member(st, "name"));
			fputs("</th>", f);
			json_array_foreach(json_object_get(st, "ideal"), k, x) {
				char raw[48];

				fprintf(f, "<td class=\"n h%d%s\" data-f=\"%d\" data-p=\"%s.states.%zu.ideal.%zu\" "
					   "data-v=\"%s\">%s</td>",
					heat_level(json_number_value(x), max), k == i ? " diag" : "", fi,
					r[c].prefix, i, k, fmt_json_number(raw, sizeof(raw), x), raw);
			}
			report_path(p, sizeof(p), "%s.states.%zu", r[c].prefix, i);
			cell(f, fi, st, "above", p);
			cell(f, fi, st, "below", p);
			fputs("</tr>\n", f);
		}
		fputs("</table>\n", f);
	}
}

static void histograms(FILE *f, int fi, const json_t *d, const struct cpu_row *r, int nr)
{
	const json_t *gs = json_object_get(json_object_get(d, "groups"), "groups"), *g, *st;
	char id[64], p[256], hum[4][32];
	size_t i, j;

	fprintf(f, "<h3 id=\"f%d-hist\">Residency histograms</h3>\n<p class=\"note\">Idle period "
		   "lengths per CPU and state (log scale), for states with periods.</p>\n", fi);
	for (int c = 0; c < nr; c++)
		json_array_foreach(json_object_get(r[c].c, "states"), j, st) {
			if (!json_array_size(json_object_get(st, "hist")))
				continue;
			fputs("<h4>", f);
			html_escape(f, r[c].label);
			fputs(" \xc2\xb7 ", f);
			html_escape(f, string_member(st, "name"));
			fprintf(f, ": %.0f periods, p50 %s, p90 %s, p99 %s, max %s</h4>\n", jnum(st, "entries"),
				fmt_ns(hum[0], 32, (uint64_t)jnum(st, "p50_ns")),
				fmt_ns(hum[1], 32, (uint64_t)jnum(st, "p90_ns")),
				fmt_ns(hum[2], 32, (uint64_t)jnum(st, "p99_ns")),
				fmt_ns(hum[3], 32, (uint64_t)jnum(st, "max_ns")));
			snprintf(id, sizeof(id), "f%d-hist-%s-s%zu", fi, r[c].prefix, j);
			report_hist_block(f, fi, json_object_get(st, "hist"),
				   report_path(p, sizeof(p), "%s.states.%zu.hist", r[c].prefix, j), id,
				   "periods", 0);
		}
	json_array_foreach(gs, i, g) {
		if (!json_array_size(json_object_get(g, "hist")))
			continue;
		fputs("<h4>group ", f);
		html_escape(f, string_member(g, "name"));
		fprintf(f, " all idle: %.0f periods</h4>\n", jnum(g, "periods"));
		snprintf(id, sizeof(id), "f%d-hist-group%zu", fi, i);
		report_hist_block(f, fi, json_object_get(g, "hist"),
			   report_path(p, sizeof(p), "groups.groups.%zu.hist", i), id, "periods", 0);
	}
}

static void lateness(FILE *f, int fi, const struct cpu_row *r, int nr)
{
	static const char *const cols[] = { "CPU", "state", "count", "min_ns", "p50_ns", "p90_ns",
					    "p99_ns", "max_ns", "sum_ns", "declared_exit_latency_ns",
					    "verdict", NULL };
	char id[64], p[256];
	const json_t *t;
	size_t j;
	bool any = false;

	for (int c = 0; c < nr; c++)
		any |= json_array_size(json_object_get(json_object_get(r[c].c, "wakeups"), "timer_lateness")) > 0;
	if (!any)
		return;
	fprintf(f, "<h3 id=\"f%d-lateness\">Timer lateness (measured exit latency)</h3>\n"
		   "<p class=\"note\">hrtimer expiry to handler, for the idle periods a timer ended.</p>\n"
		   "<table class=\"data\">\n", fi);
	th_row(f, cols);
	for (int c = 0; c < nr; c++)
		json_array_foreach(json_object_get(json_object_get(r[c].c, "wakeups"), "timer_lateness"), j, t) {
			report_path(p, sizeof(p), "%s.wakeups.timer_lateness.%zu", r[c].prefix, j);
			fputs("<tr>", f);
			html_text_cell(f, r[c].label);
			html_text_cell(f, string_member(t, "name"));
			for (int k = 2; k < 10; k++)
				cell(f, fi, t, cols[k], p);
			html_text_cell(f, string_member(t, "verdict"));
			fputs("</tr>\n", f);
		}
	fputs("</table>\n", f);
	for (int c = 0; c < nr; c++)
		json_array_foreach(json_object_get(json_object_get(r[c].c, "wakeups"), "timer_lateness"), j, t) {
			if (!json_array_size(json_object_get(t, "hist")))
				continue;
			fputs("<h4>", f);
			html_escape(f, r[c].label);
			fputs(" \xc2\xb7 ", f);
			html_escape(f, string_member(t, "name"));
			fprintf(f, ": %.0f timer wakeups</h4>\n", jnum(t, "count"));
			snprintf(id, sizeof(id), "f%d-lateness-%s-%zu", fi, r[c].prefix, j);
			report_hist_block(f, fi, json_object_get(t, "hist"),
				   report_path(p, sizeof(p), "%s.wakeups.timer_lateness.%zu.hist", r[c].prefix, j),
				   id, "wakeups", 0);
		}
}

/* A row of the exit cost table: a CPU's states, or the CPU (state "all"). */
static void exit_cost_row(FILE *f, int fi, const char *cpu, const char *state, const json_t *o,
			  const char *prefix)
{
	static const char *const num[] = { "exit_cost_ns", "exit_cost_measured_ns",
					   "exit_cost_lateness_samples", "early", "early_ns", NULL };
	static const char *const pct[] = { "exit_cost_share", "exit_cost_measured_share",
					   "early_share", NULL };

	fputs("<tr>", f);
	html_text_cell(f, cpu);
	html_text_cell(f, state);
	cell(f, fi, o, "entries", prefix);
	cell(f, fi, o, num[0], prefix);
	pct_cell(f, fi, o, pct[0], prefix);
	cell(f, fi, o, num[1], prefix);
	pct_cell(f, fi, o, pct[1], prefix);
	cell(f, fi, o, num[2], prefix);
	cell(f, fi, o, num[3], prefix);
	cell(f, fi, o, num[4], prefix);
	pct_cell(f, fi, o, pct[2], prefix);
	fputs("</tr>\n", f);
}

/* Exit cost (metrics.md#exit-cost); absent from summaries before it. */
static void exit_cost(FILE *f, int fi, const struct cpu_row *r, int nr)
{
	static const char *const cols[] = { "CPU", "state", "entries", "declared_ns", "declared share",
					    "measured_ns", "measured share", "lateness samples",
					    "early", "early_ns", "early share", NULL };
	const json_t *st;
	char p[256];
	size_t j;

	if (!json_object_get(r[nr - 1].c, "exit_cost_ns"))
		return;
	fprintf(f, "<h3 id=\"f%d-exit-cost\">Exit cost</h3>\n"
		   "<p class=\"note\">Time spent leaving idle, share of the window: declared = entries "
		   "\xc3\x97 exit latency; measured = entries \xc3\x97 mean timer lateness of the state "
		   "(states with samples). Early = periods shorter than the target residency.</p>\n"
		   "<table class=\"data\">\n", fi);
	th_row(f, cols);
	for (int c = 0; c < nr; c++) {
		json_array_foreach(json_object_get(r[c].c, "states"), j, st) {
			if (!jnum(st, "entries"))
				continue;
			report_path(p, sizeof(p), "%s.states.%zu", r[c].prefix, j);
			exit_cost_row(f, fi, r[c].label, string_member(st, "name"), st, p);
		}
		exit_cost_row(f, fi, r[c].label, "all states", r[c].c, r[c].prefix);
	}
	fputs("</table>\n", f);
}

static void details(FILE *f, int fi, const json_t *d)
{
	static const struct {
		const char *array, *title, *key_col, *key, *extra_col, *extra;
	} kinds[] = {
		{ "irqs", "Device IRQs", "irq", "irq", NULL, NULL },
		{ "softirqs", "Softirqs", "vector", "vector", NULL, NULL },
		{ "timers", "Timer functions", "function", "function", NULL, NULL },
		{ "wakees", "Tasks woken onto idle CPUs", "pid", "pid", "waker CPU", "waker_cpu" },
		{ "group_wakees", "Tasks whose wakeup ended a group's all-idle time", "pid", "pid",
		  "group", "group" },
	};
	const json_t *wd = json_object_get(d, "wakeup_details");

	if (!json_is_object(wd))
		return;
	fprintf(f, "<h3 id=\"f%d-details\">What ended the idle periods</h3>\n", fi);
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		const json_t *rows = json_object_get(wd, kinds[k].array), *row;
		size_t i, n = json_array_size(rows);
		char p[256];

		if (!n)
			continue;
		fprintf(f, "<h4>%s</h4>\n<table class=\"data\"><tr><th>CPU</th><th>%s</th><th>name</th>"
			   "<th>count</th><th>early</th>%s%s%s</tr>\n", kinds[k].title, kinds[k].key_col,
			kinds[k].extra_col ? "<th>" : "", kinds[k].extra_col ? kinds[k].extra_col : "",
			kinds[k].extra_col ? "</th>" : "");
		json_array_foreach(rows, i, row) {
			if (i == DETAIL_ROWS)
				break;
			report_path(p, sizeof(p), "wakeup_details.%s.%zu", kinds[k].array, i);
			fputs("<tr>", f);
			cell(f, fi, row, "cpu", p);
			if (json_is_string(json_object_get(row, kinds[k].key)))
				html_text_cell(f, string_member(row, kinds[k].key));
			else
				cell(f, fi, row, kinds[k].key, p);
			html_text_cell(f, string_member(row, "name"));
			cell(f, fi, row, "count", p);
			cell(f, fi, row, "early", p);
			if (kinds[k].extra)
				cell(f, fi, row, kinds[k].extra, p);
			fputs("</tr>\n", f);
		}
		fputs("</table>\n", f);
		if (n > DETAIL_ROWS)
			fprintf(f, "<p class=\"note\">%d of %zu rows; the JSON has them all.</p>\n",
				DETAIL_ROWS, n);
	}
}

static void packing(FILE *f, int fi, const json_t *d)
{
	static const char *const scalars[] = { "spread_ns", "max_group_cpus", "cross_group_wakeups",
					       "cross_group_migrations", "lost_updates", NULL };
	const json_t *pk = json_object_get(d, "packing"), *busy, *t, *x;
	int nb, ncols = 0;
	const char **names;
	char (*labels)[40];
	double *val, dur = jnum(d, "duration_ns");
	char id[32], p[256];
	size_t i, k;

	if (!json_is_object(pk))
		return;
	busy = json_object_get(pk, "busy_groups_ns");
	nb = (int)json_array_size(busy);
	names = calloc((size_t)nb + 1, sizeof(*names));
	labels = calloc((size_t)nb + 1, sizeof(*labels));
	val = calloc((size_t)nb + 1, sizeof(*val));
	if (!names || !labels || !val)
		goto out;
	json_array_foreach(busy, i, x) {
		snprintf(labels[i], sizeof(labels[i]), "%zu group%s busy", i, i == 1 ? "" : "s");
		names[i] = labels[i];
		val[i] = json_number_value(x);
	}
	fprintf(f, "<h3 id=\"f%d-packing\">Packing</h3>\n<p class=\"note\">Time with exactly k "
		   "groups busy (at least one CPU not idle).</p>\n", fi);
	snprintf(id, sizeof(id), "f%d-packing", fi);
	svg_stacked_bars(f, &(struct stacked_bars){ id, 1, nb, (const char *const[]){ "window" }, names,
						    NULL, val, &dur, "ns" });
	fputs("<table class=\"data\"><tr><th>metric</th><th>value</th></tr>\n", f);
	json_array_foreach(busy, i, x) {
		fprintf(f, "<tr><td>busy_groups_ns[%zu]</td>", i);
		html_num_cell(f, fi, x, report_path(p, sizeof(p), "packing.busy_groups_ns.%zu", i));
		fputs("</tr>\n", f);
	}
	for (k = 0; scalars[k]; k++) {
		fprintf(f, "<tr><td>%s</td>", scalars[k]);
		cell(f, fi, pk, scalars[k], "packing");
		fputs("</tr>\n", f);
	}
	fputs("</table>\n<h4>Top tasks by runtime</h4>\n<table class=\"data\"><tr><th>pid</th>"
	      "<th>comm</th><th>runtime_ns</th>", f);
	/* group_runtime_ns: one column per group (the first 8) */
	json_array_foreach(json_object_get(pk, "top_tasks"), i, t)
		if ((int)json_array_size(json_object_get(t, "group_runtime_ns")) > ncols)
			ncols = (int)json_array_size(json_object_get(t, "group_runtime_ns"));
	for (int g = 0; g < ncols; g++)
		fprintf(f, "<th>group %d</th>", g);
	fputs("</tr>\n", f);
	json_array_foreach(json_object_get(pk, "top_tasks"), i, t) {
		report_path(p, sizeof(p), "packing.top_tasks.%zu", i);
		fputs("<tr>", f);
		cell(f, fi, t, "pid", p);
		html_text_cell(f, string_member(t, "comm"));
		cell(f, fi, t, "runtime_ns", p);
		for (int g = 0; g < ncols; g++) {
			char q[300];

			x = json_array_get(json_object_get(t, "group_runtime_ns"), (size_t)g);
			if (x)
				html_num_cell(f, fi, x, report_path(q, sizeof(q), "%s.group_runtime_ns.%d", p, g));
			else
				fputs("<td></td>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
out:
	free(names);
	free(labels);
	free(val);
}

static void frequency(FILE *f, int fi, const json_t *d)
{
	const json_t *fr = json_object_get(d, "frequency"), *cpus = json_object_get(fr, "cpus"), *c, *x;
	struct names s = { 0 };
	char (*khz)[24] = calloc(MAX_NAMED, sizeof(*khz)), (*labels)[32] = NULL;
	const char **cats = NULL;
	double *val = NULL, *den = NULL, dur = jnum(d, "duration_ns");
	int nc = (int)json_array_size(cpus);
	char id[32], p[256];
	size_t i, k;

	fprintf(f, "<h3 id=\"f%d-frequency\">Frequency residency</h3>\n", fi);
	if (strcmp(string_member(fr, "status"), "ok") || !nc || !khz) {
		fputs("<p class=\"note\">", f);
		html_escape(f, string_member(fr, "status"));
		fputs("</p>\n", f);
		goto out;
	}
	/* series: the frequencies in the order first seen over the CPUs */
	json_array_foreach(cpus, i, c)
		json_array_foreach(json_object_get(c, "residency"), k, x) {
			char name[24];

			snprintf(name, sizeof(name), "%.0f kHz", jnum(x, "khz"));
			if (names_find(&s, name) < 0 && s.n < MAX_NAMED) {
				memcpy(khz[s.n], name, sizeof(name));
				names_add(&s, khz[s.n]);
			}
		}
	labels = calloc((size_t)nc, sizeof(*labels));
	cats = calloc((size_t)nc, sizeof(*cats));
	val = calloc((size_t)nc * (size_t)(s.n ? s.n : 1), sizeof(*val));
	den = calloc((size_t)nc, sizeof(*den));
	if (!labels || !cats || !val || !den)
		goto out;
	json_array_foreach(cpus, i, c) {
		snprintf(labels[i], sizeof(labels[i]), "cpu %.0f", jnum(c, "cpu"));
		cats[i] = labels[i];
		den[i] = dur;
		json_array_foreach(json_object_get(c, "residency"), k, x) {
			char name[24];

			snprintf(name, sizeof(name), "%.0f kHz", jnum(x, "khz"));
			for (int j = 0; j < s.n; j++)
				if (!strcmp(s.v[j], name))
					val[i * (size_t)s.n + (size_t)j] += jnum(x, "time_ns");
		}
	}
	snprintf(id, sizeof(id), "f%d-frequency", fi);
	svg_stacked_bars(f, &(struct stacked_bars){ id, nc, s.n, cats, s.v, NULL, val, den, "ns" });
	fputs("<table class=\"data\"><tr><th>CPU</th><th>khz</th><th>time_ns</th><th>share</th></tr>\n", f);
	json_array_foreach(cpus, i, c)
		json_array_foreach(json_object_get(c, "residency"), k, x) {
			report_path(p, sizeof(p), "frequency.cpus.%zu.residency.%zu", i, k);
			fputs("<tr>", f);
			html_text_cell(f, labels[i]);
			cell(f, fi, x, "khz", p);
			cell(f, fi, x, "time_ns", p);
			pct_cell(f, fi, x, "share", p);
			fputs("</tr>\n", f);
		}
	fputs("</table>\n", f);
out:
	free(khz);
	free(labels);
	free(cats);
	free(val);
	free(den);
}

void report_summary_section(FILE *f, int fi, const struct report_input *in)
{
	const json_t *d = in->summary;
	struct cpu_row *r;
	int nr = cpu_rows(d, &r);

	fprintf(f, "<section class=\"input\" id=\"f%d\">\n<h2>%d: ", fi, fi + 1);
	html_escape(f, in->path);
	fputs("</h2>\n", f);
	meta(f, fi, in);
	if (nr < 0) {
		fputs("<p class=\"bad\">out of memory</p></section>\n", f);
		return;
	}
	residency(f, fi, d, r, nr);
	groups(f, fi, d);
	if (json_is_object(json_object_get(r[nr - 1].c, "wakeups")))
		wakeups(f, fi, r, nr);
	matrix(f, fi, r, nr);
	histograms(f, fi, d, r, nr);
	lateness(f, fi, r, nr);
	exit_cost(f, fi, r, nr);
	details(f, fi, d);
	packing(f, fi, d);
	frequency(f, fi, d);
	report_gov_section(f, fi, d);
	report_qos_section(f, fi, d);
	fputs("</section>\n", f);
	free(r);
}
