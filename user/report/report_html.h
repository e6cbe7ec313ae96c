/* `idlescope report`'s page: one self-contained HTML file (inline CSS and
 * SVG, one inline script allowed by its hash, no external resource) from
 * loaded JSON inputs, or from `ab`'s sweep. */
#ifndef IDLESCOPE_REPORT_HTML_H
#define IDLESCOPE_REPORT_HTML_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "model/compare_view.h"
#include "report/report_blocks.h"

/* Writes the page for n inputs (and sets their labels). Returns 0 or -1
 * (template error). */
int report_write_html(FILE *f, struct report_input *in, int n);

/* ab's runs: per workload compare's view of them (with its own figures),
 * the variants named as ab names them, and ab's JSON document embedded. */
struct report_sweep {
	int nr_workloads, nr_variants, repeat;
	const char *const *names, *const *commands; /* [workload] */
	const struct compare_view *views;           /* [workload] */
	const char *const *variants;                /* "governor=menu" */
	const char *warning;                        /* NULL or "" when none */
	const json_t *doc;                          /* idlescope-ab-sweep/1 */
};

/* The same page for ab's sweep: a section per workload. Returns 0 or -1. */
int report_write_sweep_html(FILE *f, const struct report_sweep *s);

#endif
