/* Loads, attaches and reads the idle BPF programs (bpf/idlescope.bpf.c): picks
 * the object and program variants from the shared probe (kernel_features.c),
 * sizes the per-CPU maps, and snapshots them. A replay session is fed by
 * session/replay_drive.h. */
#ifndef IDLESCOPE_IDLE_LOADER_H
#define IDLESCOPE_IDLE_LOADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "idle_stats.h"
#include "wake_stats.h"
#include "hist_data.h"
#include "group_stats.h"
#include "pack_stats.h"
#include "freq_stats.h"
#include "haltpoll_stats.h"
#include "replay_event.h"
#include "qos_stats.h"

struct ring_buffer; /* libbpf's */
#include "util/cpulist.h"
#include "sys/group_tree.h"
#include "session/qos_ledger.h"

struct idlescope_bpf;
struct bpf_link;
struct bpf_program;

#define IS_MAX_LINKS 32

/* `idlescope hist`: the one histogram a session loads. */
struct hist_opts {
	uint32_t metric;        /* enum hist_metric, HM_NONE for record */
	uint64_t unit_ns;       /* log2 display unit */
	uint64_t linear_ns;     /* linear step, 0 = log2 */
	uint32_t tgid;          /* -p, 0 = any */
	const char *comm;       /* -c, NULL = any */
	const char *path_from, *path_to; /* path-latency: the two kernel functions */
};

/* What the poke after attaching did (bpf/poke.bpf.h, idle_session_poke). */
struct poke_result {
	char why[160];  /* "" = every unknown CPU was poked; else why not */
	int cpus;       /* CPUs poked: online, their state still unknown */
	int busy;       /* of those, running a task when poked */
	int woken;      /* of the others (idle), left idle and entered it again */
	uint64_t ns;    /* the pokes and the wait for their idle events */
};

/* A loaded BPF object: what was loaded and attached (its links), the
 * choices made for this kernel, the poke's outcome and the window's start. */
struct idle_session {
	struct idlescope_bpf *skel;
	int object;              /* which BPF object is open (idle_loader.c object_for) */
	int nr_cpus;
	uint32_t state_slots;    /* states per CPU in the per-state maps */
	bool replay;
	bool wake;               /* wakeup attribution loaded */
	int nr_groups;           /* topology groups tracked, 0 = none */
	bool lazy_groups;        /* some counted from member slots (group_stats_cpu) */
	bool packing;
	bool freq;
	bool haltpoll;           /* halt-polling counted (bpf/haltpoll.bpf.h) */
	bool have_idle_miss;     /* cpu_idle_miss attached */
	unsigned int without;    /* enum session_part bits left out */
	const char *idle_attach; /* "tp_btf" or "raw_tp" */
	const char *miss_attach; /* "tp_btf", "raw_tp" or NULL */
	char missing[256];       /* optional events this kernel lacks, ", "-separated */
	/* record: fexit on the idle path (exact entered/rejected), or NULL when
	 * only the tracepoints are used, idle_fexit_why saying why */
	const char *idle_fexit_func;
	struct bpf_program *idle_fexit_prog;
	char idle_fexit_why[160];
	/* the governor's inputs (bpf/gov.bpf.h) attached, or gov_why says why not */
	bool gov;
	char gov_why[160];
	struct hist_opts hist;   /* the histogram loaded (hist.metric HM_NONE: none) */
	struct poke_result poke; /* live: the poke after attaching */
	int unknown_at_start;    /* online CPUs of unknown state at the start, -1 unread */
	int nr_links;
	struct bpf_link *links[IS_MAX_LINKS];
	/* PM QoS changes (bpf/qos.bpf.h): the reader of qos_ring, NULL when
	 * pm_qos_update_target did not attach (the limits are then polled) */
	bool qos_events;            /* asked for (live sessions) */
	bool hotplug_events;        /* cpuhp_exit too (live sessions) */
	bool hotplug_attached;      /* and it attached, with the reader */
	struct ring_buffer *qos_rb;
	unsigned int qos_pending;   /* IS_NOTIFY_* of the records consumed */
	struct qos_ledger *ledger;  /* fed the request records, NULL: none kept */
	uint64_t next_cut_ns;       /* a cut set ahead for the next read (raw_cut.h), 0 none */
};

