/* The report's "Why the governor missed" section: each state's governor
 * split (the JSON's states[].governor, docs/metrics.md), per CPU and for
 * all CPUs, or the one line saying why there is none. */
#ifndef IDLESCOPE_REPORT_GOV_H
#define IDLESCOPE_REPORT_GOV_H

#include <jansson.h>
#include <stdio.h>

/* Nothing for a document without governor_inputs (older files). */
void report_gov_section(FILE *f, int fi, const json_t *doc);

#endif
