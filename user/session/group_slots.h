/* A topology node's slot (all idle, since when, in which state) as its
 * members' CPU slots say: for a live read at a cut (raw_cut.c), and for
 * the lazy nodes, whose word BPF does not keep (bpf/group.bpf.h), with
 * their statistics from the members' copies. */
#ifndef IDLESCOPE_GROUP_SLOTS_H
#define IDLESCOPE_GROUP_SLOTS_H

#include <stdbool.h>

#include "group_stats.h"

/* Sets word, idle_since and state of every node (lazy_only: of the lazy
 * ones) as the word would have them: all idle when every member CPU is
 * in an idle period, since the latest of their entries, in the shallowest
 * of their states (the word's last field holding the deeper ones);
 * children come before their parents. -1 without memory (slots as read). */
int group_slots_from_cpus(struct group_slot *gslots, int nr_groups,
			  const struct idle_cpu_slot *cpus, int nr_cpus, bool lazy_only);

/* A lazy node's statistics: the sum of its member CPUs' copies (BPF's
 * group_stats_cpu, indexed by CPU; members beyond nr_cpus left out).
 * Counts, times, states and buckets add; min and max are the copies'
 * extremes; the cut part is the copies' with the latest cut (a copy with
 * an older one counted no end after the latest). */
void group_stats_from_cpus(struct group_stats *dst, const struct group_slot *gs,
			   const struct group_stats *copies, int nr_cpus);

#endif
