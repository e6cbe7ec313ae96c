/* The halt-polling section of the table and JSON renderers
 * (docs/metrics.md#halt-polling): shown only where it was counted. */
#ifndef IDLESCOPE_RENDER_HALTPOLL_H
#define IDLESCOPE_RENDER_HALTPOLL_H

#include <jansson.h>
#include <stdio.h>

#include "model/model.h"

void render_haltpoll_table(FILE *f, const struct summary *s);
/* The "haltpoll" object, or null where halt-polling was not counted. */
json_t *haltpoll_json(const struct summary *s);

#endif
