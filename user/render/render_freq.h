/* The frequency-residency section of the table and JSON renderers. */
#ifndef IDLESCOPE_RENDER_FREQ_H
#define IDLESCOPE_RENDER_FREQ_H

#include <jansson.h>
#include <stdio.h>

#include "model/model.h"

void render_freq_table(FILE *f, const struct summary *s);
json_t *freq_json(const struct summary *s);

#endif
