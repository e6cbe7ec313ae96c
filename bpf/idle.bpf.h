/* Idle-state residency and prediction error, computed per idle period from
 * power:cpu_idle and power:cpu_idle_miss. Included by idlescope.bpf.c. */
#ifndef IDLESCOPE_IDLE_BPF_H
#define IDLESCOPE_IDLE_BPF_H

#include "maps.bpf.h"
#include "stat.bpf.h"
#include "wake.bpf.h"
#include "qos.bpf.h"
#include "gov.bpf.h"
#include "haltpoll.bpf.h"

static __always_inline __u32 lowest_bit_index(__u32 mask)
{
	return is_msb64(mask & -mask);
}

/* A miss split by what the governor was told (gov.bpf.h): next is the
 * next timer event from the period's start (g->next_ns - its enter),
 * ts and td the target residencies of the state and of the deeper one. */
static __always_inline void gov_split(struct idle_state_stats *st, struct gov_input *g,
				      __u64 next, __u64 ts, __u64 td, int miss, bool qos)
{
	st->gov_known++;
	if (miss > 0) {
		if (next < ts) {
			st->gov_above_near++;
		} else {
			st->gov_above_unannounced++;
			g->above_unannounced = 1; /* its wake's cause: gov_above_cause */
		}
	} else if (miss < 0 && !qos) {
		if (g->tick_kept)
			st->gov_below_tick++;
		else if (next >= td)
			st->gov_below_history++;
		else
			st->gov_below_timer++;
	}
}

/* The kernel's classification (drivers/cpuidle/cpuidle.c,
 * cpuidle_enter_state): above needs an enabled shallower state; below
 * compares residency - exit latency against the first enabled deeper state
 * only. Residency here is the BPF interval, a little longer than the
 * kernel's local_clock() diff. Returns whether the period was shorter
 * than the state's target residency (early). */
static __always_inline bool classify(struct idle_state_stats *st,
				     const struct idle_params *p, __u64 s, __u64 r,
				     struct gov_input *g, __u64 next)
{
	__u32 nr = p->nr_states, enabled, shallower, deeper, d = 0;
	__u64 ideal = 0;
	bool qos = false;
	int i, miss = 0;

	if (nr > IS_MAX_STATES)
		nr = IS_MAX_STATES;
	enabled = ~p->disabled_mask & ((1u << nr) - 1);
	shallower = enabled & ((1u << s) - 1);
	deeper = enabled & ~((2u << s) - 1);

	bool early = r < p->target_residency_ns[s];

	if (early) {
		if (shallower) {
			st->above++;
			miss = 1;
		}
	} else if (r > p->exit_latency_ns[s] && deeper) {
		d = lowest_bit_index(deeper);
		if (d < IS_MAX_STATES &&
		    r - p->exit_latency_ns[s] >= p->target_residency_ns[d]) {
			st->below++;
			miss = -1;
			if (p->exit_latency_ns[d] > p->qos_limit_ns) {
				st->below_qos++;
				qos = true;
				qos_charge(p->qos_slot, r);
			}
			if ((p->poll_mask >> s) & 1 && p->poll_limit_ns &&
			    r >= p->poll_limit_ns)
				st->poll_limit++;
		}
	}

	/* Ideal: deepest enabled state whose target residency fits; the
	 * shallowest enabled state when none does. */
	if (enabled)
		ideal = lowest_bit_index(enabled);
#pragma unroll
	for (i = 0; i < IS_MAX_STATES; i++) {
		if (((enabled >> i) & 1) && p->target_residency_ns[i] <= r)
			ideal = i;
	}
	if (ideal < IS_MAX_STATES)
		st->ideal[ideal]++;
	if (g)
		gov_split(st, g, next, p->target_residency_ns[s],
			  d < IS_MAX_STATES ? p->target_residency_ns[d] : 0, miss, qos);
	return early;
}

/* Adds one completed period. Returns whether it was shorter than the state's
 * target residency (1/0), or -1 when the CPU has no state table. */
static __always_inline int account(__u32 cpu, __u64 s, __u64 r, __u64 enter,
				   struct gov_input *g)
{
	struct idle_state_stats *st;
	struct idle_params *p;
	__u64 next = 0;
	__u32 key;

