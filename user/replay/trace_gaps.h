/* Idle periods open across a lost-events gap: their exit may belong to
 * another period whose events were lost, so their length is unknown. */
#ifndef IDLESCOPE_TRACE_GAPS_H
#define IDLESCOPE_TRACE_GAPS_H

#include "replay/trace_parse.h"

/* After trace_sort_events: removes the enter of every idle period open on a
 * CPU when its buffer lost events (an event with gap set), counting it in
 * d->gap_periods. The period's exit is then an exit without its enter. */
void trace_drop_gap_periods(struct trace_data *d);

#endif
