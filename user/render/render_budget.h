/* advise --latency-budget: the advice per state table (budget_report.h) as
 * JSON, its table text, and the settings file `ab --set-from` reads
 * (docs/advise.md). */
#ifndef IDLESCOPE_RENDER_BUDGET_H
#define IDLESCOPE_RENDER_BUDGET_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#include "advise/advise_input.h"
#include "advise/budget_report.h"

/* The "latency_budget" object of table t's advice b. */
json_t *budget_json(const struct adv_table_in *t, const struct budget_report *b);

/* Its text, under the table's state table. */
void budget_print(FILE *f, const json_t *b);

/* The proposal of every table as `--set` values, one per line: a PM QoS
 * value when every table has one (the smallest), else the stateN.disable
 * flags of the states any table leaves out. Returns the number of lines
 * (0: nothing to change). */
int budget_write_ab(FILE *f, const json_t *tables, uint64_t budget_ns, double percentile);

#endif
