/* A session's BPF maps at one instant (struct idle_raw), read by snapshot.c;
 * the summary model and the interval deltas take it from here, not from the
 * loader. */
#ifndef IDLESCOPE_SNAPSHOT_H
#define IDLESCOPE_SNAPSHOT_H

#include <stdbool.h>
#include <stdint.h>

#include "idle_stats.h"
#include "wake_stats.h"
#include "hist_data.h"
#include "group_stats.h"
#include "pack_stats.h"
#include "freq_stats.h"
#include "qos_stats.h"
#include "haltpoll_stats.h"

struct idle_session;

/* Raw per-CPU counters at one instant. */
struct idle_raw {
	int nr_cpus;
	struct idle_cpu_slot *slots;      /* [nr_cpus] */
	struct idle_state_stats *stats;   /* [nr_cpus * IS_MAX_STATES] */
	struct wake_cpu_stats *wake;      /* [nr_cpus], zero without wakeups */
	struct wake_lat_stats *lat;       /* [nr_cpus * IS_MAX_STATES] */
	int nr_details;
	struct wake_detail *details;
	int nr_groups;
	struct group_stats *groups;       /* [nr_groups] */
	struct group_slot *group_slots;   /* [nr_groups]: in flight at the end */
	struct freq_cpu *freq; /* [nr_cpus] with frequency residency, else NULL */
	struct haltpoll_cpu *haltpoll; /* [nr_cpus] with halt-polling, else NULL */
	bool have_pack;
	struct pack_global pack;
	int nr_pack_tasks;
	struct pack_task_key *pack_keys;
	struct pack_task_val *pack_vals;
	uint64_t cpu_out_of_range;
	/* qos_cost per ledger slot, summed over the CPUs: [0, nr_qos_slots) */
	int nr_qos_slots;
	struct qos_cost qos_cost[QOS_SLOTS];
	/* idle_session_read: when the slots and statistics of the CPUs and
	 * groups had been read (before the wakeup, packing and frequency
	 * tables), and the window's start in BPF then */
	uint64_t read_ns;
	uint64_t start_ns;
	uint64_t torn_reads; /* CPUs or groups never read between two events */
};

/* Every table. The CPUs' slots and statistics come first, each CPU's pair
 * read between two of its idle events, then the groups' likewise; read_ns
 * is stamped right after them: a live window or interval ends there. */
int idle_session_read(struct idle_session *s, struct idle_raw *out);
/* Only out->stats (the per-state counters): what an interval line needs.
 * Its cost and memory do not grow with the detail and task tables. */
int idle_session_read_stats(struct idle_session *s, struct idle_raw *out);
void idle_raw_free(struct idle_raw *r);

/* Copies the hist histograms ([nr_cpus * IS_MAX_STATES]) and, with reset,
 * zeroes them for the next interval. Returns 0 or -errno. */
int idle_session_read_hist(struct idle_session *s, struct hist_slot *out, bool reset);
/* path-latency: sums the per-CPU unmatched/replaced/overflow counters. */
int idle_session_read_path(struct idle_session *s, struct path_cpu *sum);

#endif
