/* A fake sysfs tree for the readers' unit tests (test_sysfs.c,
 * test_topology.c, test_cpuidle_sysfs.c): four CPUs under a mkdtemp()
 * directory named by IDLESCOPE_SYSFS, built by build_tree and removed by
 * destroy_tree. Include it after cmocka.h; every helper is static. */
#ifndef IDLESCOPE_TEST_FAKE_SYSFS_H
#define IDLESCOPE_TEST_FAKE_SYSFS_H

#include <errno.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CPU "devices/system/cpu"


static char fake_root[256];

/* Writes content to root-relative path rel (printf-style), creating the
 * directories on the way. Truncates an existing file in place, so open
 * descriptors see the new content. */
static void fs_put(const char *content, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), unused));
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

static void fs_rm(const char *fmt, ...) __attribute__((format(printf, 1, 2), unused));
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
	static const char *const capacity[3] = { "1024\n", "1024\n", "446\n" }; /* cpu3: none */

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
		if (c < 3) {
			fs_put(qos[c], CPU "/cpu%d/power/pm_qos_resume_latency_us", c);
			fs_put(capacity[c], CPU "/cpu%d/cpu_capacity", c);
		}
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

#endif
