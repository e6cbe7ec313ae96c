/* Wakeup sections of the table and JSON renderers (user/render/render_wake.c). */
#ifndef IDLESCOPE_RENDER_WAKE_H
#define IDLESCOPE_RENDER_WAKE_H

#include <jansson.h>
#include <stdio.h>

#include "model/model.h"

void render_wake_table(FILE *f, const struct summary *s);
json_t *wake_cpu_json(const struct cpu_summary *cs);
json_t *wake_rows_json(const struct summary *s);
/* How the measured timer lateness compares with the declared exit latency. */
const char *lat_verdict(const struct state_summary *st, const struct lat_summary *l);

#endif
