/* Map layouts for wakeup attribution (bpf/wake.bpf.h): what ended each idle
 * period, timer lateness, and which tasks the wakeups were for. __u* only. */
#ifndef IDLESCOPE_WAKE_STATS_H
#define IDLESCOPE_WAKE_STATS_H

#include "hist.h"

/* The first attributable event of an idle period. */
enum wake_kind {
	WAKE_UNKNOWN = 0,
	WAKE_TIMER,            /* local timer interrupt (x86 LOC) */
	WAKE_IRQ,              /* device (or arch timer) IRQ: detail = irq */
	WAKE_IPI_RESCHED,      /* reschedule IPI */
	WAKE_IPI_CALL,         /* function-call IPI */
	WAKE_IPI_CALL_SINGLE,  /* single-target function call (ttwu wakelist) */
	WAKE_IPI_IRQ_WORK,     /* irq_work self/remote IPI */
	WAKE_IPI_OTHER,        /* x86 platform and thermal vectors */
	WAKE_SOFTIRQ,          /* softirq with no hardirq first: detail = vec */
	WAKE_NO_IPI,           /* polling CPU told to reschedule without an IPI */
	WAKE_POLL_TIMEOUT,     /* no wake: a poll reached its time limit */
	WAKE_NR_KINDS
};

/* Keys of the per-CPU detail table besides the kinds above. */
enum wake_detail_kind {
	WDETAIL_IRQ = 1,       /* detail = irq number */
	WDETAIL_SOFTIRQ,       /* detail = softirq vector */
	WDETAIL_TIMER_FN,      /* detail = hrtimer function address */
	WDETAIL_WAKEE,         /* detail = pid, aux = waker CPU */
	WDETAIL_GROUP_WAKEE,   /* detail = pid woken by the wake that ended the
				* all-idle time of group aux */
	WDETAIL_NR
};

#define IS_WAKE_DETAILS 8192 /* entries of the detail table in the object */
/* entries the loader gives it per CPU: top lists need a few dozen, and
 * anything beyond is counted in detail_drops (issue 23: 192 made the maps
 * 118 KB at 2 CPUs, over the 100 KB budget; 128 leaves 94 KB) */
#define IS_WAKE_DETAILS_PER_CPU 128

/* Per CPU: causes of the idle periods counted in idle_stats. */
struct wake_cpu_stats {
	__u64 count[WAKE_NR_KINDS];
	__u64 early[WAKE_NR_KINDS];  /* residency < the entered state's target */
	__u64 detail_drops;          /* detail table full */
	__u64 pad[3];
} __attribute__((aligned(64)));

/* Timer lateness (expiry -> hrtimer handler) of periods ended by a timer,
 * per CPU and idle state: the measured exit latency plus IRQ entry. */
struct wake_lat_stats {
	__u64 count;
	__u64 sum_ns;
	__u64 min_ns;
	__u64 max_ns;
	/* of count, with the governor's inputs seen (bpf/gov.bpf.h): the
	 * timer's expiry against the next event the governor was told of,
	 * later or earlier by more than GOV_TIMER_TOLERANCE_NS (earlier with the
	 * tick kept on: tick_first, the sleep length leaves the tick out), and
	 * |difference| of the later and earlier ones */
	__u64 gov_known;
	__u64 gov_later;
	__u64 gov_earlier;
	__u64 gov_tick_first;
	__u64 gov_err_sum_ns;
	__u64 gov_err_max_ns;
	__u64 hist[IS_HIST_BUCKETS];
} __attribute__((aligned(64)));

/* The CPU is part of the key so each entry is only ever written by that
 * CPU's handlers (no locks once inserted), and so replay can simulate CPUs. */
struct wake_detail_key {
	__u32 kind;   /* enum wake_detail_kind */
	__u32 aux;
	__u64 detail;
	__u32 cpu;
	__u32 pad;
};

struct wake_detail_val {
	__u64 count;
	__u64 early;
	char comm[16]; /* WDETAIL_WAKEE */
};

/* The detail table's entries as userspace reads them, and the last detail
 * of each kind per CPU (map wake_detail_last, cpu * WDETAIL_NR + kind),
 * which counts a repeated key in place before it reaches the table. */
struct wake_detail {
	struct wake_detail_key key;
	struct wake_detail_val val;
} __attribute__((aligned(64))); /* a CPU's last kind and the next CPU's first apart */

#endif
