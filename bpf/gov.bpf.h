/* What the governor was told (issue 26): menu and teo ask
 * tick_nohz_get_sleep_length() for the time to the next timer event (and
 * the next tick), then the idle loop stops the tick or keeps it
 * (tick_nohz_idle_stop_tick / _retain_tick), then the state is entered.
 * fexit/fentry on those, where the kernel allows them (autoload off
 * otherwise), keep the inputs per CPU; the next idle entry takes them for
 * its period, and its exit splits a miss by why (classify, idle.bpf.h).
 * Included by idlescope.bpf.c. */
#ifndef IDLESCOPE_GOV_BPF_H
#define IDLESCOPE_GOV_BPF_H

#include "maps.bpf.h"

/* the governor-input programs are loaded: entries take the inputs */
const volatile bool gov_enabled = false;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct gov_input);
} gov_inputs SEC(".maps");

static __always_inline void gov_sleep_length(__u32 cpu, __u64 now_ns, __s64 sleep_ns,
					     __s64 tick_ns)
{
	struct gov_input *g = bpf_map_lookup_elem(&gov_inputs, &cpu);

	if (!g)
		return;
	/* relative to the idle loop's entry time, a little before now: the
	 * next event is placed at most that much late */
	g->sleep_ns = sleep_ns > 0 ? (__u64)sleep_ns : 0;
	g->tick_ns = tick_ns > 0 ? (__u64)tick_ns : 0;
	g->next_ns = now_ns + g->sleep_ns;
	g->fresh = 1;
}

static __always_inline void gov_tick(__u32 cpu, bool kept)
{
	struct gov_input *g = bpf_map_lookup_elem(&gov_inputs, &cpu);

	if (!g)
		return;
	g->tick_kept = kept;
	g->tick_known = 1;
}

/* At an idle entry: the inputs asked for it become the period's. A
 * governor that asks nothing (haltpoll, ladder) leaves the period unknown. */
static __always_inline void gov_on_enter(__u32 cpu)
{
	struct gov_input *g = bpf_map_lookup_elem(&gov_inputs, &cpu);

	if (!g)
		return;
	g->p_valid = g->fresh && g->tick_known;
	g->p_next_ns = g->next_ns;
	g->p_tick_kept = g->tick_kept;
	g->fresh = 0;
	g->tick_known = 0;
}

/* The period's inputs at its exit, NULL when unknown. */
static __always_inline struct gov_input *gov_period(__u32 cpu)
{
	struct gov_input *g;

	if (!gov_enabled)
		return NULL;
	g = bpf_map_lookup_elem(&gov_inputs, &cpu);
	return g && g->p_valid ? g : NULL;
}

#endif
