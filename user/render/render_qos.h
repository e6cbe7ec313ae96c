/* The PM QoS ledger's section of the table and JSON renderers
 * (model/qos_summary.h). */
#ifndef IDLESCOPE_RENDER_QOS_H
#define IDLESCOPE_RENDER_QOS_H

#include <jansson.h>
#include <stdio.h>

#include "model/model.h"

void render_qos_table(FILE *f, const struct summary *s);
/* null where no ledger was kept (replay) */
json_t *qos_json(const struct summary *s);

#endif
