/* CPU topology from sysfs: package, die, cluster, core and SMT siblings.
 * Clusters come from cluster_cpus_list (cluster_id reads 65535 on many x86
 * boxes), numbered by their lowest CPU's order. */
#ifndef IDLESCOPE_TOPOLOGY_H
#define IDLESCOPE_TOPOLOGY_H

#include "util/cpulist.h"

struct cpu_topo {
	int cpu;
	int online;
	int package;  /* physical_package_id, -1 unknown */
	int die;      /* die_id, -1 unknown */
	int cluster;  /* index into topology.clusters, -1 unknown */
	int core;     /* core_id, -1 unknown */
	unsigned int capacity; /* cpu_capacity (1024 the largest CPU), 0 no such file */
	char *siblings;     /* core_cpus_list (thread_siblings_list), "" if absent */
	char *cluster_cpus; /* cluster_cpus_list, "" if absent */
};

struct topology {
	int nr_possible; /* CPUs 0..nr_possible-1 may exist */
	struct cpulist possible;
	struct cpulist online;
	int nr_cpus;         /* entries in cpus[] (possible CPUs) */
	struct cpu_topo *cpus;
	int nr_clusters;
	struct cpulist *clusters;
};

/* Returns 0, or -1 when /sys/devices/system/cpu/possible is unreadable. */
int topology_read(struct topology *t);
void topology_free(struct topology *t);

#endif
