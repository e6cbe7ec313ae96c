/* The summary model: plain structs built from BPF snapshots and sysfs, and
 * the only input of every renderer (table, CSV, JSON). */
#ifndef IDLESCOPE_MODEL_H
#define IDLESCOPE_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/exit_cost.h"
#include "model/qos_summary.h"
#include "model/haltpoll.h"
#include "sys/cpuidle_sysfs.h"
#include "session/snapshot.h"
#include "sys/group_tree.h"
#include "sys/hotplug.h"
#include "sys/topology.h"
#include "wake_stats.h"

#define IS_SCHEMA "idlescope/1"

/* Kernel counters' change over the window (sysfs end - start). */
struct kernel_delta {
	bool valid;
	bool has_miss_counters;
	bool has_rejected;
	uint64_t usage;
	uint64_t time_ns; /* sysfs time is in us */
	uint64_t above;
	uint64_t below;
	uint64_t rejected;
};

struct state_summary {
	int index;
	char name[IS_NAME_LEN];
	char desc[64];
	uint64_t exit_latency_ns;
	uint64_t target_residency_ns;
	bool disabled;
	bool poll;
	bool classified; /* above/below/ideal meaningful (a driver table exists) */
	uint64_t entries;
	uint64_t time_ns;
	uint64_t min_ns, avg_ns, max_ns;
	uint64_t p50_ns, p90_ns, p99_ns;
	uint64_t above, below, below_qos, poll_limit;
	bool poll_limit_known; /* a polling state whose limit sysfs tells */
	bool have_miss; /* cpu_idle_miss was attached */
	uint64_t miss_above, miss_below;
	uint64_t early, early_ns; /* shorter than the target residency, and their time */
	struct exit_cost exit;    /* exit_cost_state() */
	bool have_fexit; /* fx_*: fexit on the cpuidle entry was attached */
	bool have_gov;   /* gov: the governor's inputs were watched */
	uint64_t fx_entered, fx_rejected, fx_demoted;
	uint64_t ideal[IS_MAX_STATES];
	uint64_t hist[IS_HIST_BUCKETS];
	struct kernel_delta kernel;
	/* periods BPF saw end outside the window while the sysfs snapshots were
	 * read (this state's, plus the CPU's of unknown state): the kernel's
	 * deltas may hold them (kernel_check.h) */
	uint64_t edge_exits;
	/* why the governor missed (include/idle_stats.h, gov_*): periods
	 * whose inputs were seen, and the split of their misses */
	struct gov_split {
		uint64_t known, above_near, above_unannounced;
		uint64_t below_tick, below_history, below_timer;
		/* of above_unannounced, by the cause of the wake (wakeups on) */
		uint64_t above_cause[WAKE_NR_KINDS];
		/* periods a timer ended, with the inputs seen: that timer's
		 * expiry later or earlier than the next event the governor was
		 * told of (by more than GOV_TIMER_TOLERANCE_NS), |difference| */
		uint64_t timer_known, timer_later, timer_earlier, timer_tick_first;
		uint64_t timer_err_sum_ns, timer_err_max_ns;
	} gov;
};

/* Timer lateness of the periods a timer ended, for one idle state. */
struct lat_summary {
	uint64_t count, sum_ns, min_ns, max_ns;
	uint64_t p50_ns, p90_ns, p99_ns;
	uint64_t hist[IS_HIST_BUCKETS];
};

/* What ended the counted idle periods of a CPU (or all CPUs). */
struct wake_summary {
	uint64_t count[WAKE_NR_KINDS];
	uint64_t early[WAKE_NR_KINDS]; /* shorter than the entered state's target */
	uint64_t total;                /* sum of count[], = the CPU's entries */
	uint64_t in_flight;            /* cause still pending at the end: unknown, or a polling mark */
	uint64_t detail_drops;
	struct lat_summary lat[IS_MAX_STATES]; /* parallel to cpu_summary.states */
};

/* The cause a wake still pending in slot counts under: unknown, or without
 * an IPI where a waker marked the CPU polling during it and nothing came
 * since (bpf/wake.bpf.h, noipi_take). */
int wake_pending_kind(const struct idle_cpu_slot *slot);

/* One line of the detail tables: an IRQ, softirq, timer function or wakee. */
struct wake_row {
	int cpu;
	int kind;      /* enum wake_detail_kind */
	uint32_t aux;  /* WDETAIL_WAKEE: waker CPU */
	uint64_t detail;
	uint64_t count, early;
	char name[64]; /* IRQ action, softirq, symbol, or comm */
};

