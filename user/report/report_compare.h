/* The report's comparison of several inputs (report_compare.c). */
#ifndef IDLESCOPE_REPORT_COMPARE_H
#define IDLESCOPE_REPORT_COMPARE_H

#include <stdio.h>

#include "report/report_blocks.h"

/* The comparison view of the summaries among in[0..n); needs two. */
void report_compare_section(FILE *f, const struct report_input *in, int n);

#endif
