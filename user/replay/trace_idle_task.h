/* The time each CPU's idle task (pid 0) ran, from sched_switch: what a
 * trace without power:cpu_idle still tells about idleness. */
#ifndef IDLESCOPE_TRACE_IDLE_TASK_H
#define IDLESCOPE_TRACE_IDLE_TASK_H

#include <stdint.h>

#include "replay/trace_parse.h"

/* Per CPU: the switches seen, in the CPU's buffer order. */
struct trace_idle_task {
	uint64_t ns;        /* completed runs of the idle task */
	uint64_t since;     /* the last switch */
	uint64_t first;     /* the first switch */
	uint8_t seen;       /* a switch seen */
	uint8_t first_prev; /* the first switch left the idle task: it ran from the start */
	uint8_t running;    /* the idle task runs since `since` */
	uint8_t gap;        /* lost events since the last switch: its run dropped */
};

/* One sched_switch (re.kind RE_SWITCH) on the CPU of its buffer (src_cpu).
 * Returns -1 when out of memory. */
int trace_idle_task_switch(struct trace_data *d, const struct trace_event *ev);

/* The time the idle task of cpu ran in the window [min_ts, max_ts]: the
 * first switch's prev ran since before the window, the last one's next
 * runs to its end. Returns -1 when cpu had no sched_switch. */
int64_t trace_idle_task_ns(const struct trace_data *d, int cpu);

#endif
