/* The time each CPU's idle task (pid 0) ran, from sched_switch: what a
 * trace without power:cpu_idle still tells about idleness. */
#ifndef IDLESCOPE_TRACE_IDLE_TASK_H
#define IDLESCOPE_TRACE_IDLE_TASK_H

#include <stdbool.h>
#include <stdint.h>

#include "replay_event.h"

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

/* One sched_switch (re->kind RE_SWITCH) on the CPU of its buffer, in *table
 * (allocated on first use, one entry per CPU); gap: its buffer lost events
 * since its last switch. Runs of unknown length are added to *dropped.
 * Returns -1 when out of memory. Knows nothing of the parser (trace_parse.c
 * calls it), so the two units do not include each other. */
int trace_idle_task_switch(struct trace_idle_task **table, uint64_t *dropped, uint32_t cpu,
			   bool gap, const struct replay_event *re);

/* The time the idle task of cpu ran in the window [min_ts, max_ts]: the
 * first switch's prev ran since before the window, the last one's next
 * runs to its end. Returns -1 when cpu had no sched_switch. */
int64_t trace_idle_task_ns(const struct trace_idle_task *table, int cpu, uint64_t min_ts,
			   uint64_t max_ts);

#endif
