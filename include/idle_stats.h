/* Map value layouts of idle residency, shared by bpf/idle.bpf.h and the loader
 * (user/session/idle_loader.c). __u* only, so the skeleton header compiles in userspace. */
#ifndef IDLESCOPE_IDLE_STATS_H
#define IDLESCOPE_IDLE_STATS_H

#include "hist.h"
#include "wake_stats.h"

/* CPUIDLE_STATE_MAX in the kernel. */
#define IS_MAX_STATES 10
#define IS_MAX_LEVELS 5 /* topology levels: core, cluster, die, package, one more */
/* Upper bound on CPUs the maps are sized for; the loader sizes them to the
 * number of possible CPUs, replay tests to the CPU count they simulate. */
#define IS_MAX_CPUS 4096

/* Value of cpu_idle's state argument on exit (PWR_EVENT_EXIT). */
#define IS_PWR_EVENT_EXIT 0xffffffffu

/* Flags in idle_params.flags. */
#define IS_PARAMS_VALID (1u << 0)      /* the loader filled this CPU's table */
#define IS_PARAMS_NO_CLASSIFY (1u << 1) /* no cpuidle driver: default idle only */

/* Per-CPU idle-state table, written by the loader from sysfs. One lookup per
 * idle exit reads everything the classification needs. */
struct idle_params {
	__u32 nr_states;
	__u32 flags;
	__u32 disabled_mask; /* bit i: state i disabled (sysfs disable) */
	__u32 poll_mask;     /* bit i: state i is a polling state (POLL) */
	/* bit i: a waker of a CPU in state i sends no IPI, or the IPI runs
	 * inside the period (cpuidle_sysfs.c): a period of it that ends with no
	 * interrupt seen and work queued was ended without one */
	__u32 noipi_mask;
	__u32 pad_noipi;
	__u64 qos_limit_ns;  /* PM QoS resume-latency limit, ~0 = none */
	__u32 qos_slot;      /* the ledger slot that limit is charged to (qos_stats.h) */
	__u32 pad_qos;
	__u64 poll_limit_ns; /* cpuidle_poll_time() estimate, 0 = unknown */
	__u64 exit_latency_ns[IS_MAX_STATES];
	__u64 target_residency_ns[IS_MAX_STATES];
};

/* Per-CPU slot: what the CPU is doing now. Line 0 is written only by the
 * CPU at its idle events and read by the CPUs that wake it; line 1 only
 * by the CPU (its wakeup attribution, all that its interrupt-path
 * programs touch: no other CPU writes it, so their writes hit; a no-IPI
 * waker reads its exit time where that event is hooked, bpf/wake.bpf.h);
 * the wakee's and the IPI senders' lines are written by the other CPUs. */
/* The wakee of the current wake is valid while its tag is this. */
#define WAKEE_TAG(gen) (0x10000u | (__u16)(gen))

/* idle_cpu_slot.wake_phase: where the CPU's wake stands. */
enum wake_phase {
	WP_NONE = 0,  /* no wake in progress */
	WP_IDLE,      /* in a period: its first event is its cause */
	WP_PENDING,   /* counted period exited, cause not seen yet */
	WP_OPEN,      /* cause counted; timer refinement still allowed */
};

