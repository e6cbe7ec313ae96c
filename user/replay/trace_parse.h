/* Recorded traces as text: `trace-cmd report`, the ftrace `trace` file and
 * idlestat's own trace files (`idlestat --trace -o`), parsed into events of
 * the replay vocabulary (include/replay_event.h) plus whatever the header tells (CPU count,
 * clusters, idle-state names and target residencies). Pure: no I/O, no
 * globals, never reads the analysing machine; every malformed input is
 * counted and reported, never fatal except an unusable idlestat header. */
#ifndef IDLESCOPE_TRACE_PARSE_H
#define IDLESCOPE_TRACE_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "idle_stats.h"
#include "replay_event.h"

struct trace_idle_task;

enum trace_format { TF_UNKNOWN = 0, TF_TRACE_CMD, TF_FTRACE, TF_IDLESTAT, TF_TRACE_DAT };

/* An event line: the replay event it means, where it came from. re.now_ns
 * is the trace's own timestamp; a hrtimer's re.timer.fn is 1 + its index in
 * trace_data.fn_names (0 = unknown). */
struct trace_event {
	struct replay_event re;
	uint32_t line;    /* 1-based line in the input */
	uint32_t src_cpu; /* the [CPU] column: the per-CPU buffer that logged it */
	uint32_t gap;     /* its buffer lost events just before it */
};

/* An idle state from an idlestat header (only the name and the target
 * residency are in it). */
struct trace_state {
	char name[32];
	uint64_t target_residency_ns;
};

#define TP_MAX_SKIPPED_NAMES 16
#define TP_MAX_IRQ_NAMES 256

struct trace_data {
	enum trace_format format;
	int header_cpus;        /* cpus=N in the header, 0 = none */
	int max_cpu;            /* highest CPU in an event, -1 = none */
	/* the span of every well-formed event line, used or not: the window */
	bool have_ts;
	uint64_t min_ts, max_ts;
	/* idlestat header */
	char version[24];       /* idlestat's "version = X", "" for other formats */
	bool have_states;
	int nr_state_cpus;      /* entries of nr_states / states / described */
	int *nr_states;         /* [cpu] named states; 0 with described = no driver */
	bool *described;        /* [cpu] a "cpuid N:" table (false: offline, or 0.4) */
	struct trace_state *states; /* [cpu * IS_MAX_STATES + i] */
	int nr_clusters;
	int *cluster_of;        /* [nr_state_cpus], -1 = none */
	/* events, in file order (sort with trace_sort_events) */
	struct trace_event *ev;
	size_t nr_ev, cap_ev;
	/* what was not used */
	uint64_t lines;
	uint64_t skipped;       /* well-formed events replay does not use */
	struct { char name[40]; uint64_t count; } skipped_names[TP_MAX_SKIPPED_NAMES];
	int nr_skipped_names;
	uint64_t garbled;       /* lines that are neither events, comments nor header */
	uint32_t first_garbled_line;
	uint64_t lost_events;   /* "[LOST n EVENTS]", "[n EVENTS DROPPED]" markers */
	uint64_t drop_markers;  /* "[EVENTS DROPPED]" markers (trace-cmd, no count) */
	uint64_t overwritten;   /* ftrace's entries-written - entries-in-buffer: oldest lost */
	uint64_t gaps;          /* events after a lost-events marker of their buffer */
	uint64_t gap_periods;   /* idle periods open across such a gap, dropped (trace_gaps.c) */
	uint64_t gap_marks;     /* lost_events + drop_markers when the last gap was placed */
	uint8_t *gap_pending;   /* [cpu] TP_GAP_*: a marker seen, its buffer's next event not yet */
	uint64_t idle_events;   /* power:cpu_idle events: 0 = idle states not recorded */
	struct trace_idle_task *idle_task; /* [cpu] from sched_switch (trace_idle_task.c) */
	uint64_t idle_task_dropped; /* idle-task runs of unknown length (trace_idle_task.c) */
	uint64_t out_of_order;  /* events earlier than the previous one of their CPU */
	uint64_t reordered;     /* events replayed before a line above them (trace_sort_events) */
	uint64_t held_back;     /* events kept after their buffer's previous one, at its time */
	bool truncated;         /* the last line had no newline: not replayed */
	uint32_t truncated_line;
	uint64_t dropped_states; /* idlestat states beyond IS_MAX_STATES */
	uint64_t unknown_residency; /* named idlestat states with residency -1 (taken as 0) */
	/* IRQ names from irq_handler_entry */
	int nr_irq_names;
	struct { uint32_t irq; char name[32]; } irq_names[TP_MAX_IRQ_NAMES];
	/* hrtimer function names (text traces name them, not their address) */
	int nr_fn_names;
	char (*fn_names)[48];
	char error[160];        /* why parsing failed (return -1) */
	uint64_t *last_ts;      /* [cpu] the last power event's time (out_of_order) */
};

