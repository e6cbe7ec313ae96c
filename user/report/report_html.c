/* The report page: the template (user/report/report_page.html, embedded at build
 * time with its stylesheet) filled with the title, a table of contents and
 * the sections of each input. */
#include "report/report_html.h"
#include "report/report_compare.h"
#include "report/report_hist.h"
#include "report/report_summary.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "report/html.h"
#include "report/svg_chart.h"
#include "report_assets.h" /* generated: report_page_html, report_page_css */

struct page_ctx {
	const struct report_input *in;
	int n;
};

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