struct idle_cpu_slot {
	/* Line 0: written by this CPU at every idle entry and exit; read by
	 * its wakers (is a wake in progress, which). */
	__u64 enter_ns;  /* 0 = not in an idle period we saw begin */
	__u32 state;     /* state requested at enter */
	__u16 pack_group1; /* 1 + the CPU's group at the packing level, 0 = none */
	__u8 known;        /* state known: an idle event seen, or the poke found it busy */
	/* an idle event was handled: a later unmatched exit lost its enter
	 * (here, not on line 1: every idle event writes it) */
	__u8 idle_seen;
	__u8 wake_pending;     /* counted period exited, cause not seen yet */
	__u8 wake_open;        /* cause counted; timer refinement still allowed */
	__u8 last_counted;     /* the last exit was counted: its miss event counts too */
	/* 1 + the level of its smallest group when that group is counted
	 * from its members' slots, not a shared word, else 0 (loader-written:
	 * group_slot.lazy, bpf/group.bpf.h) */
	__u8 group_lazy;
	__u16 group_id1;    /* 1 + this CPU's smallest topology group, 0 = none (loader-written) */
	__u16 seq;          /* odd while an idle event updates this slot and the CPU's stats */
	__u16 wake_gen;     /* wakes begun (idle entries with wakeups on): tags the wakee */
	__u16 pad0;
	/* the last period that ended, seen or not, while groups are on: read
	 * by the other members of a lazy group at their exits */
	__u64 grp_enter_ns;
	__u64 grp_exit_ns;
	/* Line 1: the wakeup attribution of the current / last counted
	 * period, this CPU's alone: all that its interrupt-path programs
	 * read or write, so that each of them touches this line only */
	__u64 wake_detail __attribute__((aligned(64))); /* irq, softirq vector, waker of the first cause */
	__u8 wake_kind;        /* enum wake_kind, WAKE_UNKNOWN until seen */
	__u8 wake_early;       /* that period was shorter than its target */
	__u8 wake_state;       /* that period's state */
	__u8 wake_softirq_seen;
	__u8 wake_lat_done;    /* its timer lateness was recorded */
	/* enum wake_phase: line 0's enter_ns, wake_pending and wake_open as
	 * the interrupt path needs them (the wakers on other CPUs read those) */
	__u8 wake_phase;
	__u16 ended_group;  /* 1 + the largest group whose all-idle time this CPU's exit ended */
	/* the hrtimer that ended the period */
	__u64 timer_fn;
	__u64 timer_lat_ns;
	__u64 wake_exit_ns;    /* exit of the last counted period */
	/* Line 2: the wakee, written by its waker (another CPU, or this one
	 * for a queued wakeup), and rare counters, apart from line 0 so that
	 * wakers do not steal it. */
	__u32 wakee_pid __attribute__((aligned(64)));       /* task woken onto this CPU during the period */
	__u32 waker_cpu;       /* CPU that woke it (sent the IPI, or itself) */
	char wakee_comm[16];
	/* WAKEE_TAG(wake_gen) of the wake the wakee belongs to, 0 none: the
	 * waker writes it, so this CPU never writes line 1 to clear it */
	__u32 wakee_tag;
	__u64 unmatched_exits; /* exits without a seen enter */
	/* that exit when it was the CPU's first idle event (its period began
	 * before the window), 0 otherwise: only then is idle from the start known */
	__u64 first_exit_ns;
	__u64 bad_state;       /* enter with a state index beyond the state slots */
	/* exits outside the window while the sysfs snapshots were read
	 * (edge_from_ns to start, after stop) whose state was unknown */
	__u32 edge_unknown;
	__u8 edge_state;       /* after stop: 0 the frozen period's, 1 + state entered, 0xff none */
	__u8 pad_edge[3];
	/* Line 3: idle entry/exit overhead (hist idle-entry / idle-exit) */
	__u64 to_idle_ns;   /* switch to the idle task, not yet in cpu_idle */
	__u64 last_exit_ns; /* last idle exit, no switch away yet */
	/* packing: who runs now, since when */
	__u64 switch_in_ns;
	__u32 cur_pid;
	__u32 lost_exits;   /* enters while a period was open: its exit lost, not counted */
	/* EAS: root cfs_rq utilization from pelt_cfs_tp, time-weighted */
	__u64 util_last;
	__u64 util_ts;
	__u64 util_acc;     /* sum of util x ns since the start */
	__u64 util_max;
	/* Topology-node updates (fetch-and-adds; for a lazy group, exits that
	 * read its members) this CPU's idle events caused, per level: the
	 * cost of group idle, counted */
	__u64 node_updates[IS_MAX_LEVELS];
	/* Its own line: written by the CPUs that send this one an IPI (only
	 * when the sender changes) or wake it polling, and read by this CPU's
	 * wakeup: apart from the wakee's line, which this CPU's own wakeups
	 * write, so that a sender's read hits */
	__u32 ipi_from __attribute__((aligned(64))); /* 1 + the last sender, 0 none */
	/* a waker that found this CPU polling (sched_wake_idle_without_ipi):
	 * 1 + its CPU, for wake wake_gen of this CPU's; this CPU takes it as
	 * its wake's cause when nothing came before (bpf/wake.bpf.h), so that
	 * the waker writes only this line, never the attribution's */
	__u16 noipi_from;
	__u16 noipi_gen;
	/* The cut lines: this CPU at a live reader's cut (cut_ns, bpf/idle.bpf.h),
	 * kept by its first idle event after it: the period in flight then,
	 * and the time of the periods that ended after it, per state. A read
	 * spread over milliseconds gives every CPU and group as at one
	 * instant (session/raw_cut.c). */
	__u64 cut_epoch __attribute__((aligned(64))); /* the cut_ns these are for, 0 none */
	__u64 cut_enter_ns;
	__u32 cut_state;
	__u32 pad_cut;
	__u64 cut_time_ns[IS_MAX_STATES];
} __attribute__((aligned(64)));

