/* Unit tests for the topology tree (user/sys/group_levels.c, group_tree.c):
 * levels from a fake sysfs, which of them drop out, sorting, nesting,
 * parents and children, the packing level, and the errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "sys/group_levels.h"
#include "sys/topology.h"

static char root[64];

static void put(const char *val, const char *fmt, int cpu)
{
	char path[256], rel[128];
	FILE *f;

	snprintf(rel, sizeof(rel), fmt, cpu);
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	assert_non_null(f = fopen(path, "w"));
	fputs(val, f);
	fclose(f);
}

#define CPU "devices/system/cpu"

/* 8 CPUs: 4 SMT cores, 2 clusters of 2 cores, 1 die = 1 package. */
static int smt_box(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/idlescope-groups-XXXXXX");
	if (!mkdtemp(root))
		return -1;
	setenv("IDLESCOPE_SYSFS", root, 1);
	put("0-7\n", CPU "/possible", 0);
	put("0-7\n", CPU "/online", 0);
	put("0-3\n", CPU "/cpufreq/policy0/related_cpus", 0);
	put("4-7\n", CPU "/cpufreq/policy4/related_cpus", 0);
	for (int c = 0; c < 8; c++) {
		char core[16], cluster[16];

		snprintf(core, sizeof(core), "%d-%d\n", c & ~1, (c & ~1) + 1);
		snprintf(cluster, sizeof(cluster), "%d-%d\n", c & ~3, (c & ~3) + 3);
		put("0\n", CPU "/cpu%d/topology/physical_package_id", c);
		put("0\n", CPU "/cpu%d/topology/die_id", c);
		put("0\n", CPU "/cpu%d/topology/core_id", c);
		put(core, CPU "/cpu%d/topology/core_cpus_list", c);
		put(cluster, CPU "/cpu%d/topology/cluster_cpus_list", c);
		put("0-7\n", CPU "/cpu%d/topology/die_cpus_list", c);
		put("0-7\n", CPU "/cpu%d/topology/package_cpus_list", c);
	}
	return 0;
}

static int rm_box(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) ? -1 : 0;
}

static void build(const char *spec, struct groups *g, int want, char *err)
{
	struct topology t;

	assert_int_equal(topology_read(&t), 0);
	err[0] = '\0';
	assert_int_equal(groups_build(&t, spec, g, err, 256), want);
	topology_free(&t);
}

/* Default: core, cluster and package (the die equals the package). */
static void test_sysfs_levels(void **state)
{
	struct groups g;
	char err[256], name[32];

	(void)state;
	build(NULL, &g, 0, err);
	assert_string_equal(g.level, "core,cluster,package");
	assert_int_equal(g.nr_groups, 4 + 2 + 1);
	assert_int_equal(g.pack_level, 1); /* clusters */
	groups_name(&g, g.group_of[5], name, sizeof(name));
	assert_string_equal(name, "core2");
	groups_name(&g, g.node[g.group_of[5]].parent, name, sizeof(name));
	assert_string_equal(name, "cluster1");
	groups_name(&g, g.pack_of[5], name, sizeof(name));
	assert_string_equal(name, "cluster1");
	assert_int_equal(g.node[g.group_of[5]].nr_children, 2);
	assert_int_equal(g.node[g.node[g.group_of[5]].parent].nr_children, 2);
	assert_int_equal(g.node[g.nr_groups - 1].nr_children, 2);
	assert_int_equal(g.node[g.nr_groups - 1].parent, -1);
	groups_free(&g);
	/* "sysfs" is the default spelled out */
	build("sysfs", &g, 0, err);
	assert_string_equal(g.level, "core,cluster,package");
	groups_free(&g);
}

/* Explicit levels stay as given (no drop), sorted smallest first; custom
 * takes the rest of the spec, commas and all. */
