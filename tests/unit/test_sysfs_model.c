/* Unit tests for the sysfs readers (user/sys/sysfs.c, topology.c,
 * cpuidle_sysfs.c) against a fake tree under a mkdtemp() directory named by
 * IDLESCOPE_SYSFS, then for the summary model (user/model/model.c) and the kernel
 * cross-check (user/model/kernel_check.c) on inputs built by hand. Every expected
 * value is worked out by hand in the comment next to it. */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "sys/cpuidle_sysfs.h"
#include "model/kernel_check.h"
#include "model/model.h"
#include "sys/group_levels.h"
#include "sys/sysfs.h"
#include "sys/topology.h"

#define US 1000ULL
#define MS 1000000ULL
#define CPU "devices/system/cpu"

/* ------------------------------------------------------------------ */
/* Fake sysfs tree                                                     */

static char fake_root[256];

/* Writes content to root-relative path rel (printf-style), creating the
 * directories on the way. Truncates an existing file in place, so open
 * descriptors see the new content. */
static void fs_put(const char *content, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fs_put(const char *content, const char *fmt, ...)
{
	char rel[256], path[512];
	va_list ap;
	FILE *f;

	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	snprintf(path, sizeof(path), "%s/%s", fake_root, rel);
	for (char *p = path + strlen(fake_root) + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			fail_msg("mkdir %s: %s", path, strerror(errno));
		*p = '/';
	}
	f = fopen(path, "w");
	if (!f)
		fail_msg("fopen %s: %s", path, strerror(errno));
	fputs(content, f);
	fclose(f);
}

static void fs_rm(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fs_rm(const char *fmt, ...)
{
	char rel[256], path[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	snprintf(path, sizeof(path), "%s/%s", fake_root, rel);
	if (unlink(path))
		fail_msg("unlink %s: %s", path, strerror(errno));
}

/* The idle-state table every fake CPU has (x86-like):
 *   state  name  latency(us)  residency(us)
 *   0      POLL  0            0
 *   1      C1    2            2
 *   2      C1E   10           20
 *   3      C6    133          600
 * cpu1 has C1E disabled, cpu2 has C1 disabled. */
static const struct {
	const char *name, *desc, *lat, *res;
} fake_states[4] = {
	{ "POLL", "CPUIDLE CORE POLL IDLE", "0", "0" },
	{ "C1", "MWAIT 0x00", "2", "2" },
	{ "C1E", "MWAIT 0x01", "10", "20" },
	{ "C6", "MWAIT 0x20", "133", "600" },
};

/* Counters of cpu0 (other CPUs get the same files):
 *   state  usage  time(us)  above  below  rejected */
static const char *const fake_counters[4][5] = {
	{ "5", "12", "0", "3", "0" },
	{ "100", "2500", "4", "7", "1" },
	{ "40", "900", "2", "1", "0" },
	{ "8", "48000", "0", "0", "0" },
};

static int build_tree(void **state)
{
	static const char *const cnt_names[5] = { "usage", "time", "above", "below", "rejected" };
	/* pkg, die, core, cluster_cpus_list, core_cpus_list per CPU */
	static const char *const topo[4][5] = {
		{ "0\n", "0\n", "0\n", "0-1\n", "0-1\n" },
		{ "0\n", "0\n", "0\n", "0-1\n", "0-1\n" },
		{ "0\n", "65535\n", "4\n", "2-3\n", "2\n" },
		{ "1\n", "0\n", "65535\n", "2-3\n", "3\n" },
	};
	static const char *const qos[3] = { "0\n", "n/a\n", "50\n" }; /* cpu3: no file */

	(void)state;
	snprintf(fake_root, sizeof(fake_root), "/tmp/idlescope-unit-XXXXXX");
	if (!mkdtemp(fake_root))
		return -1;
	setenv("IDLESCOPE_SYSFS", fake_root, 1);

	fs_put("0-3\n", CPU "/possible");
	fs_put("0-2\n", CPU "/online");
	fs_put("intel_idle\n", CPU "/cpuidle/current_driver");
	fs_put("menu\n", CPU "/cpuidle/current_governor");
	for (int c = 0; c < 4; c++) {
		fs_put(topo[c][0], CPU "/cpu%d/topology/physical_package_id", c);
		fs_put(topo[c][1], CPU "/cpu%d/topology/die_id", c);
		fs_put(topo[c][2], CPU "/cpu%d/topology/core_id", c);
		fs_put(topo[c][3], CPU "/cpu%d/topology/cluster_cpus_list", c);
		fs_put(topo[c][4], CPU "/cpu%d/topology/core_cpus_list", c);
		if (c < 3)
			fs_put(qos[c], CPU "/cpu%d/power/pm_qos_resume_latency_us", c);
		for (int i = 0; i < 4; i++) {
			char v[32];

			snprintf(v, sizeof(v), "%s\n", fake_states[i].name);
			fs_put(v, CPU "/cpu%d/cpuidle/state%d/name", c, i);
			snprintf(v, sizeof(v), "%s\n", fake_states[i].desc);
			fs_put(v, CPU "/cpu%d/cpuidle/state%d/desc", c, i);
			snprintf(v, sizeof(v), "%s\n", fake_states[i].lat);
			fs_put(v, CPU "/cpu%d/cpuidle/state%d/latency", c, i);
			snprintf(v, sizeof(v), "%s\n", fake_states[i].res);
			fs_put(v, CPU "/cpu%d/cpuidle/state%d/residency", c, i);
			fs_put((c == 1 && i == 2) || (c == 2 && i == 1) ? "1\n" : "0\n",
			       CPU "/cpu%d/cpuidle/state%d/disable", c, i);
			for (int k = 0; k < 5; k++) {
				snprintf(v, sizeof(v), "%s\n", fake_counters[i][k]);
				fs_put(v, CPU "/cpu%d/cpuidle/state%d/%s", c, i, cnt_names[k]);
			}
		}
	}
	return 0;
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int destroy_tree(void **state)
{
	(void)state;
	nftw(fake_root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	unsetenv("IDLESCOPE_SYSFS");
	return 0;
}

/* ------------------------------------------------------------------ */
/* sysfs.c                                                             */

static void test_sysfs_root_and_readers(void **state)
{
	char buf[64];
	uint64_t v = 0;

	(void)state;
	assert_string_equal(sysfs_root(), fake_root);
	/* the trailing newline is cut */
	assert_int_equal(sysfs_read_str(buf, sizeof(buf), CPU "/possible"), 0);
	assert_string_equal(buf, "0-3");
	assert_int_equal(sysfs_read_u64(&v, CPU "/cpu%d/cpuidle/state%d/time", 0, 3), 0);
	assert_int_equal(v, 48000);
	/* "n/a" is not a number */
	assert_int_equal(sysfs_read_u64(&v, CPU "/cpu1/power/pm_qos_resume_latency_us"), -EINVAL);
	assert_int_equal(sysfs_read_u64(&v, CPU "/nope"), -ENOENT);
	assert_int_equal(sysfs_read_str(buf, sizeof(buf), CPU "/nope"), -ENOENT);
	assert_true(sysfs_exists(CPU "/cpu%d/topology", 2));
	assert_false(sysfs_exists(CPU "/cpu%d/topology", 9));
	/* a trailing blank goes too ("0 \n" -> "0") */
	fs_put("7 \n", "x/u64");
	assert_int_equal(sysfs_read_u64(&v, "x/u64"), 0);
	assert_int_equal(v, 7);
	/* write then read back */
	assert_int_equal(sysfs_write_str("1", CPU "/cpu0/cpuidle/state3/disable"), 0);
	assert_int_equal(sysfs_read_u64(&v, CPU "/cpu0/cpuidle/state3/disable"), 0);
	assert_int_equal(v, 1);
	assert_int_equal(sysfs_write_str("1", "no/such/dir/file"), -ENOENT);
	/* an empty IDLESCOPE_SYSFS means the real /sys */
	setenv("IDLESCOPE_SYSFS", "", 1);
	assert_string_equal(sysfs_root(), "/sys");
	setenv("IDLESCOPE_SYSFS", fake_root, 1);
}

static void test_sysfs_long_root(void **state)
{
	char root[700];
	pid_t pid;
	int status;

	(void)state;
	/* Was a bug: user/sys/sysfs.c build_path(): n = snprintf(path, 512, "%s/", root)
	 * is the untruncated length; with a 700-character IDLESCOPE_SYSFS,
	 * n = 700 > 512, so vsnprintf(path + n, len - n, ...) writes past the
	 * stack buffer with a wrapped size (SIGSEGV here). Expected: an error
	 * return such as -ENAMETOOLONG. Run in a child so a crash is contained. */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char buf[64];

		/* cmocka's handlers would resume the test run in the child */
		signal(SIGSEGV, SIG_DFL);
		signal(SIGBUS, SIG_DFL);
		signal(SIGABRT, SIG_DFL);
		signal(SIGILL, SIG_DFL);

		memset(root, 'a', sizeof(root));
		root[0] = '/';
		root[sizeof(root) - 1] = '\0';
		setenv("IDLESCOPE_SYSFS", root, 1);
		_exit(sysfs_read_str(buf, sizeof(buf), CPU "/possible") < 0 ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!WIFEXITED(status))
		fail_msg("sysfs_read_str with a 700-char root killed by signal %d",
			 WIFSIGNALED(status) ? WTERMSIG(status) : -1);
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* ------------------------------------------------------------------ */
/* topology.c                                                          */

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

/* ------------------------------------------------------------------ */
/* cpuidle_sysfs.c                                                     */

static void test_cpuidle_read_system(void **state)
{
	struct cpuidle_system sys;

	(void)state;
	cpuidle_read_system(&sys);
	assert_string_equal(sys.driver, "intel_idle");
	assert_string_equal(sys.governor, "menu");
	assert_int_equal(sys.guest_halt_poll_ns, 0); /* no haltpoll module file */
	/* 1e9 / CONFIG_HZ of the running kernel, 250 when unknown */
	assert_true(sys.tick_ns == 10000000 || sys.tick_ns == 4000000 || sys.tick_ns == 3333333 ||
		    sys.tick_ns == 1000000);

	/* no current_driver -> "none"; current_governor_ro fallback */
	fs_rm(CPU "/cpuidle/current_driver");
	fs_rm(CPU "/cpuidle/current_governor");
	fs_put("teo\n", CPU "/cpuidle/current_governor_ro");
	fs_put("200000\n", "module/haltpoll/parameters/guest_halt_poll_ns");
	cpuidle_read_system(&sys);
	assert_string_equal(sys.driver, "none");
	assert_string_equal(sys.governor, "teo");
	assert_int_equal(sys.guest_halt_poll_ns, 200000);

	/* an empty current_driver is "none" too; no governor file -> "" */
	fs_put("\n", CPU "/cpuidle/current_driver");
	fs_rm(CPU "/cpuidle/current_governor_ro");
	cpuidle_read_system(&sys);
	assert_string_equal(sys.driver, "none");
	assert_string_equal(sys.governor, "");
}

/* cpuidle_read_system() with CONFIG_HZ pinned to 250: TICK_NSEC = 1e9 / 250
 * = 4000000 ns, so CPUIDLE_POLL_MAX = 4000000 / 16 = 250000 ns. */
static void read_system_hz250(struct cpuidle_system *sys)
{
	cpuidle_read_system(sys);
	sys->tick_ns = 4000000;
}

static void test_cpuidle_read_cpu0(void **state)
{
	struct cpuidle_system sys;
	struct cpuidle_cpu_info info;

	(void)state;
	read_system_hz250(&sys);
	cpuidle_read_cpu(&sys, 0, &info, UINT64_MAX);
	assert_int_equal(info.nr_states, 4);
	assert_string_equal(info.states[0].name, "POLL");
	assert_string_equal(info.states[0].desc, "CPUIDLE CORE POLL IDLE");
	assert_string_equal(info.states[3].name, "C6");
	/* us -> ns: 2 us = 2000 ns; 10 -> 10000; 20 -> 20000; 133 -> 133000;
	 * 600 -> 600000 */
	assert_int_equal(info.states[0].exit_latency_ns, 0);
	assert_int_equal(info.states[1].exit_latency_ns, 2000);
	assert_int_equal(info.states[1].target_residency_ns, 2000);
	assert_int_equal(info.states[2].exit_latency_ns, 10000);
	assert_int_equal(info.states[2].target_residency_ns, 20000);
	assert_int_equal(info.states[3].exit_latency_ns, 133000);
	assert_int_equal(info.states[3].target_residency_ns, 600000);
	/* only the state named POLL polls */
	assert_true(info.states[0].poll);
	assert_false(info.states[1].poll);
	assert_false(info.states[3].poll);
	for (int i = 0; i < 4; i++)
		assert_false(info.states[i].disabled);
	/* pm_qos_resume_latency_us "0" = no device constraint: UINT64_MAX, and
	 * min(UINT64_MAX, global UINT64_MAX) = UINT64_MAX */
	assert_int_equal(info.dev_qos_ns, UINT64_MAX);
	assert_int_equal(info.qos_limit_ns, UINT64_MAX);
	/* poll limit: first enabled non-poll state with a residency of at least
	 * 10 us: C1 (2 us) is too short, C1E is 20 us -> 20000 < 250000 */
	assert_int_equal(info.poll_limit_ns, 20000);

	/* "0" with a global limit of 30 us -> min(UINT64_MAX, 30000) = 30000 */
	cpuidle_read_cpu(&sys, 0, &info, 30 * US);
	assert_int_equal(info.qos_limit_ns, 30000);
}

static void test_cpuidle_read_cpu_qos_and_disable(void **state)
{
	struct cpuidle_system sys;
	struct cpuidle_cpu_info info;

	(void)state;
	read_system_hz250(&sys);
	/* cpu1: C1E disabled; "n/a" = no latency allowed -> 0 */
	cpuidle_read_cpu(&sys, 1, &info, UINT64_MAX);
	assert_int_equal(info.nr_states, 4);
	assert_false(info.states[1].disabled);
	assert_true(info.states[2].disabled);
	assert_int_equal(info.dev_qos_ns, 0);
	assert_int_equal(info.qos_limit_ns, 0);
	/* C1 too short, C1E disabled: C6 600000 capped at 250000 */
	assert_int_equal(info.poll_limit_ns, 250000);

	/* cpu2: C1 disabled; "50" -> 50 * 1000 = 50000 ns under an unlimited global */
	cpuidle_read_cpu(&sys, 2, &info, UINT64_MAX);
	assert_true(info.states[1].disabled);
	assert_int_equal(info.dev_qos_ns, 50000);
	assert_int_equal(info.qos_limit_ns, 50000);
	assert_int_equal(info.poll_limit_ns, 20000); /* C1E */
	/* the tighter of the two wins: min(50000, 20000) = 20000 */
	cpuidle_read_cpu(&sys, 2, &info, 20 * US);
	assert_int_equal(info.qos_limit_ns, 20000);
	/* and min(50000, 80000) = 50000 */
	cpuidle_read_cpu(&sys, 2, &info, 80 * US);
	assert_int_equal(info.qos_limit_ns, 50000);
	/* a new global limit applies without re-reading the device file:
	 * min(50000, 10000) = 10000, then min(50000, UINT64_MAX) = 50000 */
	cpuidle_apply_qos(&info, 10 * US);
	assert_int_equal(info.qos_limit_ns, 10000);
	cpuidle_apply_qos(&info, UINT64_MAX);
	assert_int_equal(info.qos_limit_ns, 50000);

	/* cpu3: no pm_qos file -> global */
	cpuidle_read_cpu(&sys, 3, &info, 30 * US);
	assert_int_equal(info.dev_qos_ns, UINT64_MAX);
	assert_int_equal(info.qos_limit_ns, 30000);

	/* a later change of disable is picked up by cpuidle_refresh_cpu */
	cpuidle_read_cpu(&sys, 0, &info, UINT64_MAX);
	fs_put("1\n", CPU "/cpu0/cpuidle/state2/disable");
	assert_false(info.states[2].disabled);
	assert_int_equal(info.poll_limit_ns, 20000);
	cpuidle_refresh_cpu(&sys, 0, &info, UINT64_MAX);
	assert_true(info.states[2].disabled);
	/* C1E off: C6's 600000, capped at 250000 */
	assert_int_equal(info.poll_limit_ns, 250000);
}

static void test_cpuidle_poll_limit(void **state)
{
	struct cpuidle_system sys;
	struct cpuidle_cpu_info info;

	(void)state;
	read_system_hz250(&sys);
	/* HZ 1000: cap 1e9 / 1000 / 16 = 62500 */
	sys.tick_ns = 1000000;
	cpuidle_read_cpu(&sys, 0, &info, UINT64_MAX);
	assert_int_equal(info.poll_limit_ns, 20000);  /* C1E, under the cap */
	cpuidle_read_cpu(&sys, 1, &info, UINT64_MAX);
	assert_int_equal(info.poll_limit_ns, 62500);  /* C6 600000 capped */
	/* every non-poll state disabled: the cap itself */
	for (int i = 1; i < 4; i++)
		fs_put("1\n", CPU "/cpu%d/cpuidle/state%d/disable", 3, i);
	cpuidle_read_cpu(&sys, 3, &info, UINT64_MAX);
	assert_int_equal(info.poll_limit_ns, 62500);
	/* C1 at exactly 10 us qualifies: 10000 */
	fs_put("0\n", CPU "/cpu3/cpuidle/state1/disable");
	fs_put("10\n", CPU "/cpu3/cpuidle/state1/residency");
	cpuidle_read_cpu(&sys, 3, &info, UINT64_MAX);
	assert_int_equal(info.poll_limit_ns, 10000);

	/* haltpoll governor: adapted per period, not in sysfs -> 0 (unknown) */
	fs_put("haltpoll\n", CPU "/cpuidle/current_governor");
	read_system_hz250(&sys);
	cpuidle_read_cpu(&sys, 0, &info, UINT64_MAX);
	assert_int_equal(info.poll_limit_ns, 0);
}

static void test_cpuidle_read_cpu_edges(void **state)
{
	struct cpuidle_system sys;
	struct cpuidle_cpu_info info;

	(void)state;
	read_system_hz250(&sys);
	/* the table ends at the first state without a name: state2 missing
	 * leaves states 0 and 1 */
	fs_rm(CPU "/cpu3/cpuidle/state2/name");
	cpuidle_read_cpu(&sys, 3, &info, UINT64_MAX);
	assert_int_equal(info.nr_states, 2);
	/* or without a latency: state1 unreadable leaves state 0 */
	fs_rm(CPU "/cpu3/cpuidle/state1/latency");
	cpuidle_read_cpu(&sys, 3, &info, UINT64_MAX);
	assert_int_equal(info.nr_states, 1);

	/* no driver: no table at all */
	fs_put("none\n", CPU "/cpuidle/current_driver");
	read_system_hz250(&sys);
	cpuidle_read_cpu(&sys, 0, &info, UINT64_MAX);
	assert_int_equal(info.nr_states, 0);
	assert_int_equal(info.poll_limit_ns, 0);
}

static void test_cpuidle_read_counters(void **state)
{
	struct cpuidle_counters c[4];

	(void)state;
	cpuidle_read_counters(0, 4, c);
	for (int i = 0; i < 4; i++) {
		assert_true(c[i].valid);
		assert_true(c[i].has_miss_counters);
		assert_true(c[i].has_rejected);
	}
	/* state1: usage 100, time 2500 us, above 4, below 7, rejected 1 */
	assert_int_equal(c[1].usage, 100);
	assert_int_equal(c[1].time_us, 2500);
	assert_int_equal(c[1].above, 4);
	assert_int_equal(c[1].below, 7);
	assert_int_equal(c[1].rejected, 1);
	/* state3: usage 8, time 48000 us */
	assert_int_equal(c[3].usage, 8);
	assert_int_equal(c[3].time_us, 48000);

	/* pre-5.0 kernel: no above/below; pre-5.10: no rejected */
	fs_rm(CPU "/cpu1/cpuidle/state1/above");
	fs_rm(CPU "/cpu1/cpuidle/state1/rejected");
	/* a state without time is not valid */
	fs_rm(CPU "/cpu1/cpuidle/state2/time");
	cpuidle_read_counters(1, 3, c);
	assert_true(c[1].valid);
	assert_false(c[1].has_miss_counters);
	assert_false(c[1].has_rejected);
	assert_int_equal(c[1].usage, 100);
	assert_false(c[2].valid);
	assert_true(c[0].valid);
}

/* The state tables of the 4 fake CPUs. */
static void read_fake_cpus(struct cpuidle_cpu_info info[4])
{
	struct cpuidle_system sys;

	cpuidle_read_system(&sys);
	for (int c = 0; c < 4; c++)
		cpuidle_read_cpu(&sys, c, &info[c], UINT64_MAX);
}

static void test_cpuidle_counter_files(void **state)
{
	struct cpuidle_cpu_info info[4];
	struct cpuidle_counters out[4 * IS_MAX_STATES];
	struct cpuidle_counter_files f;
	struct cpulist sel;
	char err[64];

	(void)state;
	read_fake_cpus(info);
	assert_int_equal(cpulist_parse("0,2", &sel, err, sizeof(err)), 0);
	assert_int_equal(cpuidle_counters_open(&f, 4, &sel, info), 0);
	cpuidle_counters_snapshot(&f, out, COUNTERS_AFTER_STOP);
	/* cpu0 state1: usage 100, time 2500 us, above 4, below 7, rejected 1 */
	assert_true(out[0 * IS_MAX_STATES + 1].valid);
	assert_int_equal(out[0 * IS_MAX_STATES + 1].usage, 100);
	assert_int_equal(out[0 * IS_MAX_STATES + 1].time_us, 2500);
	assert_true(out[0 * IS_MAX_STATES + 1].has_miss_counters);
	assert_int_equal(out[0 * IS_MAX_STATES + 1].above, 4);
	assert_int_equal(out[0 * IS_MAX_STATES + 1].below, 7);
	assert_true(out[0 * IS_MAX_STATES + 1].has_rejected);
	assert_int_equal(out[0 * IS_MAX_STATES + 1].rejected, 1);
	/* cpu2 state3 is read too; cpu1 (not selected) and state 4+ are not */
	assert_int_equal(out[2 * IS_MAX_STATES + 3].time_us, 48000);
	assert_false(out[1 * IS_MAX_STATES + 1].valid);
	assert_false(out[0 * IS_MAX_STATES + 4].valid);

	/* the start edge's order (usage last) reads the same values */
	{
		struct cpuidle_counters start[4 * IS_MAX_STATES];

		cpuidle_counters_snapshot(&f, start, COUNTERS_BEFORE_START);
		assert_memory_equal(start, out, sizeof(out));
	}

	/* each snapshot reads the files again; "99" is shorter than "100" */
	fs_put("99\n", CPU "/cpu0/cpuidle/state1/usage");
	fs_put("2600\n", CPU "/cpu0/cpuidle/state1/time");
	cpuidle_counters_snapshot(&f, out, COUNTERS_AFTER_STOP);
	assert_int_equal(out[0 * IS_MAX_STATES + 1].usage, 99);
	assert_int_equal(out[0 * IS_MAX_STATES + 1].time_us, 2600);
	cpuidle_counters_close(&f);
	assert_null(f.nr_states);
	assert_int_equal(f.root_fd, -1);
}

static int count_open_fds(void)
{
	struct stat st;
	int n = 0;

	for (int fd = 0; fd < 4096; fd++)
		n += fstat(fd, &st) == 0;
	return n;
}

static void rename_in_tree(const char *from, const char *to)
{
	char a[512], b[512];

	snprintf(a, sizeof(a), "%s/%s", fake_root, from);
	snprintf(b, sizeof(b), "%s/%s", fake_root, to);
	if (rename(a, b))
		fail_msg("rename %s: %s", a, strerror(errno));
}

/* A 64-CPU machine has 1339 counter files: held open they exceeded the
 * default limit of 1024 descriptors. Reading them needs one kept descriptor
 * whatever the CPU count. */
static void test_cpuidle_counter_fds(void **state)
{
	struct cpuidle_cpu_info info[4];
	struct cpuidle_counters out[4 * IS_MAX_STATES];
	struct cpuidle_counter_files f;
	struct cpulist sel;
	char err[64];
	int before;

	(void)state;
	read_fake_cpus(info);
	assert_int_equal(info[0].nr_states, 4);
	assert_int_equal(cpulist_parse("0-3", &sel, err, sizeof(err)), 0);
	before = count_open_fds();
	assert_int_equal(cpuidle_counters_open(&f, 4, &sel, info), 0);
	assert_int_equal(count_open_fds(), before + 1);
	cpuidle_counters_snapshot(&f, out, COUNTERS_AFTER_STOP);
	assert_int_equal(count_open_fds(), before + 1);
	assert_int_equal(out[3 * IS_MAX_STATES + 3].usage, 8);

	/* hotplug with the device kept (acpi_idle): the state directories are
	 * new, the counters go on and are read */
	rename_in_tree(CPU "/cpu1/cpuidle/state1", CPU "/cpu1/cpuidle/old1");
	fs_put("150\n", CPU "/cpu1/cpuidle/state1/usage");
	fs_put("3000\n", CPU "/cpu1/cpuidle/state1/time");
	/* a device registered again (haltpoll): its counters started at 0, no
	 * reads from cpu2 until the caller accepts the new device */
	rename_in_tree(CPU "/cpu2/cpuidle", CPU "/cpu2/old-cpuidle");
	for (int i = 0; i < 4; i++) {
		fs_put("1\n", CPU "/cpu2/cpuidle/state%d/usage", i);
		fs_put("10\n", CPU "/cpu2/cpuidle/state%d/time", i);
	}
	cpuidle_counters_snapshot(&f, out, COUNTERS_AFTER_STOP);
	assert_true(out[1 * IS_MAX_STATES + 1].valid);
	assert_int_equal(out[1 * IS_MAX_STATES + 1].usage, 150);
	assert_false(out[1 * IS_MAX_STATES + 1].has_rejected);
	for (int i = 0; i < IS_MAX_STATES; i++)
		assert_false(out[2 * IS_MAX_STATES + i].valid);
	assert_true(out[3 * IS_MAX_STATES + 1].valid);
	cpuidle_counters_snapshot(&f, out, COUNTERS_BEFORE_START);
	assert_false(out[2 * IS_MAX_STATES + 3].valid);
	assert_true(out[1 * IS_MAX_STATES + 1].valid);
	assert_int_equal(cpuidle_counters_reopen_cpu(&f, 2, &info[2]), 0);
	cpuidle_counters_snapshot(&f, out, COUNTERS_AFTER_STOP);
	assert_true(out[2 * IS_MAX_STATES + 3].valid);
	assert_int_equal(out[2 * IS_MAX_STATES + 3].usage, 1);
	assert_int_equal(cpuidle_counters_reopen_cpu(&f, 4, &info[0]), -1);
	cpuidle_counters_close(&f);
	assert_int_equal(count_open_fds(), before);
}

static void test_cpuidle_to_params(void **state)
{
	struct cpuidle_system sys;
	struct cpuidle_cpu_info info;
	struct idle_params p;

	(void)state;
	read_system_hz250(&sys);
	/* cpu1: C1E (bit 2) disabled, POLL (bit 0) polls, QoS "n/a" = 0 */
	cpuidle_read_cpu(&sys, 1, &info, UINT64_MAX);
	cpuidle_to_params(&info, &p);
	assert_int_equal(p.nr_states, 4);
	assert_int_equal(p.flags, IS_PARAMS_VALID);
	assert_int_equal(p.disabled_mask, 1u << 2); /* 0b0100 = 4 */
	assert_int_equal(p.poll_mask, 1u << 0);     /* 0b0001 = 1 */
	assert_int_equal(p.qos_limit_ns, 0);
	assert_int_equal(p.poll_limit_ns, 250000); /* C6 600 us capped at 250 us */
	assert_int_equal(p.exit_latency_ns[0], 0);
	assert_int_equal(p.exit_latency_ns[1], 2000);
	assert_int_equal(p.exit_latency_ns[2], 10000);
	assert_int_equal(p.exit_latency_ns[3], 133000);
	assert_int_equal(p.target_residency_ns[3], 600000);
	assert_int_equal(p.exit_latency_ns[4], 0); /* unused slots stay 0 */

	/* cpu2: C1 (bit 1) disabled -> mask 2; QoS 50 us */
	cpuidle_read_cpu(&sys, 2, &info, UINT64_MAX);
	cpuidle_to_params(&info, &p);
	assert_int_equal(p.disabled_mask, 2);
	assert_int_equal(p.qos_limit_ns, 50000);

	/* no states: valid but not classified (1 | 2 = 3), everything else 0 */
	memset(&info, 0, sizeof(info));
	info.qos_limit_ns = 123;
	cpuidle_to_params(&info, &p);
	assert_int_equal(p.flags, IS_PARAMS_VALID | IS_PARAMS_NO_CLASSIFY);
	assert_int_equal(p.flags, 3);
	assert_int_equal(p.nr_states, 0);
	assert_int_equal(p.qos_limit_ns, 0);
}

/* ------------------------------------------------------------------ */
/* model.c: summary_build on a hand-made capture                       */

#define NCPU 5
#define START (1000 * MS)        /* window [1 s, 1.1 s) */
#define STOP (START + 100 * MS)  /* 100 ms window */

static struct model_fx {
	struct cpu_topo tcpus[NCPU];
	struct topology topo;
	struct cpuidle_cpu_info info[NCPU];
	struct idle_cpu_slot slots[NCPU];
	struct idle_state_stats stats[NCPU * IS_MAX_STATES];
	struct idle_raw raw;
	struct cpuidle_counters k_start[NCPU * IS_MAX_STATES], k_end[NCPU * IS_MAX_STATES];
	struct window_capture w;
	struct cpulist sel;
} fx;

static struct idle_state_stats *raw_st(int cpu, int state)
{
	return &fx.stats[cpu * IS_MAX_STATES + state];
}

static void set_counters(struct cpuidle_counters *c, uint64_t usage, uint64_t time_us,
			 uint64_t above, uint64_t below, uint64_t rejected, bool miss, bool rej)
{
	*c = (struct cpuidle_counters){ .valid = true, .has_miss_counters = miss,
					.has_rejected = rej, .usage = usage, .time_us = time_us,
					.above = above, .below = below, .rejected = rejected };
}

/* Five CPUs with a POLL/C1/C6 table over a 100 ms window:
 *   cpu0  online; C1: 1000 + 2000 + 3000 ns, C6: 40 ms + 50 ms; 2 bad states
 *   cpu1  online; C1: 10 ms; unmatched exit 5 ms in; in C6 for the last 2 ms
 *   cpu2  online; entered C6 50 ms before the window, still idle at stop
 *   cpu3  online; no events
 *   cpu4  offline */
static int build_model(void **state)
{
	struct idle_state_stats *st;

	(void)state;
	memset(&fx, 0, sizeof(fx));
	for (int c = 0; c < NCPU; c++) {
		fx.tcpus[c] = (struct cpu_topo){ .cpu = c, .online = c < 4, .package = 0, .die = 0,
						 .cluster = -1, .core = c };
		fx.info[c].nr_states = 3;
		fx.info[c].states[0] = (struct cpuidle_state_info){ .name = "POLL", .poll = true };
		fx.info[c].states[1] = (struct cpuidle_state_info){
			.name = "C1", .desc = "MWAIT 0x00", .exit_latency_ns = 2 * US,
			.target_residency_ns = 2 * US };
		fx.info[c].states[2] = (struct cpuidle_state_info){
			.name = "C6", .exit_latency_ns = 133 * US, .target_residency_ns = 600 * US };
		fx.info[c].qos_limit_ns = UINT64_MAX;
		/* cpu3's poll limit is unknown (haltpoll-like), the others' 20 us */
		fx.info[c].poll_limit_ns = c == 3 ? 0 : 20 * US;
	}
	fx.topo.nr_possible = NCPU;
	fx.topo.nr_cpus = NCPU;
	fx.topo.cpus = fx.tcpus;

	/* cpu0 C1: 1000 ns -> bucket 35, 2000 -> 39, 3000 -> 41 (see test_hist.c:
	 * 2000: msb 10, 36 + ((2000 >> 8) & 3) = 36 + 3; 3000: msb 11,
	 * 40 + ((3000 >> 9) & 3) = 40 + 1) */
	st = raw_st(0, 1);
	st->entries = 3;
	st->time_ns = 1000 + 2000 + 3000;
	st->min_ns = 1000;
	st->max_ns = 3000;
	st->hist[35] = st->hist[39] = st->hist[41] = 1;
	st->above = 1;
	st->ideal[0] = 1;
	st->ideal[1] = 2;
	/* cpu0 C6: 40 ms -> msb 25, 96 + ((40e6 >> 23) & 3) = 96 + (4 & 3) = 96;
	 * 50 ms -> 96 + (5 & 3) = 97 */
	st = raw_st(0, 2);
	st->entries = 2;
	st->time_ns = 90 * MS;
	st->min_ns = 40 * MS;
	st->max_ns = 50 * MS;
	st->hist[96] = st->hist[97] = 1;
	st->below = 1;
	fx.slots[0].bad_state = 2;

	/* cpu1 C1: one 10 ms period: msb 23, 88 + ((10e6 >> 21) & 3) = 88 + 0 */
	st = raw_st(1, 1);
	st->entries = 1;
	st->time_ns = 10 * MS;
	st->min_ns = st->max_ns = 10 * MS;
	st->hist[88] = 1;
	fx.slots[1].unmatched_exits = 1;
	fx.slots[1].first_exit_ns = START + 5 * MS;
	fx.slots[1].enter_ns = STOP - 2 * MS;
	fx.slots[1].state = 2;

	/* cpu2: entered before the window, never left */
	fx.slots[2].enter_ns = START - 50 * MS;
	fx.slots[2].state = 2;

	fx.raw = (struct idle_raw){ .nr_cpus = NCPU, .slots = fx.slots, .stats = fx.stats,
				    .cpu_out_of_range = 7 };

	/* kernel counters: cpu0 C1 usage 100 -> 103, time 5000 -> 5006 us,
	 * above 1 -> 2, below 2 -> 2, rejected 0 -> 1 */
	set_counters(&fx.k_start[0 * IS_MAX_STATES + 1], 100, 5000, 1, 2, 0, true, true);
	set_counters(&fx.k_end[0 * IS_MAX_STATES + 1], 103, 5006, 2, 2, 1, true, true);
	/* cpu0 C6: usage 10 -> 12, time 1000 -> 91000 us; above/below files
	 * missing at the end -> no miss counters */
	set_counters(&fx.k_start[0 * IS_MAX_STATES + 2], 10, 1000, 0, 0, 0, true, false);
	set_counters(&fx.k_end[0 * IS_MAX_STATES + 2], 12, 91000, 0, 0, 0, false, false);
	/* cpu1 C1: usage 50 -> 51, time 100 -> 10100 us */
	set_counters(&fx.k_start[1 * IS_MAX_STATES + 1], 50, 100, 0, 0, 0, true, true);
	set_counters(&fx.k_end[1 * IS_MAX_STATES + 1], 51, 10100, 0, 1, 0, true, true);

	fx.w = (struct window_capture){ .start_ns = START, .stop_ns = STOP, .raw = &fx.raw,
					.info = fx.info, .k_start = fx.k_start, .k_end = fx.k_end };
	for (int c = 0; c < NCPU; c++)
		cpulist_set(&fx.sel, c);
	return 0;
}

static void init_summary(struct summary *s, const char *driver, const char *miss)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->sys.driver, sizeof(s->sys.driver), "%s", driver);
	snprintf(s->sys.governor, sizeof(s->sys.governor), "menu");
	s->topo = &fx.topo;
	s->idle_attach = "tp_btf";
	s->miss_attach = miss;
}

/* --packing's top 10 tasks by runtime: with more tasks than rows, each new
 * one replaces the last-ranked row (it once replaced the first: the
 * busiest task dropped out of a ping-pong's table); ties go to the lower
 * pid, in the same order every run. */
static void test_model_pack_top_tasks(void **state)
{
	/* 14 pids: runtimes 1..14 ms in a shuffled order, pids 300 and 301 tied
	 * with 13 ms; a second key (group 1) adds to pid 105's total */
	static const uint32_t ms[] = { 3, 14, 1, 9, 13, 5, 7, 2, 11, 4, 8, 6, 10, 12 };
	struct pack_task_key keys[17];
	struct pack_task_val vals[17];
	struct groups gr;
	struct summary s;
	char err[128];
	int n = 0;

	(void)state;
	for (int c = 0; c < NCPU; c++) {
		cpulist_set(&fx.topo.possible, c);
		if (c < 4)
			cpulist_set(&fx.topo.online, c);
	}
	assert_int_equal(groups_build(&fx.topo, "custom:0-1,2-3", &gr, err, sizeof(err)), 0);
	for (int i = 0; i < 14; i++) {
		keys[n] = (struct pack_task_key){ .pid = 100 + (uint32_t)i, .group = 0 };
		vals[n] = (struct pack_task_val){ .runtime_ns = ms[i] * MS };
		snprintf(vals[n].comm, sizeof(vals[n].comm), "t%d", i);
		n++;
	}
	keys[n] = (struct pack_task_key){ .pid = 105, .group = 1 }; /* 5 + 10 = 15 ms */
	vals[n++] = (struct pack_task_val){ .runtime_ns = 10 * MS, .comm = "t5" };
	keys[n] = (struct pack_task_key){ .pid = 301, .group = 0 };
	vals[n++] = (struct pack_task_val){ .runtime_ns = 13 * MS, .comm = "tie-b" };
	keys[n] = (struct pack_task_key){ .pid = 300, .group = 0 };
	vals[n++] = (struct pack_task_val){ .runtime_ns = 13 * MS, .comm = "tie-a" };
	fx.raw.have_pack = true;
	fx.raw.nr_pack_tasks = n;
	fx.raw.pack_keys = keys;
	fx.raw.pack_vals = vals;
	fx.w.groups = &gr;
	init_summary(&s, "intel_idle", NULL);
	assert_int_equal(summary_build(&s, &fx.w, &fx.sel), 0);
	assert_true(s.pack.enabled);
	assert_int_equal(s.pack.nr_tasks, 10);
	{
		/* by hand: 15 (105), 14 (101), 13 (104), 13 (300), 13 (301),
		 * 12 (113), 11 (108), 10 (112), 9 (103), 8 (110) */
		static const uint32_t pid[] = { 105, 101, 104, 300, 301, 113, 108, 112, 103, 110 };
		static const uint64_t tot[] = { 15, 14, 13, 13, 13, 12, 11, 10, 9, 8 };

		for (int i = 0; i < 10; i++) {
			assert_int_equal(s.pack.tasks[i].pid, pid[i]);
			assert_int_equal(s.pack.tasks[i].total_ns, tot[i] * MS);
		}
	}
	assert_int_equal(s.pack.tasks[0].group_ns[0], 5 * MS);
	assert_int_equal(s.pack.tasks[0].group_ns[1], 10 * MS);
	summary_free(&s);
	groups_free(&gr);
}

static void test_model_per_state(void **state)
{
	struct summary s;
	const struct cpu_summary *c0;

	(void)state;
	init_summary(&s, "intel_idle", NULL);
	assert_int_equal(summary_build(&s, &fx.w, &fx.sel), 0);
	assert_int_equal(s.nr_cpus, 5);
	assert_int_equal(s.start_ns, START);
	assert_int_equal(s.duration_ns, 100 * MS); /* STOP - START */
	assert_true(strlen(s.kernel) > 0);         /* uname release */
	c0 = &s.cpus[0];
	assert_int_equal(c0->cpu, 0);
	assert_int_equal(c0->nr_states, 3);
	assert_string_equal(c0->states[1].name, "C1");
	assert_string_equal(c0->states[1].desc, "MWAIT 0x00");
	assert_int_equal(c0->states[1].index, 1);
	assert_true(c0->states[1].classified);
	assert_true(c0->states[0].poll);
	assert_int_equal(c0->states[2].exit_latency_ns, 133000);
	assert_int_equal(c0->states[2].target_residency_ns, 600000);
	/* C1: 3 entries, 6000 ns, avg 6000 / 3 = 2000 */
	assert_int_equal(c0->states[1].entries, 3);
	assert_int_equal(c0->states[1].time_ns, 6000);
	assert_int_equal(c0->states[1].min_ns, 1000);
	assert_int_equal(c0->states[1].max_ns, 3000);
	assert_int_equal(c0->states[1].avg_ns, 2000);
	/* p50: rank 1.5; bucket 35 holds 1 (< 1.5); bucket 39 [1792, 2048):
	 * frac 0.5, 1792 + (0.5 * (2047 - 1792) + 0.5) = 1792 + 128 = 1920.
	 * p90: rank 2.7, bucket 41 [2560, 3072) clamped to max + 1 = 3001:
	 * 2560 + (0.7 * 440 + 0.5) = 2560 + 308 = 2868.
	 * p99: rank 2.97: 2560 + (0.97 * 440 + 0.5 = 427.3) = 2987 */
	assert_int_equal(c0->states[1].p50_ns, 1920);
	assert_int_equal(c0->states[1].p90_ns, 2868);
	assert_int_equal(c0->states[1].p99_ns, 2987);
	assert_int_equal(c0->states[1].above, 1);
	assert_int_equal(c0->states[1].ideal[1], 2);
	assert_false(c0->states[1].have_miss);
	/* C6: 2 entries, 90 ms, avg 45 ms */
	assert_int_equal(c0->states[2].entries, 2);
	assert_int_equal(c0->states[2].time_ns, 90 * MS);
	assert_int_equal(c0->states[2].avg_ns, 45 * MS);
	assert_int_equal(c0->states[2].below, 1);
	/* a poll limit is known for the polling state only */
	assert_true(c0->states[0].poll_limit_known);
	assert_false(c0->states[1].poll_limit_known);
	/* POLL: nothing, avg and percentiles 0 */
	assert_int_equal(c0->states[0].entries, 0);
	assert_int_equal(c0->states[0].avg_ns, 0);
	assert_int_equal(c0->states[0].p50_ns, 0);
	/* CPU: 5 entries; idle 6000 + 90e6 = 90006000; no edges;
	 * busy 100e6 - 90006000 = 9994000 */
	assert_int_equal(c0->entries, 5);
	assert_int_equal(c0->idle_ns, 90006000);
	assert_int_equal(c0->edge_idle_ns, 0);
	assert_int_equal(c0->busy_ns, 9994000);
	assert_false(c0->idle_at_end);
	assert_int_equal(c0->bad_state, 2);
	assert_true(c0->online);
	assert_string_equal(c0->status, "ok");
	summary_free(&s);
}

static void test_model_edges_and_status(void **state)
{
	struct summary s;
	const struct cpu_summary *c;

	(void)state;
	init_summary(&s, "intel_idle", NULL);
	assert_int_equal(summary_build(&s, &fx.w, &fx.sel), 0);

	/* cpu1: edge = (first exit - start) + (stop - enter) = 5 ms + 2 ms = 7 ms;
	 * idle 10 ms; busy 100 - 10 - 7 = 83 ms */
	c = &s.cpus[1];
	assert_int_equal(c->entries, 1);
	assert_int_equal(c->idle_ns, 10 * MS);
	assert_int_equal(c->edge_idle_ns, 7 * MS);
	assert_int_equal(c->busy_ns, 83 * MS);
	assert_int_equal(c->unmatched_exits, 1);
	assert_true(c->idle_at_end);
	assert_string_equal(c->status, "ok");

	/* cpu2: entered 50 ms before start: edge counts from start only,
	 * stop - start = 100 ms; busy 0 */
	c = &s.cpus[2];
	assert_int_equal(c->entries, 0);
	assert_int_equal(c->idle_ns, 0);
	assert_int_equal(c->edge_idle_ns, 100 * MS);
	assert_int_equal(c->busy_ns, 0);
	assert_true(c->idle_at_end);
	assert_string_equal(c->status, "idle for the whole window (no complete period)");

	/* cpu3: online, no events: all busy */
	c = &s.cpus[3];
	assert_int_equal(c->entries, 0);
	assert_int_equal(c->edge_idle_ns, 0);
	assert_int_equal(c->busy_ns, 100 * MS);
	assert_false(c->idle_at_end);
	assert_string_equal(c->status, "no idle events (fully busy, or events lost)");

	/* cpu4: offline in the topology */
	c = &s.cpus[4];
	assert_false(c->online);
	assert_string_equal(c->status, "offline");
	summary_free(&s);

	/* edge exits: a state's own, plus the CPU's of unknown state in every
	 * state; the totals sum them */
	raw_st(1, 1)->edge_exits = 3;
	fx.slots[1].edge_unknown = 2;
	init_summary(&s, "intel_idle", NULL);
	assert_int_equal(summary_build(&s, &fx.w, &fx.sel), 0);
	assert_int_equal(s.cpus[1].states[1].edge_exits, 5);
	assert_int_equal(s.cpus[1].states[0].edge_exits, 2);
	assert_int_equal(s.totals.states[1].edge_exits, 5);
	summary_free(&s);
	raw_st(1, 1)->edge_exits = 0;
	fx.slots[1].edge_unknown = 0;
}

/* A period entered at stop itself (a replayed trace ending with that enter)
 * is in progress there; busy the rest of the window, the CPU was not idle
 * for the whole of it. Index-only states are not classified. */
static void test_model_enter_at_stop(void **state)
{
	struct summary s;
	const struct cpu_summary *c;

	(void)state;
	fx.slots[3].enter_ns = STOP;
	fx.slots[3].state = 1;
	fx.info[0].unclassified = true;
	init_summary(&s, "intel_idle", NULL);
	assert_int_equal(summary_build(&s, &fx.w, &fx.sel), 0);
	c = &s.cpus[3];
	assert_true(c->idle_at_end);
	assert_int_equal(c->edge_idle_ns, 0);
	assert_int_equal(c->busy_ns, 100 * MS);
	assert_string_equal(c->status, "no complete idle period (idle only at the window's edges)");
	/* cpu2, in a period for the whole window, still is */
	assert_string_equal(s.cpus[2].status, "idle for the whole window (no complete period)");
	assert_false(s.cpus[0].states[1].classified);
	assert_true(s.cpus[1].states[1].classified);
	summary_free(&s);
}

static void test_model_totals(void **state)
{
	struct summary s;
	const struct cpu_summary *t;

	(void)state;
	init_summary(&s, "intel_idle", NULL);
	assert_int_equal(summary_build(&s, &fx.w, &fx.sel), 0);
	t = &s.totals;
	assert_int_equal(t->cpu, -1);
	assert_string_equal(t->status, "ok");
	/* entries 5 (cpu0) + 1 (cpu1) = 6 */
	assert_int_equal(t->entries, 6);
	/* idle 90006000 + 10000000 = 100006000 */
	assert_int_equal(t->idle_ns, 100006000);
	/* edges 7 ms (cpu1) + 100 ms (cpu2) = 107 ms */
	assert_int_equal(t->edge_idle_ns, 107 * MS);
	/* busy 9994000 + 83e6 + 0 + 100e6 + 100e6 = 292994000 */
	assert_int_equal(t->busy_ns, 292994000);
	assert_int_equal(t->unmatched_exits, 1);
	assert_int_equal(t->bad_state, 2);
	/* same table everywhere: 3 states, matched by index and name */
	assert_int_equal(t->nr_states, 3);
	assert_string_equal(t->states[1].name, "C1");
	/* C1: 3 + 1 = 4 entries, 6000 + 10e6 = 10006000 ns, min 1000, max 10e6,
	 * avg 10006000 / 4 = 2501500 */
	assert_int_equal(t->states[1].entries, 4);
	assert_int_equal(t->states[1].time_ns, 10006000);
	assert_int_equal(t->states[1].min_ns, 1000);
	assert_int_equal(t->states[1].max_ns, 10 * MS);
	assert_int_equal(t->states[1].avg_ns, 2501500);
	/* hist merged: 35, 39, 41, 88 one each */
	assert_int_equal(t->states[1].hist[35] + t->states[1].hist[39] + t->states[1].hist[41] +
				 t->states[1].hist[88],
			 4);
	/* C6: 2 entries, 90 ms, avg 45 ms, min 40 ms */
	assert_int_equal(t->states[2].entries, 2);
	assert_int_equal(t->states[2].time_ns, 90 * MS);
	assert_int_equal(t->states[2].avg_ns, 45 * MS);
	assert_int_equal(t->states[2].min_ns, 40 * MS);
	/* any CPU idle at the end: cpu1 and cpu2 are */
	assert_true(t->idle_at_end);
	/* cpu3's POLL limit is unknown, so the summed one is too */
	assert_false(t->states[0].poll_limit_known);
	/* cpu2..4 have no kernel counters, so the totals have none either */
	assert_false(t->states[1].kernel.valid);
	assert_int_equal(s.cpu_out_of_range, 7);
	summary_free(&s);
}

static void test_model_selection_and_kernel_deltas(void **state)
{
	struct summary s;
	const struct cpu_summary *c0, *t;

	(void)state;
	/* only CPUs 0 and 1 */
	memset(&fx.sel, 0, sizeof(fx.sel));
	cpulist_set(&fx.sel, 0);
	cpulist_set(&fx.sel, 1);
	init_summary(&s, "intel_idle", NULL);
	assert_int_equal(summary_build(&s, &fx.w, &fx.sel), 0);
	assert_int_equal(s.nr_cpus, 2);
	assert_int_equal(s.cpus[0].cpu, 0);
	assert_int_equal(s.cpus[1].cpu, 1);
	c0 = &s.cpus[0];
	/* cpu0 C1: usage 103 - 100 = 3, time (5006 - 5000) * 1000 = 6000 ns,
	 * above 2 - 1 = 1, below 2 - 2 = 0, rejected 1 - 0 = 1 */
	assert_true(c0->states[1].kernel.valid);
	assert_int_equal(c0->states[1].kernel.usage, 3);
	assert_int_equal(c0->states[1].kernel.time_ns, 6000);
	assert_true(c0->states[1].kernel.has_miss_counters);
	assert_int_equal(c0->states[1].kernel.above, 1);
	assert_int_equal(c0->states[1].kernel.below, 0);
	assert_true(c0->states[1].kernel.has_rejected);
	assert_int_equal(c0->states[1].kernel.rejected, 1);
	/* cpu0 C6: usage 2, time (91000 - 1000) * 1000 = 90e6 ns; miss counters
	 * only at the start -> none */
	assert_int_equal(c0->states[2].kernel.usage, 2);
	assert_int_equal(c0->states[2].kernel.time_ns, 90 * MS);
	assert_false(c0->states[2].kernel.has_miss_counters);
	assert_int_equal(c0->states[2].kernel.above, 0);
	assert_false(c0->states[2].kernel.has_rejected);
	/* cpu0 POLL: no counters */
	assert_false(c0->states[0].kernel.valid);

	/* totals over 0 and 1, C1: usage 3 + 1 = 4, time 6000 + 10e6 ns,
	 * rejected 1 + 0 = 1, below 0 + 1 = 1 */
	t = &s.totals;
	assert_true(t->states[1].kernel.valid);
	assert_int_equal(t->states[1].kernel.usage, 4);
	assert_int_equal(t->states[1].kernel.time_ns, 10006000);
	assert_int_equal(t->states[1].kernel.rejected, 1);
	assert_int_equal(t->states[1].kernel.below, 1);
	/* both CPUs know their POLL limit */
	assert_true(t->states[0].poll_limit_known);
	/* busy 9994000 + 83e6 = 92994000 */
	assert_int_equal(t->busy_ns, 92994000);
	summary_free(&s);
	assert_null(s.cpus);
	assert_null(s.warnings);
	assert_int_equal(s.nr_warnings, 0);
}

static void test_model_warnings(void **state)
{
	struct summary s;

	(void)state;
	init_summary(&s, "intel_idle", NULL);
	s.snapshot_ns = 0;
	assert_int_equal(summary_build(&s, &fx.w, &fx.sel), 0);
	/* no cpu_idle_miss, 7 out-of-range events, 2 bad states, and CPUs 2, 3, 4
	 * not "ok": 1 + 1 + 1 + 3 = 6 warnings, in that order */
	assert_int_equal(s.nr_warnings, 6);
	assert_non_null(strstr(s.warnings[0], "cpu_idle_miss"));
	assert_non_null(strstr(s.warnings[1], "7 idle events"));
	assert_non_null(strstr(s.warnings[2], "2 idle entries"));
	assert_string_equal(s.warnings[3], "CPU 2: idle for the whole window (no complete period)");
	assert_string_equal(s.warnings[4], "CPU 3: no idle events (fully busy, or events lost)");
	assert_string_equal(s.warnings[5], "CPU 4: offline");
	summary_free(&s);

	/* with cpu_idle_miss attached: no such warning, states carry misses */
	raw_st(0, 1)->miss_above = 3;
	init_summary(&s, "intel_idle", "tp_btf");
	assert_int_equal(summary_build(&s, &fx.w, &fx.sel), 0);
	assert_int_equal(s.nr_warnings, 5);
	for (int i = 0; i < s.nr_warnings; i++)
		assert_null(strstr(s.warnings[i], "cpu_idle_miss"));
	assert_true(s.cpus[0].states[1].have_miss);
	assert_int_equal(s.cpus[0].states[1].miss_above, 3);
	/* summed into the totals: 3 + 0 */
	assert_int_equal(s.totals.states[1].miss_above, 3);
	summary_free(&s);

	/* a live record that could not poke: the CPUs of unknown state at the
	 * start, and why; none unknown, no warning */
	init_summary(&s, "intel_idle", "tp_btf");
	s.start_state.live = true;
	s.start_state.unknown_cpus = 2;
	s.start_state.poke_why = "IDLESCOPE_NO_POKE set";
	assert_int_equal(summary_build(&s, &fx.w, &fx.sel), 0);
	assert_int_equal(s.nr_warnings, 6);
	assert_string_equal(s.warnings[5], "2 CPUs of unknown state at the start (no idle event "
					   "since the attach; not poked: IDLESCOPE_NO_POKE set): one idle "
					   "then counts as busy in its group until its first idle entry");
	summary_free(&s);
	init_summary(&s, "intel_idle", "tp_btf");
	s.start_state.live = true;
	s.start_state.poke_why = "";
	assert_int_equal(summary_build(&s, &fx.w, &fx.sel), 0);
	assert_int_equal(s.nr_warnings, 5);
	summary_free(&s);
}

static void test_model_no_driver(void **state)
{
	struct summary s;
	struct idle_state_stats *st;

	(void)state;
	/* cpu0 without a driver table: default_idle_call() periods are state 1
	 * (4 of 1000 ns each), one forced poll period is state 0 */
	fx.info[0].nr_states = 0;
	memset(raw_st(0, 0), 0, sizeof(fx.stats[0]) * 3);
	st = raw_st(0, 1);
	st->entries = 4;
	st->time_ns = 4000;
	st->min_ns = st->max_ns = 1000;
	st->hist[35] = 4;
	st = raw_st(0, 0);
	st->entries = 1;
	st->time_ns = 300;
	st->min_ns = st->max_ns = 300;
	memset(&fx.sel, 0, sizeof(fx.sel));
	cpulist_set(&fx.sel, 0);
	init_summary(&s, "none", NULL);
	assert_int_equal(summary_build(&s, &fx.w, &fx.sel), 0);
	assert_int_equal(s.cpus[0].nr_states, 2);
	/* first the default-idle state (index 1), then poll (index 0) */
	assert_int_equal(s.cpus[0].states[0].index, 1);
	assert_string_equal(s.cpus[0].states[0].name, "default-idle");
	assert_false(s.cpus[0].states[0].classified);
	assert_int_equal(s.cpus[0].states[0].entries, 4);
	assert_int_equal(s.cpus[0].states[0].avg_ns, 1000); /* 4000 / 4 */
	assert_int_equal(s.cpus[0].states[1].index, 0);
	assert_string_equal(s.cpus[0].states[1].name, "poll");
	assert_true(s.cpus[0].states[1].poll);
	/* entries 4 + 1 = 5; idle 4000 + 300 = 4300 */
	assert_int_equal(s.cpus[0].entries, 5);
	assert_int_equal(s.cpus[0].idle_ns, 4300);
	/* warning 0 explains the missing driver (and replaces the miss one) */
	assert_true(s.nr_warnings >= 1);
	assert_non_null(strstr(s.warnings[0], "no cpuidle driver"));
	for (int i = 0; i < s.nr_warnings; i++)
		assert_null(strstr(s.warnings[i], "cpu_idle_miss"));
	summary_free(&s);

	/* no poll periods: one state only */
	memset(raw_st(0, 0), 0, sizeof(fx.stats[0]));
	init_summary(&s, "none", NULL);
	assert_int_equal(summary_build(&s, &fx.w, &fx.sel), 0);
	assert_int_equal(s.cpus[0].nr_states, 1);
	summary_free(&s);
}

/* ------------------------------------------------------------------ */
/* kernel_check.c                                                      */

/* A state of `entries` periods / time_ns against kernel counters with usage
 * `usage` and time 1 ms. max_ns is 0, so the edge-period term of the time
 * allowance (a multiple of max_ns) vanishes: tests that want it set max_ns. */
static struct state_summary check_st(uint64_t entries, uint64_t time_ns, uint64_t usage)
{
	struct state_summary st = { .index = 1, .name = "C1", .entries = entries,
				    .time_ns = time_ns, .max_ns = 0 };

	st.kernel = (struct kernel_delta){ .valid = true, .usage = usage, .time_ns = 1 * MS };
	return st;
}

static struct summary check_summary(uint64_t snapshot_ns)
{
	struct summary s;

	memset(&s, 0, sizeof(s));
	s.duration_ns = 100 * MS;
	s.snapshot_ns = snapshot_ns;
	return s;
}

static void test_check_entries(void **state)
{
	struct summary s = check_summary(0);
	struct state_summary st;
	struct check_row r;

	(void)state;
	/* 100 vs 98: diff +2, allowed 2 * 1 CPU = 2 -> ok */
	st = check_st(100, 1 * MS, 98);
	check_state(&s, &st, 1, &r);
	assert_true(r.available);
	assert_int_equal(r.entries_diff, 2);
	assert_int_equal(r.entries_allowed, 2);
	assert_true(r.entries_ok);
	/* 100 vs 97: +3 > 2 */
	st = check_st(100, 1 * MS, 97);
	check_state(&s, &st, 1, &r);
	assert_int_equal(r.entries_diff, 3);
	assert_false(r.entries_ok);
	/* rejected entries count: 100 vs 101 + 1 = 102: -2 -> ok */
	st = check_st(100, 1 * MS, 101);
	st.kernel.rejected = 1;
	check_state(&s, &st, 1, &r);
	assert_int_equal(r.entries_diff, -2);
	assert_true(r.entries_ok);
	/* 100 vs 103: -3 */
	st = check_st(100, 1 * MS, 103);
	check_state(&s, &st, 1, &r);
	assert_int_equal(r.entries_diff, -3);
	assert_false(r.entries_ok);
	/* totals over 4 CPUs: allowed 2 * 4 = 8; 100 - 92 = 8 ok, 100 - 91 = 9 not */
	st = check_st(100, 1 * MS, 92);
	check_state(&s, &st, 4, &r);
	assert_int_equal(r.entries_allowed, 8);
	assert_true(r.entries_ok);
	st = check_st(100, 1 * MS, 91);
	check_state(&s, &st, 4, &r);
	assert_false(r.entries_ok);
}

static void test_check_entries_snapshot_allowance(void **state)
{
	struct summary s = check_summary(1 * MS);
	struct state_summary st;
	struct check_row r;

	(void)state;
	/* 1 ms of snapshot reads in a 100 ms window: 1000 entries * 1/100 = 10
	 * more periods may end on one side only: allowed 2 + 10 = 12 */
	st = check_st(1000, 1 * MS, 988);
	check_state(&s, &st, 1, &r);
	assert_int_equal(r.entries_allowed, 12);
	assert_true(r.entries_ok);
	st = check_st(1000, 1 * MS, 987);
	check_state(&s, &st, 1, &r);
	assert_false(r.entries_ok);
	/* 1001 * 0.01 = 10.01, rounded up to 11: allowed 13 */
	st = check_st(1001, 1 * MS, 988);
	check_state(&s, &st, 1, &r);
	assert_int_equal(r.entries_allowed, 13);
	assert_true(r.entries_ok);
}

/* The rows of the 128-CPU TCG guest, synthetic: a CPU's state with 22
 * periods in a 10 s window, sysfs 32. Its snapshots took 2.6 s (edge to
 * edge, both): 22 * 0.26 = 5.72, rounded up to 6, allowed 2 + 6 = 8; the
 * kernel's 10 more are a mismatch at that rate. BPF saw 10 periods of that
 * CPU and state end during the reads (outside the window): allowed 2 + 10,
 * ok; a shorter read (0.5 s) does not narrow that. Per CPU: the totals of
 * 128 such CPUs allow 2 per CPU plus the sum of their edge exits. */
static void test_check_edge_exits(void **state)
{
	struct summary s = check_summary(0);
	struct state_summary st;
	struct check_row r;

	(void)state;
	s.duration_ns = 10000 * MS;
	s.snapshot_ns = 2600 * MS;
	st = check_st(22, 1 * MS, 32);
	check_state(&s, &st, 1, &r);
	assert_int_equal(r.entries_diff, -10);
	assert_int_equal(r.entries_allowed, 8);
	assert_false(r.entries_ok);
	st.edge_exits = 10;
	check_state(&s, &st, 1, &r);
	assert_int_equal(r.entries_allowed, 12);
	assert_true(r.entries_ok);
	s.snapshot_ns = 500 * MS;
	check_state(&s, &st, 1, &r);
	assert_int_equal(r.entries_allowed, 12);
	assert_true(r.entries_ok);
	/* where the rate over the read time is the larger: 22 * 0.26 -> 6 > 4 */
	s.snapshot_ns = 2600 * MS;
	st.edge_exits = 4;
	check_state(&s, &st, 1, &r);
	assert_int_equal(r.entries_allowed, 8);
	/* the totals of 128 CPUs: 2816 periods, 3 edge exits each */
	st = check_st(128 * 22, 1 * MS, 128 * 22 + 300);
	st.edge_exits = 128 * 3;
	s.snapshot_ns = 0;
	check_state(&s, &st, 128, &r);
	assert_int_equal(r.entries_allowed, 256 + 384);
	assert_true(r.entries_ok);
	/* a 2.6 s read in a 10 s window widens the rate term to 733 */
	s.snapshot_ns = 2600 * MS;
	check_state(&s, &st, 128, &r);
	assert_int_equal(r.entries_allowed, 256 + 733);
}

static void test_check_time(void **state)
{
	struct summary s = check_summary(0);
	struct state_summary st;
	struct check_row r;

	(void)state;
	/* 10 entries on both sides (diff 0); kernel 1 ms; max_ns 0. Allowed:
	 * 1% of 1e6 = 10000, + 10 * 1000 = 10000, + 2000 = 22000 */
	st = check_st(10, 1 * MS + 10000, 10);
	check_state(&s, &st, 1, &r);
	assert_int_equal(r.time_diff_ns, 10000);
	assert_true(r.time_ok);
	/* bias: 10000 / 10 = 1000 ns per period */
	assert_true(r.bias_ns > 999.999 && r.bias_ns < 1000.001);
	st = check_st(10, 1 * MS + 22000, 10);
	check_state(&s, &st, 1, &r);
	assert_true(r.time_ok);
	st = check_st(10, 1 * MS + 22001, 10);
	check_state(&s, &st, 1, &r);
	assert_false(r.time_ok);
	/* BPF shorter: -22000 ok, -22001 not */
	st = check_st(10, 1 * MS - 22000, 10);
	check_state(&s, &st, 1, &r);
	assert_int_equal(r.time_diff_ns, -22000);
	assert_true(r.time_ok);
	st = check_st(10, 1 * MS - 22001, 10);
	check_state(&s, &st, 1, &r);
	assert_false(r.time_ok);
	/* 1% scales with the kernel time: 100 ms -> 1000000 + 10000 + 2000 */
	st = check_st(10, 100 * MS + 1012000, 10);
	st.kernel.time_ns = 100 * MS;
	check_state(&s, &st, 1, &r);
	assert_true(r.time_ok);
	st.time_ns += 1;
	check_state(&s, &st, 1, &r);
	assert_false(r.time_ok);
}

static void test_check_time_edge_periods(void **state)
{
	struct summary s = check_summary(0);
	struct state_summary st;
	struct check_row r;

	(void)state;
	/* edge periods: (|entries_diff| + 2 per CPU) * max_ns on top.
	 * max 200 us, diff 0, 1 CPU: 22000 + (0 + 2) * 200000 = 422000 */
	st = check_st(10, 1 * MS + 422000, 10);
	st.max_ns = 200 * US;
	check_state(&s, &st, 1, &r);
	assert_true(r.time_ok);
	st.time_ns += 1;
	check_state(&s, &st, 1, &r);
	assert_false(r.time_ok);
	/* diff +1 (kernel 9): 22000 + (1 + 2) * 200000 = 622000, both ways */
	st = check_st(10, 1 * MS - 622000, 9);
	st.max_ns = 200 * US;
	check_state(&s, &st, 1, &r);
	assert_true(r.time_ok);
	st.time_ns -= 1;
	check_state(&s, &st, 1, &r);
	assert_false(r.time_ok);
	/* totals over 3 CPUs, diff 0: 22000 + (0 + 6) * 200000 = 1222000 */
	st = check_st(10, 1 * MS + 1222000, 10);
	st.max_ns = 200 * US;
	check_state(&s, &st, 3, &r);
	assert_true(r.time_ok);
	st.time_ns += 1;
	check_state(&s, &st, 3, &r);
	assert_false(r.time_ok);
}

static void test_check_time_kernel_counted_more(void **state)
{
	struct summary s = check_summary(0);
	struct state_summary st;
	struct check_row r;

	(void)state;
	/* kernel counted 11 periods, BPF 10 (entries_diff -1): a period in flight
	 * at attach has unknown length, so BPF may be short by any amount.
	 * Allowed (max_ns 0): 10000 + 10000 + 2000 = 22000 */
	st = check_st(10, 500 * US, 11);
	check_state(&s, &st, 1, &r);
	assert_int_equal(r.entries_diff, -1);
	assert_int_equal(r.time_diff_ns, -500000);
	assert_true(r.time_ok);
	/* the same -500 us with equal counts is a mismatch (500000 > 22000) */
	st = check_st(10, 500 * US, 10);
	check_state(&s, &st, 1, &r);
	assert_false(r.time_ok);
	/* the upper bound still applies: +22000 ok, +22001 not */
	st = check_st(10, 1 * MS + 22000, 11);
	check_state(&s, &st, 1, &r);
	assert_true(r.time_ok);
	st = check_st(10, 1 * MS + 22001, 11);
	check_state(&s, &st, 1, &r);
	assert_false(r.time_ok);
	/* BPF counted one more (diff +1): the lower bound stays, -22000 ok,
	 * -22001 not */
	st = check_st(10, 1 * MS - 22000, 9);
	check_state(&s, &st, 1, &r);
	assert_true(r.time_ok);
	st = check_st(10, 1 * MS - 22001, 9);
	check_state(&s, &st, 1, &r);
	assert_false(r.time_ok);
}

static void test_check_miss_and_unavailable(void **state)
{
	struct summary s = check_summary(0);
	struct state_summary st;
	struct check_row r;

	(void)state;
	st = check_st(10, 1 * MS, 10);
	st.above = 4;
	st.below = 1;
	st.have_miss = true;
	st.miss_above = 5;
	st.miss_below = 3;
	st.kernel.has_miss_counters = true;
	st.kernel.above = 3;
	st.kernel.below = 3;
	check_state(&s, &st, 1, &r);
	/* classification: 4 - 3 = 1, 1 - 3 = -2; misses: 5 - 3 = 2, 3 - 3 = 0 */
	assert_int_equal(r.above_diff, 1);
	assert_int_equal(r.below_diff, -2);
	assert_true(r.miss_available);
	assert_int_equal(r.miss_above_diff, 2);
	assert_int_equal(r.miss_below_diff, 0);
	assert_true(r.miss_ok);
	/* miss_below 0 vs 3: -3 beyond 2 */
	st.miss_below = 0;
	check_state(&s, &st, 1, &r);
	assert_false(r.miss_ok);
	/* without cpu_idle_miss there is nothing to compare */
	st.have_miss = false;
	check_state(&s, &st, 1, &r);
	assert_false(r.miss_available);
	assert_int_equal(r.miss_above_diff, 0);
	/* no kernel above/below files: no classification diffs either */
	st.kernel.has_miss_counters = false;
	check_state(&s, &st, 1, &r);
	assert_int_equal(r.above_diff, 0);
	assert_int_equal(r.below_diff, 0);
	/* no sysfs counters at all */
	st.kernel.valid = false;
	check_state(&s, &st, 1, &r);
	assert_false(r.available);
	assert_false(r.entries_ok);
	assert_int_equal(r.entries_allowed, 0);
}

static void test_check_verdict(void **state)
{
	struct summary s = check_summary(0);
	struct cpu_summary cpus[2];

	(void)state;
	memset(cpus, 0, sizeof(cpus));
	s.cpus = cpus;
	s.nr_cpus = 2;
	cpus[0].nr_states = cpus[1].nr_states = 2;
	/* no state has counters */
	assert_string_equal(check_verdict(&s), "unavailable");
	/* all agree */
	cpus[0].states[1] = check_st(10, 1 * MS, 10);
	cpus[1].states[0] = check_st(10, 1 * MS + 5000, 9);
	assert_string_equal(check_verdict(&s), "ok");
	/* one entries mismatch on cpu1: 10 vs 13 */
	cpus[1].states[0] = check_st(10, 1 * MS, 13);
	assert_string_equal(check_verdict(&s), "mismatch");
	/* one time mismatch: +30000 > 22000 */
	cpus[1].states[0] = check_st(10, 1 * MS + 30000, 10);
	assert_string_equal(check_verdict(&s), "mismatch");
	/* miss mismatch: miss_above 9 vs kernel above 0 */
	cpus[1].states[0] = check_st(10, 1 * MS, 10);
	cpus[1].states[0].have_miss = true;
	cpus[1].states[0].miss_above = 9;
	cpus[1].states[0].kernel.has_miss_counters = true;
	assert_string_equal(check_verdict(&s), "mismatch");
	/* states beyond nr_states are ignored */
	cpus[1].nr_states = 0;
	assert_string_equal(check_verdict(&s), "ok");
	/* no CPUs */
	s.nr_cpus = 0;
	assert_string_equal(check_verdict(&s), "unavailable");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sysfs_root_and_readers, build_tree, destroy_tree),
		cmocka_unit_test_setup_teardown(test_sysfs_long_root, build_tree, destroy_tree),
		cmocka_unit_test_setup_teardown(test_topology_read, build_tree, destroy_tree),
		cmocka_unit_test_setup_teardown(test_topology_fallbacks, build_tree, destroy_tree),
		cmocka_unit_test_setup_teardown(test_topology_sparse_and_missing, build_tree,
						destroy_tree),
		cmocka_unit_test_setup_teardown(test_topology_long_cluster_list, build_tree,
						destroy_tree),
		cmocka_unit_test_setup_teardown(test_cpuidle_read_system, build_tree, destroy_tree),
		cmocka_unit_test_setup_teardown(test_cpuidle_read_cpu0, build_tree, destroy_tree),
		cmocka_unit_test_setup_teardown(test_cpuidle_read_cpu_qos_and_disable, build_tree,
						destroy_tree),
		cmocka_unit_test_setup_teardown(test_cpuidle_poll_limit, build_tree, destroy_tree),
		cmocka_unit_test_setup_teardown(test_cpuidle_read_cpu_edges, build_tree, destroy_tree),
		cmocka_unit_test_setup_teardown(test_cpuidle_read_counters, build_tree, destroy_tree),
		cmocka_unit_test_setup_teardown(test_cpuidle_counter_files, build_tree, destroy_tree),
		cmocka_unit_test_setup_teardown(test_cpuidle_counter_fds, build_tree, destroy_tree),
		cmocka_unit_test_setup_teardown(test_cpuidle_to_params, build_tree, destroy_tree),
		cmocka_unit_test_setup(test_model_per_state, build_model),
		cmocka_unit_test_setup(test_model_pack_top_tasks, build_model),
		cmocka_unit_test_setup(test_model_edges_and_status, build_model),
		cmocka_unit_test_setup(test_model_enter_at_stop, build_model),
		cmocka_unit_test_setup(test_model_totals, build_model),
		cmocka_unit_test_setup(test_model_selection_and_kernel_deltas, build_model),
		cmocka_unit_test_setup(test_model_warnings, build_model),
		cmocka_unit_test_setup(test_model_no_driver, build_model),
		cmocka_unit_test(test_check_entries),
		cmocka_unit_test(test_check_entries_snapshot_allowance),
		cmocka_unit_test(test_check_edge_exits),
		cmocka_unit_test(test_check_time),
		cmocka_unit_test(test_check_time_edge_periods),
		cmocka_unit_test(test_check_time_kernel_counted_more),
		cmocka_unit_test(test_check_miss_and_unavailable),
		cmocka_unit_test(test_check_verdict),
	};

	return cmocka_run_group_tests_name("sysfs_model", tests, NULL, NULL);
}
