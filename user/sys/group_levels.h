/* The levels --topology names, read from sysfs (core, cluster, die,
 * package), a cpufreq domain list or a custom list, assembled into the
 * group tree (group_tree.h). */
#ifndef IDLESCOPE_GROUP_LEVELS_H
#define IDLESCOPE_GROUP_LEVELS_H

#include <stddef.h>

#include "sys/group_tree.h"
#include "sys/topology.h"

/* spec: NULL or "sysfs" (every sysfs level: core, cluster, die, package,
 * without those whose groups are single CPUs or repeat another level's),
 * or LEVEL[,LEVEL...] of "cluster", "core", "die", "package", "freq-domain",
 * and last "custom:GROUP,GROUP..." where a GROUP is a CPU or range, or
 * several joined by "+": "custom:0-3,4-7" is two groups, "custom:0+2,1+3"
 * two groups of non-adjacent CPUs. Returns 0, or -1 with a one-line reason. */
int groups_build(const struct topology *t, const char *spec, struct groups *g, char *err,
		 size_t errlen);

#endif