	if (s >= state_slots)
		return -1;
	key = cpu * state_slots + (__u32)s;
	st = bpf_map_lookup_elem(&idle_stats, &key);
	if (!st)
		return -1;
	stat_add(&st->entries, &st->time_ns, &st->min_ns, &st->max_ns, st->hist, r);
	if (hist_metric == HM_RESIDENCY)
		hist_add(cpu, (__u32)s, r);

	p = bpf_map_lookup_elem(&idle_params, &cpu);
	if (!p || !(p->flags & IS_PARAMS_VALID) || (p->flags & IS_PARAMS_NO_CLASSIFY) ||
	    s >= p->nr_states)
		return -1;
	if (g && g->next_ns > enter)
		next = g->next_ns - enter;
	if (!classify(st, p, s, r, g, next))
		return 0;
	st->early++;
	st->early_ns += r;
	return 1;
}

/* An exit outside the window: of state s, or of an unknown state (s >=
 * state_slots). */
static __always_inline void edge_exit(__u32 cpu, struct idle_cpu_slot *slot, __u32 s)
{
	struct idle_state_stats *st = NULL;
	__u32 key;

	if (s < state_slots) {
		key = cpu * state_slots + s;
		st = bpf_map_lookup_elem(&idle_stats, &key);
	}
	if (st)
		st->edge_exits++;
	else
		slot->edge_unknown++;
}

/* After stop the slot is frozen (the period in flight at stop stays in it);
 * the states of later periods are followed in edge_state alone. */
static __always_inline void after_stop(__u32 cpu, struct idle_cpu_slot *slot, __u32 state)
{
	__u32 s = IS_MAX_STATES;

	if (state != IS_PWR_EVENT_EXIT) {
		slot->edge_state = state < IS_MAX_STATES ? state + 1 : 0xff;
		return;
	}
	if (!slot->edge_state && slot->enter_ns)
		s = slot->state;
	else if (slot->edge_state && slot->edge_state != 0xff)
		s = slot->edge_state - 1;
	slot->edge_state = 0xff;
	edge_exit(cpu, slot, s);
}

/* The first event after a reader's cut keeps the slot as it was at the
 * cut; the period it may end is then counted apart (cut_count). */
static __always_inline void cut_open(struct idle_cpu_slot *slot, __u64 now_ns)
{
	__u64 cut = cut_ns;

	if (!cut || now_ns <= cut || slot->cut_epoch == cut)
		return;
	slot->cut_epoch = cut;
	slot->cut_enter_ns = slot->enter_ns;
	slot->cut_state = slot->state;
#pragma unroll
	for (int i = 0; i < IS_MAX_STATES; i++)
		slot->cut_time_ns[i] = 0;
}

/* A period counted in state s's time_ns that ended after the cut. The
 * global first: without a reader's cut (record, serve, hist) the slot's
 * cut line is never touched on the idle path. */
static __always_inline void cut_count(struct idle_cpu_slot *slot, __u32 s, __u64 d)
{
	__u64 cut = cut_ns;

	if (cut && slot->cut_epoch == cut && s < IS_MAX_STATES)
		slot->cut_time_ns[s] += d;
}

