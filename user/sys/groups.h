/* Topology groups for group-level idle: which CPUs form a core, cluster,
 * die, package, cpufreq domain, or a custom list (--topology). */
#ifndef IDLESCOPE_GROUPS_H
#define IDLESCOPE_GROUPS_H

#include <stddef.h>

#include "util/cpulist.h"
#include "sys/topology.h"

struct groups {
	char level[16]; /* "cluster", "package", "die", "core", "freq-domain", "custom" */
	int nr_groups;
	struct cpulist *cpus; /* [nr_groups] */
	int nr_cpus;          /* entries in group_of */
	int *group_of;        /* [nr_cpus], -1 = no group */
};

/* spec: NULL or "sysfs" (clusters when one groups several CPUs, else
 * packages), "cluster", "core", "die", "package", "freq-domain", or
 * "custom:GROUP,GROUP..." where a GROUP is a CPU or range, or several
 * joined by "+": "custom:0-3,4-7" is two groups, "custom:0+2,1+3" two
 * groups of non-adjacent CPUs. Returns 0, or -1 with a one-line reason. */
int groups_build(const struct topology *t, const char *spec, struct groups *g, char *err,
		 size_t errlen);
void groups_free(struct groups *g);

#endif