/* What idle_session_open loads: the parts decided for this run. */
struct session_opts {
	bool replay; /* load only the never-attached replay program */
	/* Idle states per CPU the per-state maps hold (the most any CPU has;
	 * at least the parts of hist wakeup-latency); 0 = IS_MAX_STATES.
	 * Events of deeper states count as bad states. */
	int state_slots;
	bool wake;   /* wakeup attribution (interrupt-path programs) */
	struct hist_opts hist;  /* `idlescope hist` */
	/* group-level idle: a tree with groups turns it on */
	const struct groups *groups;
	bool packing;                   /* busy-group timeline (needs groups) */
	bool freq;                      /* frequency residency */
	/* guest halt-polling: the driver and governor are haltpoll (live:
	 * sysfs; replay: the profile, or the trace's guest_halt_poll_ns) */
	bool haltpoll;
	unsigned int without;           /* enum session_part bits left out (live) */
	bool qos_events;                /* PM QoS changes through qos_ring (live) */
	bool hotplug_events;            /* and CPU hotplug steps (live) */
};

/* Opens and loads. Returns 0, or -1 with a one-line reason in err (exit
 * code 1 material). */
int idle_session_open(struct idle_session *s, int nr_cpus, const struct session_opts *o,
		      char *err, size_t errlen);
int idle_session_set_params(struct idle_session *s, int cpu, const struct idle_params *p);
int idle_session_attach(struct idle_session *s, char *err, size_t errlen);
/* The PM QoS change events, when attached: a descriptor readable when a
 * change is waiting (-1 without: poll the limits instead), and what
 * changed since the last call (IS_NOTIFY_* bits; consumes them). */
#define IS_NOTIFY_QOS 1u     /* bpf/qos.bpf.h's QOS_NOTIFY_QOS */
#define IS_NOTIFY_HOTPLUG 2u /* QOS_NOTIFY_HOTPLUG */
#define IS_NOTIFY_REQUEST 4u /* QOS_NOTIFY_REQUEST: a request record, into s->ledger */
int idle_session_qos_fd(const struct idle_session *s);
unsigned int idle_session_qos_changed(struct idle_session *s);
/* PM QoS changes the handler saw since the load (-v). */
uint64_t idle_session_qos_changes(const struct idle_session *s);
/* Request records the ring had no room for (the ledger may be stale). */
uint64_t idle_session_qos_lost(const struct idle_session *s);
/* After attaching, makes the state of every online CPU known: each CPU that
 * has had no idle event since the attach gets the poke program run on it
 * (BPF_PROG_TEST_RUN on that CPU): an idle CPU leaves idle and enters it
 * again, seen; a busy one is marked busy. Then waits (briefly) for those
 * events. IDLESCOPE_NO_POKE skips it, IDLESCOPE_POKE_ALL (tests) pokes every
 * online CPU; poke_why says why it did not run or what failed. */
void idle_session_poke(struct idle_session *s, const struct cpulist *online);
/* Online CPUs whose state is still unknown (no idle event since the
 * attach, and not found busy by the poke), or -1 when unreadable. */
int idle_session_unknown(struct idle_session *s, const struct cpulist *online);
/* record: exits from edge_from_ns until the start are counted as edge
 * exits (the start snapshot of the sysfs counters is read meanwhile), as
 * are those after the stop. */
void idle_session_edge_from(struct idle_session *s, uint64_t edge_from_ns);
/* Exits before start_ns are not counted. */
void idle_session_start(struct idle_session *s, uint64_t start_ns);
/* A reader's cut (raw_cut.h): each CPU's first idle event after cut_ns
 * keeps its state at cut_ns, and ends after it are counted apart too. Set
 * it before cut_ns comes. */
void idle_session_cut(struct idle_session *s, uint64_t cut_ns);
/* Periods that end after stop_ns are not counted from now on. */
void idle_session_stop(struct idle_session *s, uint64_t stop_ns);
void idle_session_close(struct idle_session *s);

struct cpuidle_system;
struct cpuidle_cpu_info;
/* The live sysfs tables of CPUs 0..n-1 into the params map: with all_files,
 * disable flags and poll limits are read again, otherwise only PM QoS is
 * applied. A CPU's map entry is written only when it differs from
 * prev[cpu], which then holds it. */
void idle_session_push_cpuidle(struct idle_session *s, const struct cpuidle_system *sys,
			       struct cpuidle_cpu_info *info, struct idle_params *prev, int n,
			       bool all_files);

/* Before attach: cpu runs at khz (scaling_cur_freq), charged from the start. */
int idle_session_set_freq(struct idle_session *s, int cpu, uint32_t khz);


/* libbpf's log to stderr (-v) or nowhere. */
void idle_set_verbose(bool verbose);

#endif
