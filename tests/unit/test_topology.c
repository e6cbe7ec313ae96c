/* Unit tests for user/sys/topology.c: CPUs, packages, dies, cores, clusters
 * and their fallbacks, against the fake tree of fake_sysfs.h. Every expected
 * value is worked out by hand in the comment next to it. */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
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

#include "sys/sysfs.h"
#include "sys/topology.h"
#include "fake_sysfs.h"

static void test_topology_read(void **state)
{
	struct topology t;
	char l[64];

	(void)state;
	assert_int_equal(topology_read(&t), 0);
	/* possible "0-3": last CPU 3, so 3 + 1 = 4 */
	assert_int_equal(t.nr_possible, 4);
	assert_int_equal(t.nr_cpus, 4);
	assert_int_equal(cpulist_count(&t.possible), 4);
	/* online "0-2": CPU 3 is offline */
	assert_int_equal(cpulist_count(&t.online), 3);
	assert_int_equal(t.cpus[0].online, 1);
	assert_int_equal(t.cpus[2].online, 1);
	assert_int_equal(t.cpus[3].online, 0);
	for (int c = 0; c < 4; c++)
		assert_int_equal(t.cpus[c].cpu, c);

	/* ids as written; 65535 means "not set" -> -1 */
	assert_int_equal(t.cpus[0].package, 0);
	assert_int_equal(t.cpus[3].package, 1);
	assert_int_equal(t.cpus[1].die, 0);
	assert_int_equal(t.cpus[2].die, -1);   /* die_id 65535 */
	assert_int_equal(t.cpus[2].core, 4);
	assert_int_equal(t.cpus[3].core, -1);  /* core_id 65535 */
	assert_string_equal(t.cpus[0].siblings, "0-1");
	assert_string_equal(t.cpus[2].siblings, "2");
	assert_string_equal(t.cpus[3].cluster_cpus, "2-3");
	/* cpu_capacity as written; cpu3 has no file: 0 */
	assert_int_equal(t.cpus[0].capacity, 1024);
	assert_int_equal(t.cpus[2].capacity, 446);
	assert_int_equal(t.cpus[3].capacity, 0);

	/* clusters from cluster_cpus_list, numbered by first appearance:
	 * cpu0 "0-1" -> 0, cpu1 "0-1" -> 0, cpu2 "2-3" -> 1, cpu3 "2-3" -> 1 */
	assert_int_equal(t.nr_clusters, 2);
	assert_int_equal(t.cpus[0].cluster, 0);
	assert_int_equal(t.cpus[1].cluster, 0);
	assert_int_equal(t.cpus[2].cluster, 1);
	assert_int_equal(t.cpus[3].cluster, 1);
	cpulist_format(&t.clusters[0], l, sizeof(l));
	assert_string_equal(l, "0-1");
	cpulist_format(&t.clusters[1], l, sizeof(l));
	assert_string_equal(l, "2-3");
	topology_free(&t);
	assert_null(t.cpus);
	assert_null(t.clusters);
}

static void test_topology_fallbacks(void **state)
{
	struct topology t;

	(void)state;
	/* no online file: every possible CPU counts as online */
	fs_rm(CPU "/online");
	/* cpu3: no core_cpus_list, thread_siblings_list instead */
	fs_rm(CPU "/cpu3/topology/core_cpus_list");
	fs_put("3\n", CPU "/cpu3/topology/thread_siblings_list");
	/* cpu1: no cluster list at all -> cluster -1 */
	fs_rm(CPU "/cpu1/topology/cluster_cpus_list");
	/* cpu0: die_id "-1" (strtoull wraps it) -> -1; no core_id -> -1 */
	fs_put("-1\n", CPU "/cpu0/topology/die_id");
	fs_rm(CPU "/cpu0/topology/core_id");

	assert_int_equal(topology_read(&t), 0);
	assert_int_equal(cpulist_count(&t.online), 4);
	assert_int_equal(t.cpus[3].online, 1);
	assert_string_equal(t.cpus[3].siblings, "3");
	assert_int_equal(t.cpus[1].cluster, -1);
	assert_int_equal(t.cpus[0].die, -1);
	assert_int_equal(t.cpus[0].core, -1);
	/* clusters: cpu0 "0-1" -> 0, cpu2/cpu3 "2-3" -> 1 */
	assert_int_equal(t.nr_clusters, 2);
	assert_int_equal(t.cpus[0].cluster, 0);
	assert_int_equal(t.cpus[2].cluster, 1);
	topology_free(&t);
}

static void test_topology_sparse_and_missing(void **state)
{
	struct topology t;

	(void)state;
	/* possible "0-1,5": nr_possible = 5 + 1 = 6; cpu4/cpu5 have no
	 * topology directory, so every id is -1 */
	fs_put("0-1,5\n", CPU "/possible");
	assert_int_equal(topology_read(&t), 0);
	assert_int_equal(t.nr_possible, 6);
	assert_int_equal(t.nr_cpus, 6);
	assert_int_equal(cpulist_count(&t.possible), 3);
	assert_int_equal(t.cpus[5].package, -1);
	assert_int_equal(t.cpus[5].core, -1);
	assert_int_equal(t.cpus[5].cluster, -1);
	assert_string_equal(t.cpus[5].siblings, "");
	assert_int_equal(t.cpus[5].online, 0); /* online is "0-2" */
	topology_free(&t);

	/* an empty possible list is an error */
	fs_put("\n", CPU "/possible");
	assert_int_equal(topology_read(&t), -1);
	topology_free(&t);
	/* so is a missing one */
	fs_rm(CPU "/possible");
	assert_int_equal(topology_read(&t), -1);
	topology_free(&t);
}

static void test_topology_long_cluster_list(void **state)
{
	struct topology t;
	char list[128];
	size_t n = 0;
	int count;

	(void)state;
	/* 32 even CPUs "0,2,4,...,62": 5 one-digit + 27 two-digit numbers and
	 * 31 commas = 5 + 54 + 31 = 90 characters */
	for (int c = 0; c < 64; c += 2)
		n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%d", c ? "," : "", c);
	assert_int_equal(n, 90);
	fs_put("0-63\n", CPU "/possible");
	fs_put("0-63\n", CPU "/online");
	fs_put(list, CPU "/cpu0/topology/cluster_cpus_list");
	assert_int_equal(topology_read(&t), 0);
	assert_int_equal(t.cpus[0].cluster, 0);
	count = cpulist_count(&t.clusters[0]);
	topology_free(&t);
	/* Was a bug: user/sys/topology.c topology_read() reads cluster_cpus_list into
	 * struct cpu_topo.cluster_cpus[64] (user/sys/topology.h), and sysfs_read_str
	 * truncates silently to 63 characters: "0,2,...,42,44", so the cluster
	 * holds 23 CPUs instead of 32 (same for siblings / core_cpus_list). */
	assert_int_equal(count, 32);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_topology_read, build_tree, destroy_tree),
		cmocka_unit_test_setup_teardown(test_topology_fallbacks, build_tree, destroy_tree),
		cmocka_unit_test_setup_teardown(test_topology_sparse_and_missing, build_tree,
						destroy_tree),
		cmocka_unit_test_setup_teardown(test_topology_long_cluster_list, build_tree,
						destroy_tree),
	};

	return cmocka_run_group_tests_name("topology", tests, NULL, NULL);
}
