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

/* base_ns: the time the sleep length is counted from (the kernel's own
 * idle entry time where the fexit can read it, tick_sched.idle_entrytime) */
static __always_inline void gov_sleep_length(__u32 cpu, __u64 base_ns, __s64 sleep_ns)
{
	struct gov_input *g = bpf_map_lookup_elem(&gov_inputs, &cpu);

	if (!g)
		return;
	g->next_ns = base_ns + (sleep_ns > 0 ? (__u64)sleep_ns : 0);
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
	g->period_next_ns = valid ? g->next_ns : 0;
	g->period_tick_kept = g->tick_kept;
	g->above_unannounced = 0;
	return valid ? g : NULL;
}

/* The wake of a too-deep period woken before its next timer (classify):
 * its cause, now final, is counted against the period's state. */
static __always_inline void gov_above_cause(__u32 cpu, __u32 state, __u32 kind)
{
	struct gov_input *g = bpf_map_lookup_elem(&gov_inputs, &cpu);
	struct idle_state_stats *st;
	__u32 key;

	if (!g || !g->above_unannounced)
		return;
	g->above_unannounced = 0;
	if (state >= state_slots || kind >= WAKE_NR_KINDS)
		return;
	key = cpu * state_slots + state;
	st = bpf_map_lookup_elem(&idle_stats, &key);
	if (st)
		st->gov_above_cause[kind]++;
}

/* The hrtimer that ended a period against the next timer event the
 * governor was told of: expires_mono is the timer's expiry on the
 * monotonic clock (its base's offset taken off). Recorded when the timer
 * is seen, counted once the period's state is known (wake_account_timer). */
static __always_inline void gov_timer_seen(__u32 cpu, __u64 expires_mono)
{
	struct gov_input *g = bpf_map_lookup_elem(&gov_inputs, &cpu);

	if (g)
		g->timer_expires_ns = expires_mono;
}

static __always_inline void gov_timer_count(__u32 cpu, struct wake_lat_stats *ls)
{
	struct gov_input *g = bpf_map_lookup_elem(&gov_inputs, &cpu);
	__u64 told, fired, err;

	if (!g || !g->period_next_ns || !g->timer_expires_ns)
		return;
	told = g->period_next_ns;
	fired = g->timer_expires_ns;
	g->timer_expires_ns = 0;
	ls->gov_known++;
	if (fired > told + GOV_TIMER_TOLERANCE_NS) {
		ls->gov_later++;
		err = fired - told;
	} else if (told > fired + GOV_TIMER_TOLERANCE_NS) {
		/* the tick kept on fires before the next event, which leaves
		 * it out (the governor weighs the tick apart) */
		if (g->period_tick_kept) {
			ls->gov_tick_first++;
			return;
		}
		ls->gov_earlier++;
		err = told - fired;
	} else {
		err = fired > told ? fired - told : told - fired;
	}
	ls->gov_err_sum_ns += err;
	if (err > ls->gov_err_max_ns)
		ls->gov_err_max_ns = err;
}

#endif
