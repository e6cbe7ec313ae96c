/* The report's summary section of one input (report_summary.c). */
#ifndef IDLESCOPE_REPORT_SUMMARY_H
#define IDLESCOPE_REPORT_SUMMARY_H

#include <stdio.h>

#include "report/report_blocks.h"

/* fi is the input's index, used in ids and data-f. */
void report_summary_section(FILE *f, int fi, const struct report_input *in);

#endif