/* One idle event on the CPU's slot (handle_idle, below). */
static __always_inline void idle_event(__u32 cpu, struct idle_cpu_slot *slot, __u64 now_ns,
				       __u32 state, int live, __u32 facts)
{
	struct gov_input *g;
	__u64 enter;
	int early;
	bool first, poll_ended = false;

	if (stop_ns && now_ns > stop_ns) {
		slot->last_counted = 0; /* frozen, except that misses stop counting */
		after_stop(cpu, slot, state);
		return;
	}
	first = !slot->idle_seen;
	slot->idle_seen = 1;
	cut_open(slot, now_ns);
	if (state != IS_PWR_EVENT_EXIT) {
		/* the kernel pairs every enter with an exit: the open period's
		 * exit was lost (a missed handler run; in a trace, a missing,
		 * garbled or lost line); it is not counted, and that is said */
		if (slot->enter_ns && now_ns >= start_ns)
			slot->lost_exits++;
		/* the entry after a counted POLL period tells how it ended */
		if (haltpoll_enabled && slot->last_counted == HP_POLL_PENDING) {
			slot->last_counted = 1;
			poll_ended = haltpoll_on_enter(cpu, state);
		}
		if (state >= state_slots) {
			slot->bad_state++;
			slot->enter_ns = 0;
			return;
		}
		if (wake_enabled)
			wake_on_enter(cpu, slot, poll_ended);
		if (hist_metric == HM_IDLE_ENTRY)
			sched_on_idle(cpu, slot, now_ns, state, false);
		enter = slot->enter_ns;
		slot->state = state;
		asm volatile("" ::: "memory"); /* state first: group.bpf.h */
		slot->enter_ns = now_ns;
		if (groups_enabled && !enter)
			group_on_enter(cpu, slot, now_ns, state);
		return;
	}
	enter = slot->enter_ns;
	/* a lazy group's members read these once enter_ns is 0 (group.bpf.h) */
	if (groups_enabled && enter && slot->group_lazy)
		group_lazy_publish(slot, enter, now_ns);
	slot->enter_ns = 0;
	slot->last_counted = 0;
	/* taken at every exit, so an entry the governor did not choose
	 * never gets the last one's inputs */
	g = gov_enabled ? gov_take(cpu) : NULL;
	if (groups_enabled && enter)
		group_on_exit(cpu, slot, now_ns, enter);
	if (now_ns < start_ns) {
		if (edge_from_ns && now_ns >= edge_from_ns)
			edge_exit(cpu, slot, enter ? slot->state : IS_MAX_STATES);
		return;
	}
	if (hist_metric == HM_IDLE_EXIT)
		sched_on_idle(cpu, slot, now_ns, slot->state, true);
	if (!enter) {
		/* Began before we attached only if nothing came before it on this
		 * CPU; else its enter was lost (bad state, lost or garbled event)
		 * and its start is unknown: counted, never idle time. */
		if (first)
			slot->first_exit_ns = now_ns;
		slot->unmatched_exits++;
		return;
	}
	/* Like the kernel's usage/time, a period counts whole at its exit. */
	slot->last_counted = haltpoll_enabled && slot->state == IS_HALTPOLL_POLL_STATE ?
			     HP_POLL_PENDING : 1;
	early = account(cpu, slot->state, now_ns - enter, enter, g);
	if (slot->state < state_slots)
		cut_count(slot, slot->state, now_ns - enter);
	if (wake_enabled)
		wake_on_exit(cpu, slot, now_ns, now_ns - enter, slot->state, early, live, facts);
}

/* The slot's sequence count goes odd before an event changes the slot, the
 * CPU's statistics or its group, and even after: a reader that finds the
 * same even count before and after reading them has read them between two
 * events (session/snapshot.c). The CPU's own handler is the only writer;
 * the compiler keeps the stores in order, and so does x86. */
static __always_inline void slot_seq_bump(struct idle_cpu_slot *slot)
{
	asm volatile("" ::: "memory");
	*(volatile __u16 *)&slot->seq = slot->seq + 1;
	asm volatile("" ::: "memory");
}

/* One idle event: state != IS_PWR_EVENT_EXIT starts a period on cpu, EXIT
 * ends it. now_ns is read as early as the caller can on exit. live: the
 * attach flavour (1 tp_btf, 2 raw_tp), 0 for replay, whose exits bring
 * their facts (RE_EXIT_*) instead of reading the running kernel. */
static __always_inline void handle_idle(__u32 cpu, __u64 now_ns, __u32 state, int live,
					__u32 facts)
{
	struct idle_cpu_slot *slot;

	slot = bpf_map_lookup_elem(&idle_slots, &cpu);
	if (!slot) {
		__sync_fetch_and_add(&cpu_out_of_range, 1);
		return;
	}
	slot->known = 1; /* from here on its state is tracked (poke.bpf.h) */
	slot_seq_bump(slot);
	idle_event(cpu, slot, now_ns, state, live, facts);
	if (wake_enabled)
		wake_phase_sync(slot);
	slot_seq_bump(slot);
}

/* power:cpu_idle_miss (v6.0+): the kernel's own above/below decision. It
 * fires after the exit event of the same period on the same CPU, so it
 * counts exactly when that period was counted (window edges included). */
static __always_inline void handle_idle_miss(__u32 cpu, __u32 state, __u32 below)
{
	struct idle_state_stats *st;
	struct idle_cpu_slot *slot;
	__u32 key;

	if (state >= state_slots)
		return;
	slot = bpf_map_lookup_elem(&idle_slots, &cpu);
	if (!slot || !slot->last_counted)
		return;
	key = cpu * state_slots + state;
	st = bpf_map_lookup_elem(&idle_stats, &key);
	if (!st)
		return;
	if (below)
		st->miss_below++;
	else
		st->miss_above++;
}

#endif
