/* The report page: the template (user/report/report_page.html, embedded at build
 * time with its stylesheet and script) filled with the title, a table of
 * contents and the sections of each input, or of each workload of ab's sweep. */
#include "report/report_html.h"
#include "report/report_compare.h"
#include "report/report_hist.h"
#include "report/report_summary.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "report/html.h"
#include "report/svg_chart.h"
#include "report_assets.h" /* generated: report_page_html, report_page_css, report_page_js */

struct page_ctx {
	const struct report_input *in; /* report's inputs, or */
	int n;
	const struct report_sweep *sw; /* ab's sweep */
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
	if (c->sw) {
		fputs("idlescope ab: ", f);
		for (int v = 0; v < c->sw->nr_variants; v++) {
			if (v)
				fputs(" vs ", f);
			html_escape(f, c->sw->variants[v]);
		}
		return;
	}
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
	if (c->sw) {
		for (int w = 0; w < c->sw->nr_workloads; w++) {
			fprintf(f, "<li><a href=\"#w%d\">workload ", w);
			html_escape(f, c->sw->names[w]);
			fputs("</a>: <code>", f);
			html_escape(f, c->sw->commands[w]);
			fputs("</code></li>\n", f);
		}
		fputs("</ul></nav>\n", f);
		return;
	}
	if (nr_summaries(c->in, c->n) >= 2)
		fputs("<li><a href=\"#compare\">Comparison</a></li>\n", f);
	for (int i = 0; i < c->n; i++) {
		fprintf(f, "<li>%d: <a href=\"#f%d\">", i + 1, i);
		html_escape(f, c->in[i].path);
		fprintf(f, "</a> (%s)</li>\n", c->in[i].summary ? "record summary" : "hist");
	}
	fputs("</ul></nav>\n", f);
}

/* ab's sweep: a section per workload, compare's tables of its runs. */
static void sweep_body(FILE *f, const struct report_sweep *s)
{
	char pre[16];

	fprintf(f, "<p class=\"note\">%d variant%s \xc3\x97 %d run%s each, interleaved, under each "
		   "workload; the settings were restored after the last run.</p>\n",
		s->nr_variants, s->nr_variants == 1 ? "" : "s", s->repeat, s->repeat == 1 ? "" : "s");
	if (s->warning && s->warning[0]) {
		fputs("<ul class=\"warn\"><li>", f);
		html_escape(f, s->warning);
		fputs("</li></ul>\n", f);
	}
	for (int w = 0; w < s->nr_workloads; w++) {
		snprintf(pre, sizeof(pre), "w%d-", w);
		fprintf(f, "<section class=\"workload\" id=\"w%d\">\n<h2>workload ", w);
		html_escape(f, s->names[w]);
		fputs(": <code>", f);
		html_escape(f, s->commands[w]);
		fputs("</code></h2>\n", f);
		report_view_section(f, &s->views[w], s->variants, pre);
		fputs("</section>\n", f);
	}
	html_json_block(f, "ab-json", s->doc);
}

/* The inputs' documents, in order, as read. */
static void inputs_json(FILE *f, const struct page_ctx *c)
{
	json_t *all = json_array();

	for (int i = 0; i < c->n; i++)
		json_array_append_new(all, json_pack("{s:s,s:O?}", "path", c->in[i].path, "json",
						     c->in[i].summary ? c->in[i].summary
								      : c->in[i].hists));
	html_json_block(f, "inputs-json", all);
	json_decref(all);
}

static int fill(FILE *f, const char *name, void *arg)
{
	const struct page_ctx *c = arg;

	if (!strcmp(name, "TITLE")) {
		title(f, c);
	} else if (!strcmp(name, "STYLE")) {
		fputs(report_page_css, f);
	} else if (!strcmp(name, "SCRIPT")) {
		fputs(report_page_js, f);
	} else if (!strcmp(name, "SCRIPT_HASH")) {
		/* the CSP source of exactly the text between <script> and
		 * </script>, hashed when the build embedded it (Makefile) */
		fputs("sha256-" REPORT_PAGE_JS_SHA256, f);
	} else if (!strcmp(name, "GENERATOR")) {
		fputs("idlescope " IDLESCOPE_VERSION, f);
	} else if (!strcmp(name, "COMMAND")) {
		fputs(c->sw ? "idlescope ab" : "idlescope report", f);
	} else if (!strcmp(name, "BODY")) {
		fputs("<h1>", f);
		title(f, c);
		fputs("</h1>\n", f);
		toc(f, c);
		if (c->sw) {
			sweep_body(f, c->sw);
			return 0;
		}
		if (nr_summaries(c->in, c->n) >= 2)
			report_compare_section(f, c->in, c->n);
		for (int i = 0; i < c->n; i++) {
			if (c->in[i].summary)
				report_summary_section(f, i, &c->in[i]);
			else
				report_hist_section(f, i, &c->in[i]);
		}
		inputs_json(f, c);
	} else {
		return -1;
	}
	return 0;
}

int report_write_html(FILE *f, struct report_input *in, int n)
{
	struct page_ctx c = { in, n, NULL };

	for (int i = 0; i < n; i++) {
		const char *slash = strrchr(in[i].path, '/');

		snprintf(in[i].label, sizeof(in[i].label), "%d: %s", i + 1,
			 slash && slash[1] ? slash + 1 : in[i].path);
	}
	return template_expand(f, report_page_html, fill, &c);
}

int report_write_sweep_html(FILE *f, const struct report_sweep *s)
{
	struct page_ctx c = { NULL, 0, s };

	return template_expand(f, report_page_html, fill, &c);
}
