/* "Why the governor missed": the table section splitting each state's
 * too-deep and too-shallow periods by what the governor was told
 * (model.h, struct gov_split; docs/metrics.md#why-the-governor-missed). */
#ifndef IDLESCOPE_RENDER_GOV_H
#define IDLESCOPE_RENDER_GOV_H

#include <stdio.h>

#include "model/model.h"

void render_gov_table(FILE *f, const struct summary *s);

#endif
