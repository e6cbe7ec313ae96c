/* The input of a report, read, and the blocks every section draws with
 * (report_blocks.c). */
#ifndef IDLESCOPE_REPORT_BLOCKS_H
#define IDLESCOPE_REPORT_BLOCKS_H

#include <jansson.h>
#include <stdio.h>

#include "model/flatten.h"

struct report_input {
	const char *path;
	char label[64];       /* "2: run.json": input number and base name */
	json_t *summary;      /* an idlescope/1 document, or NULL */
	json_t *hists;        /* array of idlescope-hist/1 reports, or NULL */
	struct metric_set m;  /* summary's flat metrics (the comparison view) */
	int variant;          /* the comparison's variant: inputs of one variant are its runs */
};

/* Reads in->path by its schema: an idlescope/1 summary (also JSON Lines of
 * record -i) into summary and m, or idlescope-hist/1 reports (one per line)
 * into hists. Returns 0, or -1 with a one-line reason in err. */
int report_input_load(struct report_input *in, char *err, size_t errlen);
void report_input_free(struct report_input *in);

/* A histogram (a JSON array of {lo_ns, hi_ns, count}) at path: its chart,
 * then its buckets as a table under <details>. linear_ns: the bucket width
 * of a linear histogram (an open last bucket is drawn that wide), 0 for log2. */
void report_hist_block(FILE *f, int fi, const json_t *hist, const char *path, const char *id,
		       const char *what, double linear_ns);

/* A dotted JSON path from a printf format, for html_*_cell. */
const char *report_path(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
