/* What the governor was told (issue 26): menu and teo ask
 * tick_nohz_get_sleep_length() for the time to the next timer event (and
 * the next tick), then the idle loop stops the tick or keeps it
 * (tick_nohz_idle_stop_tick / _retain_tick), then the state is entered.
 * fexit/fentry on those, where the kernel allows them (autoload off
 * otherwise), keep the inputs per CPU; the period's exit takes them and
 * splits its miss by why (classify, idle.bpf.h).
 * Included by idlescope.bpf.c. */
#ifndef IDLESCOPE_GOV_BPF_H
#define IDLESCOPE_GOV_BPF_H

#include "maps.bpf.h"

/* the governor-input programs are loaded: exits take the inputs */
const volatile bool gov_enabled = false;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct gov_input);
} gov_inputs SEC(".maps");

static __always_inline void gov_sleep_length(__u32 cpu, __u64 now_ns, __s64 sleep_ns)
{
	struct gov_input *g = bpf_map_lookup_elem(&gov_inputs, &cpu);

	if (!g)
		return;
	/* relative to the idle loop's entry time, a little before now: the
	 * next event is placed at most that much late */
	g->next_ns = now_ns + (sleep_ns > 0 ? (__u64)sleep_ns : 0);
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

/* At an idle exit: the inputs of the period that ended, consumed; NULL
 * when they were not both seen since the last exit (a governor that asks
 * nothing, or an entry the governor did not choose, such as idle
 * injection). One lookup per period, on the exit alone. */
static __always_inline struct gov_input *gov_take(__u32 cpu)
{
	struct gov_input *g = bpf_map_lookup_elem(&gov_inputs, &cpu);
	bool valid;

	if (!g)
		return NULL;
	valid = g->fresh && g->tick_known;
	g->fresh = 0;
	g->tick_known = 0;
	return valid ? g : NULL;
}

#endif
