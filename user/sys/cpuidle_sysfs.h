/* The kernel's view of cpuidle from sysfs: driver, governor, per-CPU state
 * tables (the classification parameters) and per-state counters (the oracle
 * the tool cross-checks itself against). */
#ifndef IDLESCOPE_CPUIDLE_SYSFS_H
#define IDLESCOPE_CPUIDLE_SYSFS_H

#include <stdbool.h>
#include <stdint.h>

#include "util/cpulist.h"
#include "idle_stats.h"

#define IS_NAME_LEN 32

struct cpuidle_state_info {
	char name[IS_NAME_LEN];
	char desc[64];
	uint64_t exit_latency_ns;
	uint64_t target_residency_ns;
	bool disabled;
	bool poll;
};

struct cpuidle_cpu_info {
	int nr_states; /* 0: no cpuidle driver for this CPU */
	struct cpuidle_state_info states[IS_MAX_STATES];
	uint64_t dev_qos_ns;    /* cpuN/power/pm_qos_resume_latency_us, UINT64_MAX = none */
	uint64_t qos_limit_ns;  /* min(global, device) limit, UINT64_MAX = none */
	uint64_t poll_limit_ns; /* cpuidle_poll_time(), 0 = unknown (haltpoll governor) */
	bool unclassified;      /* states known by index only (a replayed trace without a
				 * table): no targets, no above/below */
};

/* Cumulative kernel counters of one state; has_* say which files exist on
 * this kernel (above/below: 5.0, rejected: 5.10). */
struct cpuidle_counters {
	bool valid;
	bool has_miss_counters;
	bool has_rejected;
	uint64_t usage;
	uint64_t time_us;
	uint64_t above;
	uint64_t below;
	uint64_t rejected;
};

struct cpuidle_system {
	char driver[IS_NAME_LEN];   /* "none" without a driver */
	char governor[IS_NAME_LEN]; /* "" when unknown */
	uint64_t guest_halt_poll_ns;
	uint64_t tick_ns;
};

void cpuidle_read_system(struct cpuidle_system *sys);
/* Reads cpu's state table, disable flags and QoS limit; global_qos_ns is
 * cpuidle_global_qos_ns(), read once for all CPUs. */
/* How many states per CPU the BPF per-state maps need: the most any of the
 * n CPUs has, and at least 2 (without a driver, default_idle_call reports
 * state 1). */
int cpuidle_state_slots(const struct cpuidle_cpu_info *info, int n);
void cpuidle_read_cpu(const struct cpuidle_system *sys, int cpu, struct cpuidle_cpu_info *info,
		      uint64_t global_qos_ns);
/* Re-reads only what changes at run time: disable flags, QoS, poll limit. */
void cpuidle_refresh_cpu(const struct cpuidle_system *sys, int cpu, struct cpuidle_cpu_info *info,
			 uint64_t global_qos_ns);
void cpuidle_read_counters(int cpu, int nr_states, struct cpuidle_counters *out);

/* The same counters for many CPUs, read as a burst with usage of every
 * state next to the window's edge. That keeps the edges (periods ending
 * while we read) small. Only the cpu root directory stays open (each counter is
 * opened for its read), so the descriptors do not grow with CPUs x states. */
struct cpuidle_counter_files {
	int nr_cpus;
	int root_fd;      /* <sysfs>/devices/system/cpu, -1 if absent */
	int *nr_states;   /* [cpu] states read, 0 = not selected */
	uint64_t *dev_id; /* [cpu] cpuidle_device_id() when opened */
};

/* Starts reading the CPUs in sel (info gives each CPU's state count).
 * Returns 0 or -1 (out of memory). */
int cpuidle_counters_open(struct cpuidle_counter_files *f, int nr_cpus, const struct cpulist *sel,
			  const struct cpuidle_cpu_info *info);
/* Which edge of the window a snapshot is taken at: usage is read last
 * before the start and first after the stop, the other counters on the far
 * side, so periods ending between the usage reads and the edge stay few. */
enum counters_edge { COUNTERS_BEFORE_START, COUNTERS_AFTER_STOP };
/* Fills out[cpu * IS_MAX_STATES + state] for the opened CPUs. A CPU whose
 * cpuidle device was registered again since the open (counters zeroed)
 * reads as invalid at the stop until reopened. */
void cpuidle_counters_snapshot(const struct cpuidle_counter_files *f, struct cpuidle_counters *out,
			       enum counters_edge edge);
void cpuidle_counters_close(struct cpuidle_counter_files *f);
/* Accepts cpu's current device and state table: after hotplug, when the
 * caller has judged the counters still comparable. Returns 0 or -1. */
int cpuidle_counters_reopen_cpu(struct cpuidle_counter_files *f, int cpu,
				const struct cpuidle_cpu_info *info);
/* Identity (inode) of cpu's cpuidle directory, 0 if absent. It changes only
 * when the device is unregistered and registered again, which also zeroes
 * its counters (a driver's hotplug callback may do that: haltpoll does);
 * enabling a device again (acpi_idle) keeps both. */
uint64_t cpuidle_device_id(int cpu);
/* Sets info->qos_limit_ns from a fresh global limit and the cached device one. */
void cpuidle_apply_qos(struct cpuidle_cpu_info *info, uint64_t global_qos_ns);
/* The states (bit i) whose wakers send no IPI (POLL; MWAIT, which watches
 * the need-resched flag): a period of one that ends with work queued and
 * no interrupt seen was ended without an IPI (bpf/wake.bpf.h). Without a
 * driver x86 idles in mwait_idle only where the CPU has MONITOR/MWAIT
 * (mwait); else in HLT, which no waker ends without an IPI. Not HLT, WFI or
 * IO-port C-states: their IPI runs inside the period or after the exit. */
uint32_t cpuidle_noipi_mask(const struct cpuidle_cpu_info *info, bool x86, bool mwait);
/* Whether a /proc/cpuinfo line is the "flags" line and has flag, a whole word. */
bool cpuinfo_flag(const char *line, const char *flag);
/* Whether /proc/cpuinfo's flags have "monitor" (MONITOR/MWAIT), read once. */
bool cpu_has_monitor(void);
/* The BPF classification table for info. */
void cpuidle_to_params(const struct cpuidle_cpu_info *info, struct idle_params *p);
/* cpu's resume-latency limit (power/pm_qos_resume_latency_us) in ns:
 * UINT64_MAX = none ("0" or no file), 0 = "n/a" (no latency allowed). */
uint64_t cpuidle_dev_qos_ns(int cpu);
/* Global PM QoS CPU latency limit in ns (UINT64_MAX = none). */
uint64_t cpuidle_global_qos_ns(void);

#endif
