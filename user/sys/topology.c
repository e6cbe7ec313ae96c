/* Reads possible/online CPUs, each CPU's topology directory and its
 * cpu_capacity in sysfs. */
#include "sys/topology.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sys/sysfs.h"

#define CPU_DIR "devices/system/cpu"

static int read_id(int cpu, const char *name)
{
	uint64_t v;

	if (sysfs_read_u64(&v, CPU_DIR "/cpu%d/topology/%s", cpu, name))
		return -1;
	return v >= 65535 ? -1 : (int)v; /* 65535 / -1: "not set" */
}

static int read_list(const char *file, struct cpulist *out)
{
	char buf[4096], err[128];

	if (sysfs_read_str(buf, sizeof(buf), CPU_DIR "/%s", file))
		return -1;
	return cpulist_parse(buf, out, err, sizeof(err));
}

static int add_cluster(struct topology *t, const struct cpulist *l)
{
	struct cpulist *n;

	for (int i = 0; i < t->nr_clusters; i++)
		if (cpulist_equal(&t->clusters[i], l))
			return i;
	n = realloc(t->clusters, sizeof(*n) * (size_t)(t->nr_clusters + 1));
	if (!n)
		return -1;
	t->clusters = n;
	t->clusters[t->nr_clusters] = *l;
	return t->nr_clusters++;
}

int topology_read(struct topology *t)
{
	int last = -1;

	memset(t, 0, sizeof(*t));
	if (read_list("possible", &t->possible))
		return -1;
	if (read_list("online", &t->online))
		t->online = t->possible;
	for (int c = 0; c < IS_CPULIST_MAX; c++)
		if (cpulist_has(&t->possible, c))
			last = c;
	if (last < 0)
		return -1;
	t->nr_possible = last + 1;
	t->nr_cpus = t->nr_possible;
	t->cpus = calloc((size_t)t->nr_cpus, sizeof(*t->cpus));
	if (!t->cpus)
		return -1;
	for (int c = 0; c < t->nr_cpus; c++) {
		struct cpu_topo *ct = &t->cpus[c];
		char err[128], buf[4096];
		struct cpulist cl;

		ct->cpu = c;
		ct->online = cpulist_has(&t->online, c);
		ct->package = read_id(c, "physical_package_id");
		ct->die = read_id(c, "die_id");
		ct->core = read_id(c, "core_id");
		ct->cluster = -1;
		{
			uint64_t cap;

			if (!sysfs_read_u64(&cap, CPU_DIR "/cpu%d/cpu_capacity", c) && cap <= UINT32_MAX)
				ct->capacity = (unsigned int)cap;
		}
		/* a list can fill a page ("0,2,4,..."): read it whole */
		if (sysfs_read_str(buf, sizeof(buf), CPU_DIR "/cpu%d/topology/core_cpus_list", c) &&
		    sysfs_read_str(buf, sizeof(buf), CPU_DIR "/cpu%d/topology/thread_siblings_list", c))
			buf[0] = '\0';
		ct->siblings = strdup(buf);
		if (sysfs_read_str(buf, sizeof(buf), CPU_DIR "/cpu%d/topology/cluster_cpus_list", c))
			buf[0] = '\0';
		ct->cluster_cpus = strdup(buf);
		if (!ct->siblings || !ct->cluster_cpus)
			return -1;
		if (buf[0] && !cpulist_parse(buf, &cl, err, sizeof(err)) && cpulist_count(&cl) > 0)
			ct->cluster = add_cluster(t, &cl);
	}
	return 0;
}

void topology_free(struct topology *t)
{
	for (int c = 0; t->cpus && c < t->nr_cpus; c++) {
		free(t->cpus[c].siblings);
		free(t->cpus[c].cluster_cpus);
	}
	free(t->cpus);
	free(t->clusters);
	memset(t, 0, sizeof(*t));
}