/* Per CPU (array gov_inputs): what the governor was told before the
 * coming period, written by this CPU's fentry/fexit programs on the idle
 * path (bpf/gov.bpf.h) and taken at the period's exit: no new selection
 * runs on a CPU between its idle entry and exit. */
struct gov_input {
	/* the next timer event: the kernel's idle entry time (where the
	 * fexit can read it, else the fexit's own time) + the sleep length */
	__u64 next_ns;
	__u64 period_next_ns;   /* next_ns of the period that ended last, 0 unknown */
	__u64 timer_expires_ns; /* the hrtimer that ended it: expiry, monotonic */
	__u8 fresh;      /* a sleep length since the CPU's last idle exit */
	__u8 tick_known; /* a tick decision (stop or retain) since then */
	__u8 tick_kept;  /* retain_tick: the tick stays on */
	/* that period was too deep, woken before its next timer: its wake's
	 * cause is counted in gov_above_cause when final */
	__u8 above_unannounced;
	__u8 period_tick_kept; /* tick_kept of the period that ended last */
	__u8 pad[3];
} __attribute__((aligned(64)));

/* The expiry of the timer that ended a period and the next event the
 * governor was told of agree within this (both are the kernel's ktime of
 * one hrtimer: they differ only when another event came first). */
#define GOV_TIMER_TOLERANCE_NS 1000ULL

/* Per CPU and state: everything summed over completed idle periods. */
struct idle_state_stats {
	__u64 entries;
	__u64 time_ns;
	__u64 min_ns;
	__u64 max_ns;
	__u64 above;           /* too deep: kernel's rule */
	__u64 below;           /* too shallow: kernel's rule */
	__u64 below_qos;       /* of below: the deeper state was barred by PM QoS */
	__u64 poll_limit;      /* of below on a polling state: ended at its limit */
	__u64 miss_above;      /* power:cpu_idle_miss(below=0), kernel-exact */
	__u64 miss_below;      /* power:cpu_idle_miss(below=1) */
	/* periods shorter than the state's target residency (too deep,
	 * whether or not a shallower state was enabled), and their time: what
	 * entering this state wasted (docs/metrics.md#exit-cost) */
	__u64 early;
	__u64 early_ns;
	/* fexit on cpuidle_enter_state/cpuidle_enter, where the kernel allows
	 * it: kernel-exact outcomes of the entries (sysfs usage and rejected) */
	__u64 fx_entered;      /* entries that ended in this state (its return value) */
	__u64 fx_rejected;     /* entries of this requested state that returned < 0 */
	__u64 fx_demoted;      /* entries of this requested state that entered another */
	/* exits not counted, outside the window while the sysfs snapshots were
	 * read (from edge_from_ns to start, after stop): the kernel's counters
	 * may hold them (model/kernel_check.c) */
	__u64 edge_exits;
	/* why the governor missed (docs/metrics.md#why-the-governor-missed):
	 * periods whose governor inputs were seen (fexit on
	 * tick_nohz_get_sleep_length, where the kernel allows it), and of those
	 * too deep with the next timer known to come before this state's target
	 * residency (near) or not (woken before it, unannounced); too shallow
	 * but not for PM QoS, with the tick kept on (tick), the next timer far
	 * enough for the deeper state (history), or nearer than that yet slept
	 * past (timer: cancelled or moved) */
	__u64 gov_known;
	__u64 gov_above_near;
	__u64 gov_above_unannounced;
	__u64 gov_below_tick;
	__u64 gov_below_history;
	__u64 gov_below_timer;
	/* of gov_above_unannounced: the wakes' causes (enum wake_kind), with
	 * wakeups on */
	__u64 gov_above_cause[WAKE_NR_KINDS];
	__u64 ideal[IS_MAX_STATES]; /* periods whose ideal state was i */
	__u64 hist[IS_HIST_BUCKETS];
} __attribute__((aligned(64)));

#endif
