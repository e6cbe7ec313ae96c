/* info's output: what this kernel and build support, the cpuidle, cpufreq
 * and topology the reports rest on, and with --costs what each part costs;
 * the table or "idlescope-info/1" JSON. */
#ifndef IDLESCOPE_RENDER_INFO_H
#define IDLESCOPE_RENDER_INFO_H

#include <stdbool.h>
#include <stdio.h>

#include "render/render.h"

/* One probed feature: a stable key (JSON, docs/compat.md), whether the kernel
 * has it, what was found, and what idlescope does without it. */
struct info_feature {
	const char *key;
	const char *label;
	bool available;
	char detail[192];
	const char *cost;
};

/* One configuration of info --costs; throughput relative to the
 * un-observed runs (0 when unknown), its spread over the runs. */
struct info_cost_config {
	const char *name;
	bool observed;
	double rounds_per_s;
	double ratio, ratio_min, ratio_max;
	double bpf_ns_per_round, idle_ns_per_event, idle_events_per_round;
};

/* What one optional part adds: per round trip, and as a share of the
 * default's round trip. */
struct info_cost_part {
	const char *part;
	double bpf_ns_per_round, share, idle_ns_per_event;
};

struct info_costs {
	int cpu_a, cpu_b;
	long rounds;
	int runs;
	int nr_configs, nr_parts;
	const struct info_cost_config *configs;
	const struct info_cost_part *parts;
};

/* What one live command adds to an idle machine's wakeups (info --costs). */
struct info_wake_cost {
	const char *command;
	bool reference;     /* the 1 Hz ticker whose added wakeups are a tick's cost */
	double ticks_per_s; /* its own ticks, allowed */
	double own_per_s;   /* its threads' voluntary switches per second */
	double added, added_min, added_max; /* idle periods /s/CPU beyond the un-observed */
	double tick_cost;   /* what its ticks cost: ticks x the reference's added */
	double beyond;      /* added beyond that (NAN for the reference) */
};

struct info_wakeups {
	const char *oracle; /* what counted the idle periods */
	int nr_cpus, reps;
	double window_s, settle_s, base_per_s_cpu;
	int nr;
	const struct info_wake_cost *c;
};

/* Who keeps the CPUs out of deep idle now (sys/qos_holders.h). */
struct info_qos_holder {
	int pid;
	const char *comm;
	int requests; /* its descriptors open on /dev/cpu_dma_latency */
};

struct info_qos_cpu {
	int cpu;
	uint64_t limit_ns; /* its resume-latency limit; 0: "n/a", no latency allowed */
};

struct info_qos {
	uint64_t limit_ns;   /* /dev/cpu_dma_latency's aggregate, UINT64_MAX = none */
	const char *deepest; /* the deepest state that limit leaves reachable on CPU 0, "" none known */
	int nr_holders;
	const struct info_qos_holder *holders;
	int unlisted;        /* processes whose descriptors could not be read */
	int nr_cpus;         /* CPUs with a resume-latency limit */
	const struct info_qos_cpu *cpus;
	bool haltpoll;       /* the haltpoll governor's parameters, where it exists */
	bool haltpoll_in_use; /* and it is the current governor */
	uint64_t poll_ns, grow, grow_start, shrink;
	bool allow_shrink;
};

struct info_report {
	const char *release, *version, *machine; /* uname */
	/* the build */
	const char *build_version, *linkage, *trace_dat;
	const char *lacks; /* "" when it lacks nothing */
	bool https;
	int nr_features;
	const struct info_feature *features;
	/* record's idle path: fexit on idle_func, or the tracepoints for idle_why */
	bool idle_fexit;
	const char *idle_func, *idle_why;
	const char *driver, *governor; /* governor "" when unknown */
	int nr_states;
	const char *states;            /* "POLL 0/0us, C1 2/2us" */
	const char *cpufreq;           /* its driver, "" when absent */
	bool have_topo;                /* the rest is known */
	int possible_cpus, packages, dies, clusters;
	const char *online;            /* a CPU list */
	const char *levels;            /* record's default groups: "core 16, package 2" */
	const struct info_qos *qos;
	const struct info_costs *costs; /* NULL without --costs */
	const struct info_wakeups *wakeups; /* NULL without --costs */
};

/* FMT_JSON, else the table. Returns 0, or -1 when the output failed. */
int render_info(FILE *f, enum out_format fmt, const struct info_report *r);

#endif
