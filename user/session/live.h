/* The live path every measuring command shares (record, top, serve, hist):
 * the per-CPU cpuidle tables, --topology groups, the BPF session loaded with
 * its parameters and attached, the refresh tick, and teardown, in the order
 * session/live_run.h runs them. */
#ifndef IDLESCOPE_LIVE_H
#define IDLESCOPE_LIVE_H

#include <stdbool.h>
#include <stdint.h>

#include "session/idle_loader.h"
#include "session/qos_ledger.h"
#include "sys/cpuidle_sysfs.h"
#include "sys/group_tree.h"
#include "sys/hotplug.h"
#include "sys/sysfs_watch.h"
#include "sys/topology.h"

/* What a live command asks of its session (live_prepare); live_load turns
 * it, with what this machine has, into the session_opts it loads. */
struct live_opts {
	const char *topology; /* --topology: NULL = sysfs, "none" = no groups */
	bool wake;            /* wakeup attribution */
	unsigned int without; /* --without: enum session_part bits */
	bool packing;         /* record --packing: needs groups and atomic fetch ops */
	bool freq;            /* frequency residency where cpufreq exists */
	bool track_hotplug;   /* follow CPUs going offline and online (record) */
	bool verbose;         /* -v: the poke and the CPUs of unknown state on stderr */
	struct hist_opts hist; /* hist: its metric, filters and path */
};

/* One live session: the machine's cpuidle tables and groups as read at
 * start-up, the BPF session over them, and what the refresh tick keeps. */
struct live {
	const struct topology *topo; /* the command's, read by cli_prepare */
	struct live_opts o;
	struct cpuidle_system sys;
	struct cpuidle_cpu_info *info; /* [nr_possible] */
	struct idle_params *params;    /* [nr_possible]: what the map holds */
	struct groups groups;          /* none with --topology none, or without fetch ops */
	bool freq;                     /* cpufreq present and asked for */
	struct idle_session sess;
	struct hotplug hotplug;        /* with track_hotplug */
	struct cpulist online;         /* at attach: the CPUs poked */
	bool attached, started;
	uint64_t next_state_refresh;
	/* the disable flags as events (live_attach): with PM QoS and hotplug
	 * events too, nothing is polled and the session sets no timer */
	struct sysfs_watch watch;
	bool watching;
	int event_fd; /* epoll over the QoS ring's and the watch's, -1 none */
	struct qos_ledger ledger;     /* with the PM QoS events: who limits idle */
};

/* Everything before BPF: the cpuidle tables and the groups, with the checks
 * of --topology and --packing. Where the kernel lacks BPF atomic fetch ops
 * (before 5.12) groups are dropped with one note on stderr (--packing is
 * refused). Returns 0 or an exit code after printing the error. */
int live_prepare(struct live *l, const struct topology *t, const struct live_opts *o);
/* Opens and loads the BPF object, pushes the state tables and the current
 * frequencies. Returns 0 or an exit code after printing the error. */
int live_load(struct live *l);
/* Attaches the programs and pokes the online CPUs of unknown state
 * (idle_session_poke), so that the window opens with every CPU's state
 * known. Returns 0 or an exit code after printing the error. */
int live_attach(struct live *l);
/* Opens the window at now: exits before now not counted, the CPUs of
 * unknown state counted (sess.unknown_at_start), hotplug tracking. Called
 * before live_attach (serve), the window holds the attach and the poke, and
 * the CPUs of unknown state are counted after the poke. */
int live_start(struct live *l, uint64_t now);
/* The refresh tick: PM QoS limits into the maps every call, the per-CPU
 * disable flags and poll limits every LIVE_STATE_REFRESH_NS (every call
 * when PM QoS changes come as events), hotplug polled. */
void live_refresh(struct live *l, uint64_t now);
/* How often live_refresh is due (0: never, everything comes as events),
 * and how late it may come (timer slack). With PM QoS, hotplug and the
 * disable flags' writes all seen as events nothing is polled; with PM QoS
 * and hotplug only, the state files are polled every LIVE_EVENT_REFRESH_NS
 * and up to LIVE_REFRESH_SLACK_NS later, so a refresh rides on a wakeup the
 * CPU has anyway; without them PM QoS is polled every LIVE_REFRESH_NS. */
uint64_t live_refresh_ns(const struct live *l);
uint64_t live_refresh_slack_ns(const struct live *l);
/* Readable when the kernel changed a PM QoS constraint, a CPU went on or
 * offline, or a disable flag was written (after live_attach; -1 without
 * the events); live_qos_event then pushes the new limits. */
int live_qos_fd(const struct live *l);
void live_qos_event(struct live *l, uint64_t now);
void live_close(struct live *l);

/* How often a command's window calls live_refresh, and how often the
 * per-CPU state files are read again. */
#define LIVE_REFRESH_NS 200000000ULL
#define LIVE_STATE_REFRESH_NS 1000000000ULL
#define LIVE_EVENT_REFRESH_NS 500000000ULL
#define LIVE_REFRESH_SLACK_NS (LIVE_STATE_REFRESH_NS - LIVE_EVENT_REFRESH_NS)

#endif
