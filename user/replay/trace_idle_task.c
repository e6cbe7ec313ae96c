/* Idle-task time from sched_switch: prev_pid 0 leaves the idle task, next_pid
 * 0 enters it. Not a state residency: the CPU may poll or run IRQs meanwhile. */
#include "replay/trace_idle_task.h"

#include <stdlib.h>

#define MAX_CPU 4095 /* IS_MAX_CPUS - 1, as trace_parse.c */

int trace_idle_task_switch(struct trace_data *d, const struct trace_event *ev)
{
	struct trace_idle_task *it;
	uint64_t t = ev->re.now_ns;
	uint32_t c = ev->src_cpu;

	if (c > MAX_CPU)
		return 0;
	if (!d->idle_task && !(d->idle_task = calloc(MAX_CPU + 1, sizeof(*d->idle_task))))
		return -1;
	it = &d->idle_task[c];
	if (trace_data_gap_take(d, c, TP_GAP_TASK) && it->running) {
		/* the run open across lost events may have ended and begun again
		 * in them: its length is unknown, not counted */
		it->running = 0;
		it->gap = 1;
		d->idle_task_dropped++;
	}
	if (!it->seen) {
		it->seen = 1;
		it->first = t;
		it->first_prev = ev->re.sw.prev_pid == 0;
	} else {
		if (t < it->since) /* a clock step back inside the buffer */
			t = it->since;
		if (it->running && ev->re.sw.prev_pid == 0)
			it->ns += t - it->since;
		else if (!it->gap && it->running != (ev->re.sw.prev_pid == 0))
			/* prev is not what the last switch ran: a switch was lost,
			 * the idle task's runs around it are unknown, not counted */
			d->idle_task_dropped++;
	}
	it->running = ev->re.sw.next_pid == 0;
	it->since = t;
	it->gap = 0;
	return 0;
}

int64_t trace_idle_task_ns(const struct trace_data *d, int cpu)
{
	const struct trace_idle_task *it;
	uint64_t ns;

	if (!d->idle_task || cpu < 0 || cpu > MAX_CPU || !d->idle_task[cpu].seen)
		return -1;
	it = &d->idle_task[cpu];
	ns = it->ns;
	if (it->first_prev && it->first > d->min_ts)
		ns += it->first - d->min_ts;
	if (it->running && d->max_ts > it->since)
		ns += d->max_ts - it->since;
	return (int64_t)ns;
}
