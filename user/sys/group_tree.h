/* Topology groups for group-level idle: a tree of nodes, smallest level
 * first (core -> cluster -> die -> package), assembled from levels
 * (group_levels.h builds them from sysfs or --topology; replay profiles
 * give them). */
#ifndef IDLESCOPE_GROUP_TREE_H
#define IDLESCOPE_GROUP_TREE_H

#include <stdbool.h>
#include <stddef.h>

#include "idle_stats.h" /* IS_MAX_LEVELS */
#include "util/cpulist.h"

struct group_node {
	int level;       /* index into groups.levels */
	int index;       /* within its level: the N of "cluster<N>" */
	int parent;      /* group index, -1 = top */
	int nr_children; /* CPUs whose smallest group it is, plus child groups */
};

struct groups {
	char level[96]; /* the levels, smallest first, joined: "core,package" */
	int nr_levels;
	char levels[IS_MAX_LEVELS][16]; /* "core", "cluster", "die", "package", "freq-domain", "custom" */
	int pack_level;           /* the level --packing counts busy groups of */
	int nr_groups;
	struct cpulist *cpus;     /* [nr_groups], level by level */
	struct group_node *node;  /* [nr_groups] */
	int nr_cpus;              /* entries in group_of and pack_of */
	int *group_of;            /* [nr_cpus]: the CPU's smallest group, -1 = none */
	int *pack_of;             /* [nr_cpus]: its group at pack_level, -1 = none */
};

/* One level's groups, as given: the input of groups_assemble. */
struct group_level {
	char name[16];
	int nr;
	struct cpulist *cpus;
};

/* The tree over nr levels (in any order; sorted smallest groups first).
 * drop: leave out levels of single CPUs and, of two equal levels, the
 * less known name (die after package, cluster after core)
 * (unless that leaves none). Every group must sit inside one group of each
 * larger level that covers any of its CPUs. Takes the levels' cpus arrays
 * (freed here). nr_cpus: CPUs 0..nr_cpus-1. */
int groups_assemble(struct group_level *lv, int nr, bool drop, int nr_cpus, struct groups *g,
		    char *err, size_t errlen);

/* "cluster3": the group's level name and index in it. */
void groups_name(const struct groups *g, int i, char *buf, size_t len);
void groups_free(struct groups *g);

#endif
