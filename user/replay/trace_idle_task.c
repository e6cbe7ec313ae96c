/* Idle-task time from sched_switch: prev_pid 0 leaves the idle task, next_pid
 * 0 enters it. Not a state residency: the CPU may poll or run IRQs meanwhile. */
#include "replay/trace_idle_task.h"

#include <stdlib.h>

#define MAX_CPU 4095 /* IS_MAX_CPUS - 1, as trace_parse.c */

int trace_idle_task_switch(struct trace_idle_task **table, uint64_t *dropped, uint32_t c,
			   bool gap, const struct replay_event *re)
{
	struct trace_idle_task *it;
	uint64_t t = re->now_ns;

	if (c > MAX_CPU)
		return 0;
	if (!*table && !(*table = calloc(MAX_CPU + 1, sizeof(**table))))
		return -1;
	it = &(*table)[c];
	if (gap && it->running) {
		/* the run open across lost events may have ended and begun again
		 * in them: its length is unknown, not counted */
		it->running = 0;
		it->gap = 1;
		(*dropped)++;
	}
	if (!it->seen) {
		it->seen = 1;
		it->first = t;
		it->first_prev = re->sw.prev_pid == 0;
	} else {
		if (t < it->since) /* a clock step back inside the buffer */
			t = it->since;
		if (it->running && re->sw.prev_pid == 0)
			it->ns += t - it->since;
		else if (!it->gap && it->running != (re->sw.prev_pid == 0))
			/* prev is not what the last switch ran: a switch was lost,
			 * the idle task's runs around it are unknown, not counted */
			(*dropped)++;
	}
	it->running = re->sw.next_pid == 0;
	it->since = t;
	it->gap = 0;
	return 0;
}

int64_t trace_idle_task_ns(const struct trace_idle_task *table, int cpu, uint64_t min_ts,
			   uint64_t max_ts)
{
	const struct trace_idle_task *it;
	uint64_t ns;

	if (!table || cpu < 0 || cpu > MAX_CPU || !table[cpu].seen)
		return -1;
	it = &table[cpu];
	ns = it->ns;
	if (it->first_prev && it->first > min_ts)
		ns += it->first - min_ts;
	if (it->running && max_ts > it->since)
		ns += max_ts - it->since;
	return (int64_t)ns;
}
