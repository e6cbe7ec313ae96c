/* --topology SPEC (custom:0-3,4-7, named levels, several joined by ',')
 * against this machine's topology: a built tree has, per level, disjoint
 * groups of existing CPUs; each CPU's smallest and packing-level group; each
 * group inside its parent, of a larger level; children counted right. */
#include "fuzz.h"

#include "sys/group_levels.h"
#include "sys/topology.h"

static struct topology topo;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (topology_read(&topo))
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size), err[256] = "";
	struct groups g;

	if (!groups_build(&topo, s, &g, err, sizeof(err))) {
		FUZZ_CHECK(g.nr_groups > 0 && g.nr_cpus == topo.nr_possible, "'%s'", s);
		FUZZ_CHECK(g.nr_levels > 0 && g.nr_levels <= IS_MAX_LEVELS, "'%s'", s);
		FUZZ_CHECK(g.pack_level >= 0 && g.pack_level < g.nr_levels, "'%s'", s);
		for (int c = 0; c < g.nr_cpus; c++) {
			int in[IS_MAX_LEVELS] = { 0 }, smallest = -1, pack = -1;

			for (int i = 0; i < g.nr_groups; i++)
				if (cpulist_has(&g.cpus[i], c)) {
					in[g.node[i].level]++;
					if (smallest < 0 || g.node[i].level < g.node[smallest].level)
						smallest = i;
					if (g.node[i].level == g.pack_level)
						pack = i;
				}
			for (int l = 0; l < g.nr_levels; l++)
				FUZZ_CHECK(in[l] <= 1, "'%s': cpu %d in %d groups of level %d", s, c, in[l], l);
			FUZZ_CHECK(g.group_of[c] == smallest, "'%s': cpu %d: smallest group", s, c);
			FUZZ_CHECK(g.pack_of[c] == pack, "'%s': cpu %d: packing group", s, c);
		}
		for (int i = 0; i < g.nr_groups; i++) {
			int children = 0, p = g.node[i].parent;

			for (int c = 0; c < g.nr_cpus; c++)
				children += g.group_of[c] == i;
			for (int j = 0; j < g.nr_groups; j++)
				children += g.node[j].parent == i;
			FUZZ_CHECK(g.node[i].nr_children == children, "'%s': group %d children", s, i);
			/* a parent is of a larger level and holds every CPU of the group */
			if (p >= 0) {
				FUZZ_CHECK(g.node[p].level > g.node[i].level, "'%s': group %d parent", s, i);
				for (int c = 0; c < IS_CPULIST_MAX; c++)
					FUZZ_CHECK(!cpulist_has(&g.cpus[i], c) || cpulist_has(&g.cpus[p], c),
						   "'%s': group %d not inside its parent", s, i);
			}
			for (int c = 0; c < IS_CPULIST_MAX; c++)
				FUZZ_CHECK(!cpulist_has(&g.cpus[i], c) || cpulist_has(&topo.possible, c),
					   "'%s': cpu %d does not exist", s, c);
		}
		groups_free(&g);
	} else {
		FUZZ_CHECK(err[0], "'%s': error '%s'", s, err);
	}
	free(s);
	return 0;
}
