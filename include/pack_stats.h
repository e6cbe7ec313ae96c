/* Map layouts for packing (bpf/pack.bpf.h): how many topology groups are
 * busy over time, spread time, cross-group placements, runtime per task and
 * group. __u* only. */
#ifndef IDLESCOPE_PACK_STATS_H
#define IDLESCOPE_PACK_STATS_H

#define IS_PACK_SLOTS 64 /* histogram of the number of busy groups, 0..63 */
#define IS_PACK_TASKS 8192

/* The global state word: busy groups (bits 56-63), busy CPUs (bits 40-55),
 * time of the last change in us (bits 0-39, wraps after 12.7 days). */
#define PACK_GROUPS(w) ((__u32)((w) >> 56))
#define PACK_CPUS(w) ((__u32)(((w) >> 40) & 0xffff))
#define PACK_US(w) ((w) & ((1ULL << 40) - 1))
#define PACK_WORD(g, c, us) (((__u64)(g) << 56) | ((__u64)(c) << 40) | ((us) & ((1ULL << 40) - 1)))

struct pack_global {
	__u64 word;
	__u64 busy_ns[IS_PACK_SLOTS]; /* time with k groups having a busy CPU */
	__u64 spread_ns;              /* >= 2 groups busy, busy CPUs fit in one group */
	__u64 cross_wakeups;          /* wakeup placements onto another group */
	__u64 cross_migrations;       /* other moves (load balance) between groups */
	__u64 lost_updates;           /* state changes that lost 8 cmpxchg races */
	__u64 task_drops;             /* runtime table full */
	/* EAS: sched_overutilized_tp (fires on changes, only with EAS) */
	__u32 ou_state;
	__u32 ou_seen;                /* the tracepoint fired at least once */
	__u64 ou_since;
	__u64 ou_ns;
};

struct pack_task_key {
	__u32 pid;
	__u32 group;
};

struct pack_task_val {
	__u64 runtime_ns;
	char comm[16];
};

#endif
