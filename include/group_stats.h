/* Map layouts for topology-group idle (bpf/group.bpf.h): time when every
 * CPU of a group (core, cluster, die, package, custom) is idle. __u* only. */
#ifndef IDLESCOPE_GROUP_STATS_H
#define IDLESCOPE_GROUP_STATS_H

#include "hist.h"
#include "idle_stats.h" /* IS_MAX_STATES: the group state is a CPU state */

#define IS_MAX_GROUPS 1024
#define IS_GROUP_MAX_CPUS 64 /* members looked at for the group state */
#define IS_NO_GROUP 0xffffffffu

/* Written by the loader: which group a CPU belongs to (group_of, per CPU)
 * and each group's members (group_members, per group). */
struct group_members {
	__u32 nr_cpus;
	__u32 cpus[IS_GROUP_MAX_CPUS];
};

/* Shared by the group's CPUs: idle_count is changed with fetch-and-add, so
 * the CPU that completes the set starts the group-idle interval and the
 * first to leave ends it. */
struct group_slot {
	__u32 idle_count;
	__u32 state;      /* the group state of the current all-idle interval */
	__u64 idle_since; /* 0 = not all idle (or the start was lost in a race) */
	__u32 nr_cpus;    /* members (loader-written): the count that means all idle */
	__u32 pad;
} __attribute__((aligned(64)));

struct group_stats {
	__u64 periods;
	__u64 time_ns;
	__u64 min_ns;
	__u64 max_ns;
	__u64 races;       /* an end that found no start (ended as it began) */
	__u64 state_periods[IS_MAX_STATES];
	__u64 state_time_ns[IS_MAX_STATES];
	__u64 hist[IS_HIST_BUCKETS];
} __attribute__((aligned(64)));

#endif
