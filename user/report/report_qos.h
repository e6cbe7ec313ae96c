/* The report's PM QoS section: the ledger of a summary document (its
 * pm_qos object, docs/json-schema.md), one row per request. */
#ifndef IDLESCOPE_REPORT_QOS_H
#define IDLESCOPE_REPORT_QOS_H

#include <jansson.h>
#include <stdio.h>

/* Nothing when the document has no ledger (replay, older files). */
void report_qos_section(FILE *f, int fi, const json_t *doc);

#endif
