/* ab's table and JSON (render_ab.h): the statistics and Welch tests the
 * command computed, as ministat prints them. */
#include <math.h>
#include <stdio.h>

#include <jansson.h>

#include "render/render_ab.h"
#include "render/render_compare.h"
#include "report/report_html.h"

static const struct ab_row *row_of(const struct ab_report *a, int m, int v)
{
	return &a->rows[(size_t)m * (size_t)a->nr_variants + (size_t)v];
}

static void table(FILE *out, const struct ab_report *a)
{
	fprintf(out, "ab: %d variant%s x %d run%s, interleaved\n", a->nr_variants,
		a->nr_variants == 1 ? "" : "s", a->repeat, a->repeat == 1 ? "" : "s");
	if (a->warning[0])
		fprintf(out, "warning: %s\n", a->warning);
	for (int m = 0; m < a->nr_metrics; m++) {
		const struct sample_stats *base = &row_of(a, m, 0)->st;

		fprintf(out, "\n%s\n  %-36s %4s %14s %14s %14s %14s %14s\n", a->metrics[m], "variant",
			"N", "min", "max", "median", "mean", "stddev");
		for (int v = 0; v < a->nr_variants; v++) {
			const struct ab_row *row = row_of(a, m, v);
			const struct sample_stats *st = &row->st;
			const struct welch *w = &row->w;

			if (!row->have) {
				fprintf(out, "  %-36.36s  (metric not in these runs)\n", a->variants[v]);
				continue;
			}
			fprintf(out, "  %-36.36s %4d %14.6g %14.6g %14.6g %14.6g %14.6g\n", a->variants[v],
				st->n, st->min, st->max, st->median, st->mean, st->stddev);
			if (!row->have_welch)
				continue;
			if (st->n < 2 || base->n < 2)
				fprintf(out, "  %36s  difference %+.6g (need 2+ runs each for a test)\n", "",
					w->diff);
			else
				fprintf(out, "  %36s  difference %+.6g +/- %.6g (%+.2f%% +/- %.2f%%) at "
					     "95%%: %s\n",
					"", w->diff, w->half_width,
					base->mean ? 100 * w->diff / fabs(base->mean) : 0,
					base->mean ? 100 * w->half_width / fabs(base->mean) : 0,
					w->significant ? "SIGNIFICANT" : "no difference proven");
		}
	}
}

static json_t *ab_doc(const struct ab_report *a)
{
	json_t *root = json_object(), *variants = json_array(), *metrics = json_array();

	for (int v = 0; v < a->nr_variants; v++)
		json_array_append_new(variants, json_string(a->variants[v]));
	for (int m = 0; m < a->nr_metrics; m++) {
		const struct sample_stats *base = &row_of(a, m, 0)->st;
		json_t *rows = json_array();

		for (int v = 0; v < a->nr_variants; v++) {
			const struct ab_row *row = row_of(a, m, v);
			const struct sample_stats *st = &row->st;
			const struct welch *w = &row->w;
			json_t *runs = json_array(), *o;

			for (int r = 0; r < a->repeat; r++)
				json_array_append_new(runs, isnan(row->runs[r]) ? json_null()
										: json_real(row->runs[r]));
			o = json_pack("{s:i,s:o,s:i,s:f,s:f,s:f,s:f,s:f}", "variant", v, "runs", runs,
				      "n", st->n, "min", st->min, "max", st->max, "median", st->median,
				      "mean", st->mean, "stddev", st->stddev);
			if (row->have_welch && st->n >= 2 && base->n >= 2)
				json_object_set_new(o, "vs_first",
						    json_pack("{s:f,s:f,s:f,s:f,s:f,s:b}", "diff", w->diff,
							      "half_width_95", w->half_width, "t",
							      isfinite(w->t) ? w->t : 1e300, "df", w->df,
							      "t_crit", isfinite(w->t_crit) ? w->t_crit : 1e300,
							      "significant", w->significant));
			json_array_append_new(rows, o);
		}
		json_array_append_new(metrics,
				      json_pack("{s:s,s:o}", "metric", a->metrics[m], "variants", rows));
	}
	json_object_set_new(root, "schema", json_string("idlescope-ab/1"));
	json_object_set_new(root, "repeat", json_integer(a->repeat));
	json_object_set_new(root, "variants", variants);
	json_object_set_new(root, "metrics", metrics);
	json_object_set_new(root, "warnings",
			    a->warning[0] ? json_pack("[s]", a->warning) : json_array());
	return root;
}

static void json(FILE *out, const struct ab_report *a)
{
	json_t *root = ab_doc(a);

	json_dumpf(root, out, JSON_INDENT(2));
	fputc('\n', out);
	json_decref(root);
}

void render_ab(FILE *f, enum out_format fmt, const struct ab_report *r)
{
	if (fmt == FMT_JSON)
		json(f, r);
	else
		table(f, r);
}

/* "idlescope-ab-sweep/1": each workload's "idlescope-ab/1" under "ab". */
static json_t *sweep_doc(const struct ab_sweep *s)
{
	json_t *root = json_object(), *ws = json_array();

	for (int w = 0; w < s->nr_workloads; w++)
		json_array_append_new(ws, json_pack("{s:s,s:s,s:o}", "name", s->names[w], "command",
						    s->commands[w], "ab", ab_doc(&s->reports[w])));
	json_object_set_new(root, "schema", json_string("idlescope-ab-sweep/1"));
	json_object_set_new(root, "workloads", ws);
	return root;
}

int render_ab_html(FILE *f, const struct ab_sweep *s, bool sweep)
{
	const struct ab_report *r0 = &s->reports[0];
	json_t *doc = sweep ? sweep_doc(s) : ab_doc(r0);
	int ret = report_write_sweep_html(
		f, &(struct report_sweep){ .nr_workloads = s->nr_workloads,
					   .nr_variants = r0->nr_variants, .repeat = r0->repeat,
					   .names = s->names, .commands = s->commands,
					   .views = s->views, .variants = r0->variants,
					   .warning = r0->warning, .doc = doc });

	json_decref(doc);
	return ret;
}

void render_ab_sweep(FILE *f, enum out_format fmt, const struct ab_sweep *s)
{
	const struct ab_report *r0 = &s->reports[0];

	if (fmt == FMT_JSON) {
		json_t *root = sweep_doc(s);

		json_dumpf(root, f, JSON_INDENT(2));
		fputc('\n', f);
		json_decref(root);
		return;
	}
	fprintf(f, "ab: %d variant%s x %d workload%s x %d run%s, interleaved\n", r0->nr_variants,
		r0->nr_variants == 1 ? "" : "s", s->nr_workloads, s->nr_workloads == 1 ? "" : "s",
		r0->repeat, r0->repeat == 1 ? "" : "s");
	if (r0->warning[0])
		fprintf(f, "warning: %s\n", r0->warning);
	for (int w = 0; w < s->nr_workloads; w++) {
		fprintf(f, "\n=== workload %s: %s\n\n", s->names[w], s->commands[w]);
		render_compare_view(f, &s->views[w], r0->variants);
	}
}
