/* The PM QoS ledger of a window as rows to show (issue 25): each request
 * that limited idle during it, its value and lifetime, the periods it
 * forced shallower and their idle time (the qos_cost slots BPF charged),
 * and the deepest state its value leaves reachable. */
#ifndef IDLESCOPE_QOS_SUMMARY_H
#define IDLESCOPE_QOS_SUMMARY_H

#include <stdbool.h>
#include <stdint.h>

#include "session/qos_ledger.h"
#include "session/snapshot.h"
#include "sys/cpuidle_sysfs.h"
#include "util/cpulist.h"

struct qos_row {
	uint8_t scope;      /* QOS_SCOPE_CPU_LATENCY (all CPUs) or QOS_SCOPE_RESUME (cpu) */
	int cpu;
	int pid;            /* 0: unknown (a limit set before the window) */
	char comm[16];
	int requests;       /* CPU latency: its requests open at the end */
	int64_t value_us;   /* -1: unknown (held before the window, not told apart) */
	bool before;        /* held before the window */
	bool open;          /* still held at the end */
	/* from the window's start (< 0: before it); *_known false: before the
	 * ledger began */
	bool since_known;
	int64_t since_ns;       /* it first limited idle */
	bool value_since_known;
	int64_t value_since_ns; /* its current value was set */
	int64_t until_ns;   /* released, from the start; -1 while open */
	uint32_t changes;   /* values written after the first limiting one */
	bool charged;       /* its forced periods are its own (false: past the slots, in other's) */
	uint64_t forced_periods, forced_idle_ns;
	/* the deepest enabled state its value leaves reachable, -1 unknown
	 * (no state table or the value unknown) */
	int deepest;
	char deepest_name[16];
};

struct summary_qos {
	bool kept;          /* a ledger was kept (live commands with the PM QoS events) */
	int nr;
	struct qos_row *rows;
	/* forced periods no row is known for (several held before the
	 * window, or a row past the slots) */
	uint64_t other_periods, other_idle_ns;
	uint64_t dropped, unslotted, unmatched, lost;
};

/* Rows of the requests that limited idle and overlapped [start_ns,
 * stop_ns]; costs from raw->qos_cost (ledger NULL: slot 0 alone, as
 * other). info: the state tables, for deepest reachable. Returns 0 or
 * -ENOMEM. */
int qos_summary_build(struct summary_qos *q, const struct qos_ledger *ledger,
		      const struct idle_raw *raw, const struct cpuidle_cpu_info *info,
		      const struct cpulist *sel, uint64_t start_ns, uint64_t stop_ns, uint64_t lost);
void qos_summary_free(struct summary_qos *q);

#endif
