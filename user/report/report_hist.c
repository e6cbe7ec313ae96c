/* The report section of an `idlescope hist --format json` file: each
 * report (one, or one per interval) with a chart and the statistics of
 * every view (per CPU, per state, wakeup parts). */
#include <stdint.h>

#include "report/html.h"
#include "report/report_hist.h"
#include "util/units.h"

/* "cpu 1 POLL", "waking -> running", "all" */
static void view_label(FILE *f, const json_t *h)
{
	const json_t *cpu = json_object_get(h, "cpu"), *st = json_object_get(h, "state");
	const char *part = json_string_value(json_object_get(h, "part"));

	if (json_is_integer(cpu))
		fprintf(f, "cpu %" JSON_INTEGER_FORMAT "%s", json_integer_value(cpu),
			json_is_object(st) || part ? " " : "");
	if (json_is_object(st))
		html_escape(f, json_string_value(json_object_get(st, "name")));
	if (part)
		html_escape(f, part);
	if (!json_is_integer(cpu) && !json_is_object(st) && !part)
		fputs("all", f);
}

void report_hist_section(FILE *f, int fi, const struct report_input *in)
{
	static const char *const stats[] = { "count", "sum_ns", "min_ns", "p50_ns", "p90_ns",
					     "p99_ns", "max_ns", NULL };
	const json_t *rep, *h;
	size_t r, j;

	fprintf(f, "<section class=\"input\" id=\"f%d\">\n<h2>%d: ", fi, fi + 1);
	html_escape(f, in->path);
	fprintf(f, "</h2>\n<p class=\"note\">idlescope-hist/1, %zu report%s.</p>\n",
		json_array_size(in->hists), json_array_size(in->hists) == 1 ? "" : "s");
	json_array_foreach(in->hists, r, rep) {
		const json_t *lin = json_object_get(rep, "linear_ns");
		char dur[32], id[64], p[128], q[160];

		fprintf(f, "<h3 id=\"f%d-r%zu\">", fi, r);
		html_escape(f, json_string_value(json_object_get(rep, "metric")));
		if (json_integer_value(json_object_get(rep, "interval")))
			fprintf(f, ", interval %" JSON_INTEGER_FORMAT,
				json_integer_value(json_object_get(rep, "interval")));
		fprintf(f, ": %s", fmt_ns(dur, sizeof(dur),
					 (uint64_t)json_number_value(json_object_get(rep, "duration_ns"))));
		if (json_is_number(lin))
			fprintf(f, ", linear buckets of %s",
				fmt_ns(dur, sizeof(dur), (uint64_t)json_number_value(lin)));
		fputs("</h3>\n<table class=\"data\"><tr><th>view</th>", f);
		for (int k = 0; stats[k]; k++)
			fprintf(f, "<th>%s</th>", stats[k]);
		fputs("</tr>\n", f);
		json_array_foreach(json_object_get(rep, "histograms"), j, h) {
			fputs("<tr><td>", f);
			view_label(f, h);
			fputs("</td>", f);
			report_path(p, sizeof(p), "%zu.histograms.%zu", r, j);
			for (int k = 0; stats[k]; k++)
				html_num_cell(f, fi, json_object_get(h, stats[k]),
					      report_path(q, sizeof(q), "%s.%s", p, stats[k]));
			fputs("</tr>\n", f);
		}
		fputs("</table>\n", f);
		json_array_foreach(json_object_get(rep, "histograms"), j, h) {
			if (!json_array_size(json_object_get(h, "buckets")))
				continue;
			fputs("<h4>", f);
			view_label(f, h);
			fputs("</h4>\n", f);
			snprintf(id, sizeof(id), "f%d-r%zu-h%zu", fi, r, j);
			report_hist_block(f, fi, json_object_get(h, "buckets"),
					  report_path(p, sizeof(p), "%zu.histograms.%zu.buckets", r, j), id,
					  "samples", json_number_value(lin));
		}
	}
	fputs("</section>\n", f);
}