static void test_explicit_levels(void **state)
{
	struct groups g;
	char err[256], name[32];

	(void)state;
	build("package,core", &g, 0, err);
	assert_string_equal(g.level, "core,package");
	assert_int_equal(g.pack_level, 1);
	groups_free(&g);
	build("die,package", &g, 0, err);
	assert_string_equal(g.level, "die,package");
	assert_int_equal(g.node[0].nr_children, 8);
	assert_int_equal(g.node[1].nr_children, 1); /* the die */
	groups_free(&g);
	build("core,custom:0-3,4-7", &g, 0, err);
	assert_string_equal(g.level, "core,custom");
	groups_name(&g, g.node[g.group_of[6]].parent, name, sizeof(name));
	assert_string_equal(name, "custom1");
	assert_int_equal(g.pack_level, 1);
	groups_free(&g);
	/* cpufreq domains are a level like the others */
	build("freq-domain,core", &g, 0, err);
	assert_string_equal(g.level, "core,freq-domain");
	assert_int_equal(g.pack_level, 1);
	groups_free(&g);
}

static void test_errors(void **state)
{
	struct groups g;
	char err[256];

	(void)state;
	build("core,custom:0-2,3-7", &g, -1, err);
	assert_non_null(strstr(err, "do not nest: core1 is split by custom0"));
	build("core,core", &g, -1, err);
	assert_non_null(strstr(err, "given twice"));
	build("socket", &g, -1, err);
	assert_non_null(strstr(err, "unknown topology 'socket'"));
	build("core,cluster,die,package,freq-domain,custom:0-7", &g, -1, err);
	assert_non_null(strstr(err, "at most 5"));
}

/* groups_assemble: a smaller level that does not nest drops out when
 * levels may drop (sysfs), single-CPU levels too, unless none is left. */
static void test_assemble_drop(void **state)
{
	struct group_level lv[2];
	struct groups g;
	char err[256];

	(void)state;
	memset(lv, 0, sizeof(lv));
	snprintf(lv[0].name, sizeof(lv[0].name), "cluster");
	snprintf(lv[1].name, sizeof(lv[1].name), "package");
	lv[0].cpus = calloc(2, sizeof(*lv[0].cpus));
	lv[1].cpus = calloc(2, sizeof(*lv[1].cpus));
	lv[0].nr = lv[1].nr = 2;
	cpulist_parse("0-1", &lv[0].cpus[0], err, sizeof(err));
	cpulist_parse("2-3", &lv[0].cpus[1], err, sizeof(err));
	cpulist_parse("0-2", &lv[1].cpus[0], err, sizeof(err));
	cpulist_parse("3", &lv[1].cpus[1], err, sizeof(err));
	assert_int_equal(groups_assemble(lv, 2, true, 4, &g, err, sizeof(err)), 0);
	assert_string_equal(g.level, "package");
	assert_int_equal(g.group_of[3], 1);
	groups_free(&g);
	/* an x86 cluster that is its core: the core stays, and the package */
	{
		struct group_level tri[3];
		static const char *const nm[] = { "cluster", "package", "core" };
		static const char *const gl[3][2] = { { "0-1", "2-3" }, { "0-3", NULL }, { "0-1", "2-3" } };

		memset(tri, 0, sizeof(tri));
		for (int l = 0; l < 3; l++) {
			snprintf(tri[l].name, sizeof(tri[l].name), "%s", nm[l]);
			tri[l].cpus = calloc(2, sizeof(*tri[l].cpus));
			for (int i = 0; i < 2 && gl[l][i]; i++)
				cpulist_parse(gl[l][i], &tri[l].cpus[tri[l].nr++], err, sizeof(err));
		}
		assert_int_equal(groups_assemble(tri, 3, true, 4, &g, err, sizeof(err)), 0);
		assert_string_equal(g.level, "core,package");
		groups_free(&g);
	}
	/* one CPU: the single level stays */
	lv[0].cpus = calloc(1, sizeof(*lv[0].cpus));
	lv[0].nr = 1;
	cpulist_parse("0", &lv[0].cpus[0], err, sizeof(err));
	assert_int_equal(groups_assemble(lv, 1, true, 1, &g, err, sizeof(err)), 0);
	assert_string_equal(g.level, "cluster");
	assert_int_equal(g.node[0].nr_children, 1);
	groups_free(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sysfs_levels),
		cmocka_unit_test(test_explicit_levels),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_assemble_drop),
	};

	return cmocka_run_group_tests_name("group_tree", tests, smt_box, rm_box);
}