/* Wake rows by count descending, then a key (cpu, kind, name, detail, aux)
 * that orders every tie: the BPF hash maps' order differs from run to run. */
int wake_row_cmp(const struct wake_row *x, const struct wake_row *y);

/* All-idle time of a topology group (cluster, package, ...). */
struct group_summary {
	int id;          /* the group's index in the tree (struct groups) */
	char name[32];   /* "cluster0", "package0", "custom1" */
	char level[16];  /* "core", "cluster", "die", "package", "freq-domain", "custom" */
	char parent[32]; /* the enclosing group's name, "" at the top */
	int index;       /* within its level: the 3 of "cluster3" */
	char *cpus;      /* members, as a CPU list of any length (summary_free) */
	uint64_t periods, time_ns;
	uint64_t min_ns, avg_ns, max_ns, p50_ns, p90_ns, p99_ns;
	uint64_t hist[IS_HIST_BUCKETS];
	int nr_states;
	struct {
		int index;
		char name[IS_NAME_LEN];
		uint64_t periods, time_ns;
	} states[IS_MAX_STATES]; /* by group state: the shallowest member state */
	uint64_t edge_idle_ns; /* all idle at the end of the window */
	bool idle_at_end;
	uint64_t races;
	uint64_t folded; /* periods whose state is only known as >= its last field's */
};

/* Packing over the groups (record --packing). */
struct pack_task_row {
	uint32_t pid;
	char comm[16];
	uint64_t total_ns;
	uint64_t group_ns[8]; /* the packing level's first 8 groups, by index in the level */
};

struct pack_summary {
	bool enabled;
	char level[16];                 /* the level whose groups it counts */
	int nr_groups;                  /* groups of that level */
	int nr_slots;                   /* nr_groups + 1 */
	uint64_t busy_ns[IS_PACK_SLOTS]; /* time with k groups busy */
	uint64_t spread_ns;
	uint32_t max_group_cpus;
	uint64_t cross_wakeups, cross_migrations, lost_updates, task_drops;
	int nr_tasks;
	struct pack_task_row tasks[10]; /* top by runtime */
};

/* Time at each frequency (power:cpu_frequency + a start snapshot). */
struct freq_summary {
	int nr;
	uint32_t khz[IS_FREQ_SLOTS];
	uint64_t time_ns[IS_FREQ_SLOTS];
	uint64_t changes, drops;
};

struct cpu_summary {
	int cpu; /* -1 for totals */
	bool online;
	int nr_states;
	struct state_summary states[IS_MAX_STATES];
	uint64_t entries;
	uint64_t idle_ns;      /* completed periods inside the window */
	uint64_t edge_idle_ns; /* idle at the window's edges (periods in flight) */
	uint64_t busy_ns;      /* window - idle - edge idle - offline */
	uint64_t offline_ns;   /* hot-unplugged inside the window (polled) */
	uint32_t hotplug_events; /* offline and online transitions seen */
	uint32_t offline_periods; /* gaps: went offline, or offline at the start */
	uint64_t unmatched_exits;
	uint64_t orphan_exits; /* of them, after the CPU's first idle event: enter lost */
	uint64_t lost_exits;   /* enters while a period was open: its exit lost */
	int64_t idle_task_ns;  /* the idle task ran (replay, sched_switch), -1 unknown */
	uint64_t bad_state;
	bool idle_at_end;
	const char *status; /* "ok", "offline", "no idle events" */
	struct wake_summary wake;
	struct exit_cost exit; /* over its states, exit_cost_cpu() */
	struct freq_summary freq;
	struct haltpoll_summary haltpoll; /* .known with halt-polling counted */
	int64_t capacity;          /* cpu_capacity, -1 unknown */
	uint64_t util_avg, util_max; /* time-weighted root cfs_rq util_avg */
};

