/* The report page: the template (user/report_page.html, embedded at build
 * time with its stylesheet) filled with the title, a table of contents and
 * the sections of each input. */
#include "report_html.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"
#include "svg_chart.h"
#include "report_assets.h" /* generated: report_page_html, report_page_css */

struct page_ctx {
	const struct report_input *in;
	int n;
};

const char *report_path(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return buf;
}

/* One histogram: chart, then its buckets as a table under <details>. */
void report_hist_block(FILE *f, int fi, const json_t *hist, const char *path, const char *id,
		       const char *what, double linear_ns)
{
	size_t n = json_array_size(hist), i;
	struct hist_bucket *b = calloc(n ? n : 1, sizeof(*b));
	const json_t *k;
	char p[300], q[320];

	if (!b)
		return;
	json_array_foreach(hist, i, k) {
		b[i].lo = json_number_value(json_object_get(k, "lo_ns"));
		b[i].hi = json_is_number(json_object_get(k, "hi_ns")) ? json_number_value(json_object_get(k, "hi_ns"))
			   : linear_ns > 0 ? b[i].lo + linear_ns : 2 * b[i].lo;
		b[i].open = !json_is_number(json_object_get(k, "hi_ns"));
		b[i].count = json_number_value(json_object_get(k, "count"));
	}
	svg_hist(f, &(struct hist_chart){ id, (int)n, b, linear_ns > 0, what });
	fputs("<details><summary>buckets</summary><table class=\"data\"><tr><th>lo_ns</th>"
	      "<th>hi_ns</th><th>count</th></tr>\n", f);
	json_array_foreach(hist, i, k) {
		report_path(p, sizeof(p), "%s.%zu", path, i);
		fputs("<tr>", f);
		html_num_cell(f, fi, json_object_get(k, "lo_ns"), report_path(q, sizeof(q), "%s.lo_ns", p));
		html_num_cell(f, fi, json_object_get(k, "hi_ns"), report_path(q, sizeof(q), "%s.hi_ns", p));
		html_num_cell(f, fi, json_object_get(k, "count"), report_path(q, sizeof(q), "%s.count", p));
		fputs("</tr>\n", f);
	}
	fputs("</table></details>\n", f);
	free(b);
}

static int nr_summaries(const struct report_input *in, int n)
{
	int k = 0;

	for (int i = 0; i < n; i++)
		k += in[i].summary != NULL;
	return k;
}

/* The base names: paths are in the table of contents and the sections. */
static void title(FILE *f, const struct page_ctx *c)
{
	fputs("idlescope report: ", f);
	for (int i = 0; i < c->n; i++) {
		const char *slash = strrchr(c->in[i].path, '/');

		if (i)
			fputs(", ", f);
		html_escape(f, slash && slash[1] ? slash + 1 : c->in[i].path);
	}
}

static void toc(FILE *f, const struct page_ctx *c)
{
	fputs("<nav class=\"toc\"><ul>\n", f);
	if (nr_summaries(c->in, c->n) >= 2)
		fputs("<li><a href=\"#compare\">Comparison</a></li>\n", f);
	for (int i = 0; i < c->n; i++) {
		fprintf(f, "<li>%d: <a href=\"#f%d\">", i + 1, i);
		html_escape(f, c->in[i].path);
		fprintf(f, "</a> (%s)</li>\n", c->in[i].summary ? "record summary" : "hist");
	}
	fputs("</ul></nav>\n", f);
}

static int fill(FILE *f, const char *name, void *arg)
{
	const struct page_ctx *c = arg;

	if (!strcmp(name, "TITLE")) {
		title(f, c);
	} else if (!strcmp(name, "STYLE")) {
		fputs(report_page_css, f);
	} else if (!strcmp(name, "GENERATOR")) {
		fputs("idlescope " IDLESCOPE_VERSION, f);
	} else if (!strcmp(name, "BODY")) {
		fputs("<h1>", f);
		title(f, c);
		fputs("</h1>\n", f);
		toc(f, c);
		if (nr_summaries(c->in, c->n) >= 2)
			report_compare_section(f, c->in, c->n);
		for (int i = 0; i < c->n; i++) {
			if (c->in[i].summary)
				report_summary_section(f, i, &c->in[i]);
			else
				report_hist_section(f, i, &c->in[i]);
		}
	} else {
		return -1;
	}
	return 0;
}

int report_write_html(FILE *f, struct report_input *in, int n)
{
	struct page_ctx c = { in, n };

	for (int i = 0; i < n; i++) {
		const char *slash = strrchr(in[i].path, '/');

		snprintf(in[i].label, sizeof(in[i].label), "%d: %s", i + 1,
			 slash && slash[1] ? slash + 1 : in[i].path);
	}
	return template_expand(f, report_page_html, fill, &c);
}
