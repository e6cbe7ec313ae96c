/* Compares each state's BPF numbers with the sysfs cpuidle deltas. */
#include "model/kernel_check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int64_t sdiff(uint64_t a, uint64_t b)
{
	return (int64_t)(a - b);
}

void check_state(const struct summary *s, const struct state_summary *st, int ncpus,
		 struct check_row *r)
{
	const struct kernel_delta *k = &st->kernel;
	uint64_t allowed_time;

	memset(r, 0, sizeof(*r));
	r->available = k->valid;
	if (!r->available)
		return;
	/* One period in flight at each edge of each CPU's window, plus the
	 * periods that ended between a CPU's sysfs reads and the window's
	 * edges: at least those BPF saw end then (it counts every exit from
	 * the start snapshot's first read to start, and after stop until the
	 * maps are read), and at least this state's rate over the measured
	 * time of the snapshots, edge to edge. */
	r->entries_allowed = 0;
	if (s->duration_ns)
		r->entries_allowed = (uint64_t)ceil((double)st->entries * (double)s->snapshot_ns /
						    (double)s->duration_ns);
	if (st->edge_exits > r->entries_allowed)
		r->entries_allowed = st->edge_exits;
	r->entries_allowed += 2 * (uint64_t)ncpus;
	r->entries_diff = sdiff(st->entries, k->usage + k->rejected);
	r->entries_ok = (uint64_t)llabs(r->entries_diff) <= r->entries_allowed;
	/* Bringing a CPU online (acpi_idle) or taking it down (haltpoll)
	 * pauses cpuidle on every CPU: their idle loops run default_idle_call(),
	 * traced as state 1, which no cpuidle counter counts. */
	r->lower_bound_only = s->hotplug_seen && st->index == 1;
	if (r->lower_bound_only)
		r->entries_ok = r->entries_diff >= -(int64_t)r->entries_allowed;

	r->time_diff_ns = sdiff(st->time_ns, k->time_ns);
	r->bias_ns = st->entries ? (double)r->time_diff_ns / (double)st->entries : 0;
	/* sysfs time is truncated to us at both ends. Each side may hold edge
	 * periods the other lacks, as long as the longest period seen, and
	 * they can cancel in the count but not in the time. */
	allowed_time = (uint64_t)((double)k->time_ns * IS_CHECK_TIME_PCT / 100.0) +
		       st->entries * IS_CHECK_BIAS_NS + 2000 +
		       ((uint64_t)llabs(r->entries_diff) + 2 * (uint64_t)ncpus) * st->max_ns;
	/* A period the kernel counted but we saw no enter of (in flight when
	 * we attached) has an unknown length: no lower bound then. */
	r->time_ok = r->time_diff_ns >= 0 || r->entries_diff < 0
			     ? r->time_diff_ns <= (int64_t)allowed_time
			     : (uint64_t)-r->time_diff_ns <= allowed_time;
	if (r->lower_bound_only)
		r->time_ok = r->time_diff_ns >= 0 || (uint64_t)-r->time_diff_ns <= allowed_time;

	if (k->has_miss_counters) {
		r->above_diff = sdiff(st->above, k->above);
		r->below_diff = sdiff(st->below, k->below);
	}
	/* fexit counts where the kernel does, at the end of each entry: only
	 * the entries ending while the snapshots were read may differ */
	r->fx_available = st->have_fexit && k->has_rejected;
	if (r->fx_available) {
		r->fx_entered_diff = sdiff(st->fx_entered, k->usage);
		r->fx_rejected_diff = sdiff(st->fx_rejected, k->rejected);
		r->fx_ok = (uint64_t)llabs(r->fx_entered_diff) <= r->entries_allowed &&
			   (uint64_t)llabs(r->fx_rejected_diff) <= r->entries_allowed;
	}
	r->miss_available = st->have_miss && k->has_miss_counters;
	if (r->miss_available) {
		r->miss_above_diff = sdiff(st->miss_above, k->above);
		r->miss_below_diff = sdiff(st->miss_below, k->below);
		r->miss_ok = (uint64_t)llabs(r->miss_above_diff) <= r->entries_allowed &&
			     (uint64_t)llabs(r->miss_below_diff) <= r->entries_allowed;
	}
}

const char *check_verdict(const struct summary *s)
{
	bool any = false;

	for (int c = 0; c < s->nr_cpus; c++) {
		const struct cpu_summary *cs = &s->cpus[c];

		for (int i = 0; i < cs->nr_states; i++) {
			struct check_row r;

			check_state(s, &cs->states[i], 1, &r);
			if (!r.available)
				continue;
			any = true;
			if (!r.entries_ok || !r.time_ok || (r.miss_available && !r.miss_ok) ||
			    (r.fx_available && !r.fx_ok))
				return "mismatch";
		}
	}
	return any ? "ok" : "unavailable";
}
