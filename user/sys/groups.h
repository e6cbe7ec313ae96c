/* Topology groups for group-level idle: a tree of nodes, smallest level
 * first (core -> cluster -> die -> package), from sysfs, a cpufreq domain
 * list, a custom list (--topology), or given levels (replay profiles). */
#ifndef IDLESCOPE_GROUPS_H
#define IDLESCOPE_GROUPS_H

#include <stddef.h>

#include "idle_stats.h" /* IS_MAX_LEVELS */
#include "util/cpulist.h"
#include "sys/topology.h"

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

/* spec: NULL or "sysfs" (every sysfs level: core, cluster, die, package,
 * without those whose groups are single CPUs or repeat another level's),
 * or LEVEL[,LEVEL...] of "cluster", "core", "die", "package", "freq-domain",
 * and last "custom:GROUP,GROUP..." where a GROUP is a CPU or range, or
 * several joined by "+": "custom:0-3,4-7" is two groups, "custom:0+2,1+3"
 * two groups of non-adjacent CPUs. Returns 0, or -1 with a one-line reason. */
int groups_build(const struct topology *t, const char *spec, struct groups *g, char *err,
		 size_t errlen);

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
