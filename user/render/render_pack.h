/* The packing and EAS sections of the table and JSON renderers. */
#ifndef IDLESCOPE_RENDER_PACK_H
#define IDLESCOPE_RENDER_PACK_H

#include <jansson.h>
#include <stdio.h>

#include "model/model.h"

/* The packing section (record --packing). */
void render_pack_table(FILE *f, const struct summary *s);
json_t *pack_json(const struct summary *s);
/* EAS context: a header line, the packing-section lines, JSON. */
void render_eas_line(FILE *f, const struct summary *s);
void render_eas_pack(FILE *f, const struct summary *s);
json_t *eas_json(const struct summary *s);

#endif
