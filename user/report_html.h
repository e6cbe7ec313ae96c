/* `idlescope report`'s page: one self-contained HTML file (inline CSS and
 * SVG, no script, no external resource) from loaded JSON inputs. */
#ifndef IDLESCOPE_REPORT_HTML_H
#define IDLESCOPE_REPORT_HTML_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "flatten.h"

struct report_input {
	const char *path;
	char label[64];       /* "2: run.json": input number and base name */
	json_t *summary;      /* an idlescope/1 document, or NULL */
	json_t *hists;        /* array of idlescope-hist/1 reports, or NULL */
	struct metric_set m;  /* summary's flat metrics (the comparison view) */
};

/* Writes the page for n inputs (and sets their labels). Returns 0 or -1
 * (template error). */
int report_write_html(FILE *f, struct report_input *in, int n);

/* Sections, one per concern (report_summary.c, report_hist.c,
 * report_compare.c); fi is the input's index, used in ids and data-f. */
void report_summary_section(FILE *f, int fi, const struct report_input *in);
void report_hist_section(FILE *f, int fi, const struct report_input *in);
/* The comparison view of the summaries among in[0..n); needs two. */
void report_compare_section(FILE *f, const struct report_input *in, int n);

/* A histogram (a JSON array of {lo_ns, hi_ns, count}) at path: its chart,
 * then its buckets as a table under <details>. linear_ns: the bucket width
 * of a linear histogram (an open last bucket is drawn that wide), 0 for log2. */
void report_hist_block(FILE *f, int fi, const json_t *hist, const char *path, const char *id,
		       const char *what, double linear_ns);

/* A dotted JSON path from a printf format, for html_*_cell. */
const char *report_path(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
