/* The hrtimer matching of trace import: each hrtimer_expire_entry gets the
 * expiry of its timer's last hrtimer_start, so lateness = now - expires. */
#ifndef IDLESCOPE_TIMER_MATCH_H
#define IDLESCOPE_TIMER_MATCH_H

#include <stdint.h>

#include "replay/trace_parse.h"

struct timer_match {
	uint64_t starts;    /* hrtimer_start events read for their expiry */
	uint64_t unmatched; /* hrtimer_expire_entry without a start (or a name): dropped */
};

/* On sorted events: fills each RE_HRTIMER's timer.expires, and takes out the
 * RE_HRTIMER_START events (the handlers have no use for them) and the
 * RE_HRTIMER events whose start is before the trace, counting both in *m.
 * Returns 0, or -ENOMEM (d is then partly matched: not for replay). */
int timer_match_events(struct trace_data *d, struct timer_match *m);

#endif