struct summary {
	const char *command; /* "record" when NULL; "replay" for trace import */
	bool idle_unrecorded; /* no idle events recorded at all: idle and busy unknown */
	char kernel[65];
	uint64_t start_ns, duration_ns;
	uint64_t snapshot_ns; /* sysfs snapshot reads, start + end */
	struct cpuidle_system sys;
	const struct topology *topo;
	const char *idle_attach;
	const char *miss_attach; /* NULL: cpu_idle_miss not available */
	int nr_cpus;
	struct cpu_summary *cpus; /* selected CPUs, ascending */
	struct cpu_summary totals;
	uint64_t cpu_out_of_range;
	bool wake_enabled;
	const char *missing_events; /* optional events this kernel lacks, or "" */
	const char *without;        /* parts left out (--without), "timers,details", or NULL */
	/* where entries' outcomes come from: fexit on this function, or NULL
	 * for the tracepoints alone (idle_fexit_why says why) */
	const char *idle_fexit_func;
	const char *idle_fexit_why;
	int nr_wake_rows;
	struct wake_row *wake_rows; /* selected CPUs, by count descending */
	char group_level[96];       /* the levels, smallest first: "core,package"; "" when off */
	int nr_levels;
	struct {
		char name[16];
		int groups;
		/* fetch-and-adds on the level's nodes since attaching: the
		 * cost of group idle, per level (replay: the whole trace) */
		uint64_t node_updates;
	} levels[IS_MAX_LEVELS];
	int nr_groups;
	struct group_summary *groups;
	struct pack_summary pack;
	const char *freq_status;  /* "ok", or why there is no frequency residency */
	/* EAS context (userspace) and, with --packing, the bare tracepoints */
	int sched_energy_aware;   /* -1: no such sysctl */
	const char *energy_model; /* "present", "absent", "unknown (debugfs not mounted)" */
	bool have_capacity;
	bool have_util;           /* pelt_cfs_tp attached */
	bool have_ou;             /* sched_overutilized_tp attached */
	uint64_t overutilized_ns;
	int nr_freq_domains;
	/* cpus: a CPU list of any length, freed by summary_free */
	struct { char name[16]; char *cpus; int cpu; } freq_domains[64];
	bool hotplug_seen; /* any CPU went offline or online in the window */
	/* the governor's inputs were watched (bpf/gov.bpf.h); gov_why says why
	 * not (NULL: not asked, as in replay without them) */
	bool gov_inputs;
	const char *gov_why;
	struct summary_qos qos; /* the PM QoS ledger (model/qos_summary.h) */
	/* live record: how every CPU's state was known when the window opened
	 * (the poke after attaching, session/idle_loader.h); not for replay */
	struct {
		bool live;
		int unknown_cpus;  /* online CPUs of unknown state at the start, -1 unread */
		int poked;         /* CPUs poked (of unknown state after the attach) */
		int poked_busy;    /* of those, running a task */
		int poked_woken;   /* of the others (idle), left idle and entered it again */
		uint64_t poke_ns;
		const char *poke_why; /* "" when every such CPU was poked, else why not */
	} start_state;
	int nr_warnings;
	char **warnings;
};

/* What summary_build reads of one window: its edges, the BPF counters and
 * the sysfs counters captured at its start and end, the tables and groups. */
struct window_capture {
	uint64_t start_ns, stop_ns;
	uint64_t snapshot_ns; /* time spent reading the sysfs snapshots */
	const struct idle_raw *raw;             /* BPF counters at stop */
	const struct cpuidle_cpu_info *info;     /* [nr_possible] */
	const struct cpuidle_counters *k_start;  /* [nr_possible * IS_MAX_STATES] */
	const struct cpuidle_counters *k_end;
	const struct groups *groups;             /* NULL: no group rows */
	const struct hotplug *hotplug;           /* NULL: not tracked */
	const struct qos_ledger *ledger;         /* NULL: no PM QoS ledger kept */
	uint64_t qos_lost;                       /* its records lost (ring full) */
	/* a replayed trace: [nr_possible] the time the idle task ran (from
	 * sched_switch, -1 unknown), NULL none; idle_unrecorded: no cpu_idle
	 * events at all, so idle and busy are unknown */
	const int64_t *idle_task_ns;
	bool idle_unrecorded;
	/* names for the wakeup detail rows, looked up by the caller's layer
	 * (sys/interrupts.h, sys/kallsyms.h): NULL leaves IRQs unnamed and timer
	 * functions as addresses */
	void (*irq_name)(unsigned int irq, char *buf, size_t len);
	void (*ksym_resolve)(const uint64_t *addr, int n, char (*names)[64]);
};

/* Builds s for the CPUs in sel. Returns 0 or -ENOMEM. */
int summary_build(struct summary *s, const struct window_capture *w, const struct cpulist *sel);
void summary_warn(struct summary *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void summary_free(struct summary *s);

/* Some selected CPU has states to choose between, classified by their table
 * (a driver's): what the kernel's rule, QoS forcing and the governor split
 * need. */
bool summary_classified(const struct summary *s);

/* Name shown for state i of a CPU without a driver table. */
const char *default_idle_state_name(int i);

#endif
