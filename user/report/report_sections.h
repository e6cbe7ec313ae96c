/* The report's sections, one file per concern, called by the page
 * (report_html.c). */
#ifndef IDLESCOPE_REPORT_SECTIONS_H
#define IDLESCOPE_REPORT_SECTIONS_H

#include <stdio.h>

#include "report/report_blocks.h"

/* Sections, one per concern (report_summary.c, report_hist.c,
 * report_compare.c); fi is the input's index, used in ids and data-f. */
void report_summary_section(FILE *f, int fi, const struct report_input *in);
void report_hist_section(FILE *f, int fi, const struct report_input *in);
/* The comparison view of the summaries among in[0..n); needs two. */
void report_compare_section(FILE *f, const struct report_input *in, int n);

#endif