/* Parses a whole trace. Returns 0, or -1 with out->error set (no known
 * format, an unusable idlestat header, out of memory); free with
 * trace_data_free either way. */
int trace_parse_buffer(const char *buf, size_t len, struct trace_data *out);
void trace_data_free(struct trace_data *d);

/* One event line ("comm-pid [cpu] flags ts: event: args"), as both trace-cmd
 * report and ftrace write it. Returns 1 with *ev filled (and name set to the
 * event name), 0 for a well-formed event replay does not use (name set),
 * -1 for a line that is not a parsable event. ev->line is left alone. */
int trace_parse_line(const char *line, size_t len, struct trace_event *ev, char *name,
		     size_t namelen);

/* Puts the events in replay order: per logging CPU (the [CPU] column), file
 * order is kept where a timestamp ties or steps back within the run of lines
 * it follows (that event is replayed at the previous one's time and counted
 * in held_back); a step back to before the run's first line starts a new run
 * (a reordered or concatenated block). Runs are then merged by time, file
 * order among equal times; moved events are counted in reordered. */
void trace_sort_events(struct trace_data *d);

const char *trace_format_name(enum trace_format f);

/* An event's fields by name, as a text line's "key=value" arguments or a
 * binary record's format give them. Keys: the kernel's field names, plus
 * "below" (cpu_idle_miss's type) and "reason" (arm64 ipi_entry's text). */
struct trace_fields {
	int (*num)(const void *ctx, const char *key, uint64_t *v); /* -1: absent */
	int (*str)(const void *ctx, const char *key, char *out, size_t len);
	const void *ctx;
};

/* Fills re (zeroed, now_ns set; cpu = on_cpu unless the event names one)
 * from the event called name. Returns 1 used, 0 an event replay does not
 * use, -1 a field missing or out of range. A hrtimer's timer.fn is left to
 * the caller (trace_data_add). */
int trace_decode(const char *name, const struct trace_fields *f, uint32_t on_cpu,
		 struct replay_event *re);

/* For importers of other trace files (trace_dat.c): one decoded event of
 * the trace (used: 1 replayed, 0 a well-formed event replay does not use,
 * named name), counted as trace_parse_buffer counts a line; fn names a
 * hrtimer's function ("" or NULL: unknown). Sets re.timer.fn. Returns -1
 * when out of memory. */
int trace_data_add(struct trace_data *d, struct trace_event *ev, int used, const char *name,
		   const char *fn);
/* A lost-events marker of the buffer of cpu: its next replayed event gets
 * gap set, and its next sched_switch knows it. trace_data_add also places
 * one, on the event's own buffer, when lost_events or drop_markers grew since
 * the last (a binary record's count). Returns -1 when out of memory. */
int trace_data_gap(struct trace_data *d, uint32_t cpu);
#define TP_GAP_IDLE 1 /* for the idle periods (trace_gaps.c) */
#define TP_GAP_TASK 2 /* for the idle task's runs (trace_idle_task.c) */
/* Whether a gap of cpu's buffer waits for this consumer; clears it. */
bool trace_data_gap_take(struct trace_data *d, uint32_t cpu, uint8_t which);
/* 1 + the index of fn in d->fn_names (added if new), 0 when the table is full. */
uint32_t trace_data_fn(struct trace_data *d, const char *fn);
void trace_data_skip(struct trace_data *d, const char *name);
/* The replay kind of an x86 vector event (local_timer_entry...), 0 for
 * other names; of an arm64 ipi_entry by its reason text. */
enum replay_kind trace_vector_kind(const char *name);
enum replay_kind trace_ipi_reason(const char *reason);

#endif
