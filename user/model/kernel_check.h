/* The cross-check of BPF numbers against the kernel's own cpuidle counters
 * over the same window: what may differ (periods in flight at the edges,
 * observer timing bias) and whether the rest agrees. */
#ifndef IDLESCOPE_KERNEL_CHECK_H
#define IDLESCOPE_KERNEL_CHECK_H

#include <stdbool.h>
#include <stdint.h>

#include "model/model.h"

/* Observer bias allowed per period: the BPF interval includes tracepoint
 * and handler time the kernel's local_clock() diff does not (150-400 ns
 * measured on the development VMs). */
#define IS_CHECK_BIAS_NS 1000
/* Time tolerance on top of the bias. */
#define IS_CHECK_TIME_PCT 1.0

struct check_row {
	bool available;
	int64_t entries_diff;   /* bpf - (usage + rejected) */
	uint64_t entries_allowed;
	bool entries_ok;
	int64_t time_diff_ns;   /* bpf - kernel */
	double bias_ns;         /* time_diff / entries */
	bool time_ok;
	bool miss_available;    /* cpu_idle_miss and sysfs above/below both present */
	int64_t miss_above_diff, miss_below_diff; /* miss - kernel */
	bool miss_ok;
	int64_t above_diff, below_diff; /* BPF classification - kernel */
	bool fx_available;      /* fexit counts and sysfs rejected both present */
	int64_t fx_entered_diff, fx_rejected_diff; /* fexit - kernel usage / rejected */
	bool fx_ok;
	/* CPU hotplug in the window and state index 1: default_idle_call()
	 * periods while cpuidle was paused are traced as state 1 but not in
	 * the kernel's counters, so BPF may only be above (lower bound only) */
	bool lower_bound_only;
};

/* ncpus: CPUs summed into st (1, or the CPU count for totals). The edge
 * allowance is one period in flight per CPU at each end, plus the periods
 * that ended while the sysfs snapshots were read: the more of those BPF saw
 * end then (st->edge_exits, per CPU and state) and those expected at this
 * state's rate over the snapshots' measured time (s->snapshot_ns, from the
 * start snapshot's first read to start and from stop to the end
 * snapshot's last read). */
void check_state(const struct summary *s, const struct state_summary *st, int ncpus,
		 struct check_row *r);
/* Overall: "ok", "mismatch" or "unavailable" (no sysfs counters). */
const char *check_verdict(const struct summary *s);

#endif
