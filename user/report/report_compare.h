/* The report's comparison of several inputs (report_compare.c). */
#ifndef IDLESCOPE_REPORT_COMPARE_H
#define IDLESCOPE_REPORT_COMPARE_H

#include <stdio.h>

#include "model/compare_view.h"
#include "report/report_blocks.h"

/* The comparison view of the summaries among in[0..n); needs two. */
void report_compare_section(FILE *f, const struct report_input *in, int n);

/* The comparison tables (states, the workload's figures, wakeup causes, the
 * governor's misses, the largest differences) and a chart per state of view
 * v, its variants named by names (the first the base); every id starts with
 * prefix ("" for the one comparison of a page). */
void report_view_section(FILE *f, const struct compare_view *v, const char *const *names,
			 const char *prefix);

#endif
