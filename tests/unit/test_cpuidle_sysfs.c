/* Unit tests for user/sys/cpuidle_sysfs.c: the driver, governor and state
 * tables, PM QoS, and the counter snapshots, against the fake tree of
 * fake_sysfs.h. Every expected value is worked out by hand in the comment
 * next to it. */
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

#include "sys/cpuidle_sysfs.h"
#include "sys/sysfs.h"
#include "fake_sysfs.h"

#define US 1000ULL

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
	/* POLL and the three MWAIT states: wakers need no IPI */
	assert_int_equal(p.noipi_mask, 0xf);
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

/* Which states' wakes can come without an IPI (bpf/wake.bpf.h
 * noipi_at_exit): by the state's name and description, as sysfs has them. */
static void test_cpuidle_noipi_mask(void **state)
{
	static const char *const acpi[][2] = {
		{ "POLL", "CPUIDLE CORE POLL IDLE" }, /* polls: bit 0 */
		{ "C1", "ACPI HLT" },                 /* IPI runs inside HLT */
		{ "C2", "ACPI FFH MWAIT 0x10" },      /* MWAIT watches the flag: bit 2 */
		{ "C3", "ACPI IOPORT 0x414" },        /* IPI after the exit */
	};
	struct cpuidle_cpu_info info;

	(void)state;
	memset(&info, 0, sizeof(info));
	/* no driver: x86's mwait_idle watches the flag (state 1, only with
	 * MWAIT), its HLT needs an IPI, and idle=poll polls (state 0); arm64's
	 * WFI takes it after the exit */
	assert_int_equal(cpuidle_noipi_mask(&info, true, true), 0x3);
	assert_int_equal(cpuidle_noipi_mask(&info, true, false), 0x1);
	assert_int_equal(cpuidle_noipi_mask(&info, false, false), 0);
	info.nr_states = 4;
	for (int i = 0; i < 4; i++) {
		snprintf(info.states[i].name, sizeof(info.states[i].name), "%s", acpi[i][0]);
		snprintf(info.states[i].desc, sizeof(info.states[i].desc), "%s", acpi[i][1]);
		info.states[i].poll = i == 0;
	}
	assert_int_equal(cpuidle_noipi_mask(&info, true, false), 0x5); /* 0b0101 */
	/* haltpoll: POLL, then HLT ("haltpoll idle") */
	info.nr_states = 2;
	snprintf(info.states[1].name, sizeof(info.states[1].name), "haltpoll idle");
	snprintf(info.states[1].desc, sizeof(info.states[1].desc), "default architecture idle");
	assert_int_equal(cpuidle_noipi_mask(&info, true, false), 0x1);
	/* arm64 PSCI: WFI and deeper, none polls */
	info.states[0].poll = false;
	snprintf(info.states[0].name, sizeof(info.states[0].name), "WFI");
	snprintf(info.states[0].desc, sizeof(info.states[0].desc), "ARM WFI");
	assert_int_equal(cpuidle_noipi_mask(&info, false, false), 0);
}

/* The MWAIT test's parse of /proc/cpuinfo (cpu_has_monitor): whole words
 * of the flags line only. */
static void test_cpuinfo_flag(void **state)
{
	(void)state;
	assert_true(cpuinfo_flag("flags\t\t: fpu vme sse3 monitor ssse3\n", "monitor"));
	assert_true(cpuinfo_flag("flags\t\t: fpu monitor\n", "monitor")); /* last */
	assert_true(cpuinfo_flag("flags\t\t: fpu monitor", "monitor"));
	/* AMD's MWAITX is another flag, and so is a word that ends in it */
	assert_false(cpuinfo_flag("flags\t\t: fpu monitorx mwaitx\n", "monitor"));
	assert_false(cpuinfo_flag("flags\t\t: fpu xmonitor\n", "monitor"));
	assert_false(cpuinfo_flag("bugs\t\t: monitor\n", "monitor"));
	assert_false(cpuinfo_flag("flags\t\t monitor\n", "monitor")); /* no ':' */
	assert_false(cpuinfo_flag("flags\t\t: fpu vme\n", "monitor"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
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
		cmocka_unit_test(test_cpuidle_noipi_mask),
		cmocka_unit_test(test_cpuinfo_flag),
	};

	return cmocka_run_group_tests_name("cpuidle_sysfs", tests, NULL, NULL);
}
