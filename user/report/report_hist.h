/* The report's histogram section of one input (report_hist.c). */
#ifndef IDLESCOPE_REPORT_HIST_H
#define IDLESCOPE_REPORT_HIST_H

#include <stdio.h>

#include "report/report_blocks.h"

/* fi is the input's index, used in ids and data-f. */
void report_hist_section(FILE *f, int fi, const struct report_input *in);

#endif
