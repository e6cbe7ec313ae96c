/* Drops idle periods a lost-events gap cuts: what happened on the CPU in the
 * gap is unknown, so the enter before it and the exit after it may not pair. */
#include "replay/trace_gaps.h"

#include <stdlib.h>

#define NONE ((size_t)-1)

void trace_drop_gap_periods(struct trace_data *d)
{
	size_t *open, out = 0;
	uint32_t n = (uint32_t)d->max_cpu + 1;

	if (!d->gaps || d->max_cpu < 0 || !(open = malloc(sizeof(*open) * n)))
		return;
	for (uint32_t c = 0; c < n; c++)
		open[c] = NONE;
	for (size_t i = 0; i < d->nr_ev; i++) {
		const struct trace_event *e = &d->ev[i];

		/* a cpu_idle event is logged by its own CPU: buffer = CPU */
		if (e->gap && e->src_cpu < n && open[e->src_cpu] != NONE) {
			d->ev[open[e->src_cpu]].re.kind = RE_NR_KINDS; /* removed below */
			d->gap_periods++;
			open[e->src_cpu] = NONE;
		}
		if (e->re.kind == RE_IDLE && e->re.cpu < n)
			open[e->re.cpu] = e->re.idle.state == IS_PWR_EVENT_EXIT ? NONE : i;
	}
	free(open);
	for (size_t i = 0; i < d->nr_ev; i++)
		if (d->ev[i].re.kind != RE_NR_KINDS)
			d->ev[out++] = d->ev[i];
	d->nr_ev = out;
}
