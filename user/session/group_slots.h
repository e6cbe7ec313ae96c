/* A topology node's slot (all idle, since when, in which state) as its
 * members' CPU slots say: for a live read at a cut (raw_cut.c), and for
 * the lazy nodes, whose word BPF does not keep (bpf/group.bpf.h). */
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

#endif
