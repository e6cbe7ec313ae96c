/* Topology-group idle: for each group, the time when all its CPUs are idle,
 * and the group state = the shallowest of its CPUs' states (idlestat and
 * LISA's convention). Fetch-and-add on a per-group counter (kernel 5.12+,
 * -mcpu=v3). Included by idlescope.bpf.c; called from handle_idle. */
#ifndef IDLESCOPE_GROUP_BPF_H
#define IDLESCOPE_GROUP_BPF_H

#include "maps.bpf.h"
#include "pack.bpf.h"
#include "stat.bpf.h"

/* The shallowest state among the members (all idle now, so stable). */
static __always_inline __u32 group_min_state(__u32 g, __u32 fallback)
{
	struct group_members *m = bpf_map_lookup_elem(&group_members, &g);
	__u32 min = fallback;

	if (!m)
		return min;
	for (int i = 0; i < IS_GROUP_MAX_CPUS; i++) {
		struct idle_cpu_slot *s;
		__u32 cpu;

		if (i >= m->nr_cpus)
			break;
		cpu = m->cpus[i];
		s = bpf_map_lookup_elem(&idle_slots, &cpu);
		if (s && s->state < min)
			min = s->state;
	}
	return min;
}

/* The CPU's group slot (group id from the CPU's own slot), or NULL. */
static __always_inline struct group_slot *group_slot_of(const struct idle_cpu_slot *slot, __u32 *g)
{
	if (!slot->group_id1)
		return NULL;
	*g = slot->group_id1 - 1;
	return bpf_map_lookup_elem(&group_slots, g);
}

#ifdef IS_NO_ATOMIC_FETCH
/* The variant for kernels before 5.12 (idlescope_nofetch.bpf.o): their
 * verifier rejects fetch-and-add anywhere in a program, even where the
 * loader's knobs make it dead code, and the loader turns groups off there. */
static __always_inline void group_on_enter(__u32 cpu, struct idle_cpu_slot *slot, __u64 now_ns,
					   __u32 state)
{
}

static __always_inline void group_on_exit(__u32 cpu, struct idle_cpu_slot *slot, __u64 now_ns,
					  __u64 enter_ns)
{
}
#else
/* cpu entered an idle state (its slot already holds the state). The group
 * id and size come from the CPU's own slot and the group slot: no lookups
 * beyond the shared counter on the hot path. */
static __always_inline void group_on_enter(__u32 cpu, struct idle_cpu_slot *slot, __u64 now_ns,
					   __u32 state)
{
	struct group_slot *gs;
	__u32 g, old;

	gs = group_slot_of(slot, &g);
	if (!gs)
		return;
	old = __sync_fetch_and_add(&gs->idle_count, 1);
	if (old + 1 == gs->nr_cpus) {
		gs->state = group_min_state(g, state);
		gs->idle_since = now_ns;
	}
	if (packing_enabled)
		pack_update(now_ns, old + 1 == gs->nr_cpus ? -1 : 0, -1);
}

/* cpu left idle after a period that began at enter_ns. */
static __always_inline void group_on_exit(__u32 cpu, struct idle_cpu_slot *slot, __u64 now_ns,
					  __u64 enter_ns)
{
	struct group_stats *st;
	struct group_slot *gs;
	__u32 g, old, s;
	__u64 since, d;

	gs = group_slot_of(slot, &g);
	if (!gs)
		return;
	old = __sync_fetch_and_add(&gs->idle_count, -1);
	if (packing_enabled)
		pack_update(now_ns, old == gs->nr_cpus ? 1 : 0, 1);
	if (old != gs->nr_cpus)
		return;
	/* first to leave: the all-idle interval ends */
	slot->ended_group = 1;
	since = gs->idle_since;
	gs->idle_since = 0;
	st = bpf_map_lookup_elem(&group_stats, &g);
	if (!st)
		return;
	/* a start written late, or stale, cannot precede this CPU's own enter */
	if (!since || since < enter_ns || since > now_ns) {
		st->races++;
		return;
	}
	if (since < start_ns)
		return; /* began before the window: an edge, like a CPU's */
	d = now_ns - since;
	s = gs->state;
	stat_add(&st->periods, &st->time_ns, &st->min_ns, &st->max_ns, st->hist, d);
	if (s < IS_MAX_STATES) {
		st->state_periods[s]++;
		st->state_time_ns[s] += d;
	}
}

#endif /* IS_NO_ATOMIC_FETCH */

#endif
