/* Map layout and knobs of `idlescope hist` (bpf/hist.bpf.h, bpf/sched.bpf.h).
 * __u* types only. */
#ifndef IDLESCOPE_HIST_DATA_H
#define IDLESCOPE_HIST_DATA_H

#include "hist.h"

enum hist_metric {
	HM_NONE = 0,
	HM_RESIDENCY,      /* idle period length, per state */
	HM_EXIT_LATENCY,   /* hrtimer lateness of timer-ended periods, per state */
	HM_WAKEUP_LATENCY, /* sched_waking -> the task switched in */
	HM_RUNQ_LATENCY,   /* sched_wakeup(_new) or preemption -> switched in */
	HM_IDLE_ENTRY,     /* switch to the idle task -> cpu_idle enter, per state */
	HM_IDLE_EXIT,      /* cpu_idle exit -> switch away from idle, per state */
	HM_PATH_LATENCY,   /* fentry FROM -> the next fentry TO on the same CPU */
	HM_NR_METRICS
};

/* wakeup-latency keeps its three parts in the state slots of CPU rows. */
enum wakeup_part {
	WP_TOTAL = 0,   /* sched_waking -> switched in */
	WP_WAKEUP = 1,  /* sched_waking -> sched_wakeup: the wakeup path (IPI, idle exit) */
	WP_RUNQ = 2,    /* sched_wakeup -> switched in: the run queue */
	WP_NR_PARTS
};

/* path-latency: FROM entries awaiting a TO on one CPU, innermost last. A FROM
 * entered while an earlier one still runs (an interrupt, recursion) nests;
 * a FROM entered after the previous one returned without a TO replaces it. */
#define IS_PATH_DEPTH 8
struct path_cpu {
	__u64 ts[IS_PATH_DEPTH];
	__u32 depth;
	__u32 returned;      /* bit i: frame i's FROM call has returned */
	__u64 unmatched_to;  /* TO entries with no FROM pending */
	__u64 replaced;      /* FROMs that returned and were followed by another FROM */
	__u64 overflow;      /* FROMs nested deeper than IS_PATH_DEPTH (not timed) */
};

/* When a task became ready (task_ts values). */
struct task_ready {
	__u64 ready_ns;  /* sched_waking (wakeup-latency) or wakeup/preemption (runq) */
	__u64 wakeup_ns; /* wakeup-latency: its sched_wakeup, 0 until seen */
};

/* Display buckets, chosen in the kernel from the user's unit and --linear:
 * log2: 0 = [0, 1 unit), k = [2^(k-1), 2^k) units; linear: k = [k*step,
 * (k+1)*step), the last one open. */
#define IS_DISP_BUCKETS 64

/* Per CPU and state (state 0 for metrics without one). fine[] is the
 * shared quarter-octave histogram the percentiles come from. */
struct hist_slot {
	__u64 count;
	__u64 sum_ns;
	__u64 min_ns;
	__u64 max_ns;
	__u64 disp[IS_DISP_BUCKETS];
	__u64 fine[IS_HIST_BUCKETS];
} __attribute__((aligned(64)));

#endif
