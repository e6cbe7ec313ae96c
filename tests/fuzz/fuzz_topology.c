/* --topology SPEC (custom:0-3,4-7, named levels) against this machine's
 * topology: a built grouping has disjoint groups of existing CPUs and a
 * group_of table that agrees with them. */
#include "fuzz.h"

#include "sys/groups.h"
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
		for (int c = 0; c < g.nr_cpus; c++) {
			int in = 0;

			for (int i = 0; i < g.nr_groups; i++)
				if (cpulist_has(&g.cpus[i], c)) {
					in++;
					FUZZ_CHECK(g.group_of[c] == i, "'%s': cpu %d", s, c);
				}
			FUZZ_CHECK(in <= 1, "'%s': cpu %d in %d groups", s, c, in);
			FUZZ_CHECK(in || g.group_of[c] == -1, "'%s': cpu %d", s, c);
		}
		for (int i = 0; i < g.nr_groups; i++)
			for (int c = 0; c < IS_CPULIST_MAX; c++)
				FUZZ_CHECK(!cpulist_has(&g.cpus[i], c) || cpulist_has(&topo.possible, c),
					   "'%s': cpu %d does not exist", s, c);
		groups_free(&g);
	} else {
		FUZZ_CHECK(err[0], "'%s': error '%s'", s, err);
	}
	free(s);
	return 0;
}
