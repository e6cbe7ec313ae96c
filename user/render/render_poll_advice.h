/* advise --poll-budget / --poll-latency: the halt-polling advice per state
 * table (advise/haltpoll_advise.h) as JSON, its text, and the ab setting
 * that verifies it (docs/advise.md#halt-polling). */
#ifndef IDLESCOPE_RENDER_POLL_ADVICE_H
#define IDLESCOPE_RENDER_POLL_ADVICE_H

#include <jansson.h>
#include <stdio.h>

#include "advise/haltpoll_advise.h"

/* The "halt_polling" object of a table: hp and what it came from. */
json_t *poll_advice_json(const struct hp_advice *hp, const struct hp_advice_in *in,
			 double target, double share);

/* Its text, under the table's states. */
void poll_advice_print(FILE *f, const json_t *p);

/* `guest_halt_poll_ns=CURRENT,PROPOSED` from the first table with a
 * proposal and a current value. Returns the lines written (0 or 1). */
int poll_advice_write_ab(FILE *f, const json_t *tables);

#endif
