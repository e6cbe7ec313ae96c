/* Map layouts for topology-group idle (bpf/group.bpf.h): time when every
 * CPU of a group (core, cluster, die, package, custom) is idle, for a tree
 * of nodes of several levels. __u* only. */
#ifndef IDLESCOPE_GROUP_STATS_H
#define IDLESCOPE_GROUP_STATS_H

#include "hist.h"
#include "idle_stats.h" /* IS_MAX_STATES: the group state is a CPU state */

#define IS_MAX_GROUPS 4096 /* nodes of every level together */
#define IS_NO_GROUP 0xffffffffu

/* A topology node's idle word, changed with one fetch-and-add per child
 * event: the low 16 bits count the idle children (read as signed: a child's
 * leave can land just before its join), the 48 above hold `fields` counters
 * of `width` bits, one per child state (states >= fields - 1 share the last
 * one), so the node's state when all children are idle, the shallowest of
 * theirs, is the lowest non-empty field: no loop over members, no cap. */
#define GROUP_COUNT_BITS 16
#define GROUP_FIELD_BITS 48
#define GROUP_LAZY_MAX 8

/* Shared by a node's children. Loader-written but for word and idle_since:
 * the child whose join makes count == nr_children starts the all-idle
 * interval (and joins the parent), the next change of the word ends it. */
struct group_slot {
	/* Line 0: written by every member's idle event (one fetch-and-add). */
	__u64 word;
	__u64 idle_since;  /* 0 = not all idle (or the start was lost in a race) */
	/* The latest entry time of a joining child, stored before its
	 * fetch-and-add: when the word is full, the start of the all-idle
	 * interval (the latest of its CPUs' entries), even where a member
	 * left before the completing child stored idle_since. */
	__u64 join_ns;
	__u32 state;       /* the node state of the current all-idle interval */
	__u32 pad;
	/* lazy: the start of the last all-idle interval an exit claimed */
	__u64 claimed_ns;
	/* Line 1: the loader's, read-only: read before the fetch-and-add
	 * without bringing line 0 in shared first (one transfer, not two) */
	__u32 nr_children __attribute__((aligned(64))); /* the count that means all idle */
	__u32 width;       /* bits per state field */
	__u32 fields;      /* state fields in the word */
	__u32 parent1;     /* 1 + the parent node, 0 = top */
	__u32 level;       /* index of the node's level, smallest first */
	/* Lazy (a top node of at most GROUP_LAZY_MAX CPUs, without packing):
	 * no word; each member's exit reads the others' slots, and the one
	 * that ends an all-idle interval counts it (bpf/group.bpf.h). The
	 * reader derives word, idle_since and state from the CPU slots. */
	__u32 lazy;
	__u16 member[GROUP_LAZY_MAX];
} __attribute__((aligned(64)));

/* Every child idle: the word's count at nr_children. */
static inline int group_slot_all_idle(const struct group_slot *gs)
{
	return (__s16)(gs->word & 0xffff) == (__s32)gs->nr_children;
}

struct group_stats {
	__u64 periods;
	__u64 time_ns;
	__u64 min_ns;
	__u64 max_ns;
	__u64 races;       /* an end that found no start (ended as it began) */
	__u64 folded;      /* periods whose state was in the shared last field */
	__u64 state_periods[IS_MAX_STATES];
	__u64 state_time_ns[IS_MAX_STATES];
	__u64 hist[IS_HIST_BUCKETS];
	/* the part of time_ns and state_time_ns counted by ends after the
	 * live reader's cut cut_epoch (bpf/idle.bpf.h, session/raw_cut.c) */
	__u64 cut_epoch;
	__u64 cut_time_ns;
	__u64 cut_state_time_ns[IS_MAX_STATES];
} __attribute__((aligned(64)));

#endif
