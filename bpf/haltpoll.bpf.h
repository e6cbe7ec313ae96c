/* Guest halt-polling (cpuidle driver and governor haltpoll): how each POLL
 * period ended, and the per-CPU poll limit's moves (power:guest_halt_poll_ns).
 * Included by idlescope.bpf.c before idle.bpf.h, which calls in here. */
#ifndef IDLESCOPE_HALTPOLL_BPF_H
#define IDLESCOPE_HALTPOLL_BPF_H

#include "maps.bpf.h"

/* Set by the loader where the driver and the governor are haltpoll (or a
 * replayed trace says so): the idle handler tests it once per event and the
 * verifier drops the rest elsewhere. */
const volatile bool haltpoll_enabled = false;

/* [cpu] (1 entry when off) */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct haltpoll_cpu);
} haltpoll_cpus SEC(".maps");

/* slot->last_counted after a counted POLL exit whose end is not told yet */
#define HP_POLL_PENDING 2

/* Why the next idle entry tells how a poll ended, exactly and for free:
 * poll_idle() (drivers/cpuidle/poll_state.c) sets dev->poll_time_limit when
 * it stops at its limit, and the haltpoll governor's select
 * (drivers/cpuidle/governors/haltpoll.c, 5.4 to 6.18) reads it at the very
 * next selection: last_state_idx == 0 with poll_time_limit -> state 1
 * (halt), without -> state 0 (poll again). A timed-out poll left need_resched
 * clear, so do_idle() loops straight into that selection; a woken one runs
 * its task and the next selection, whenever it comes, polls. Reflect (which
 * alone changes poll_limit_ns) runs only after a halt, so nothing between
 * the two changes the choice. Reading dev->poll_time_limit itself would need
 * the per-CPU cpuidle_devices ksym (kallsyms of data, often missing) and a
 * read on every POLL exit; this costs a byte already in the slot's first
 * line. Two kernel paths choose without the governor: a PM QoS limit of 0
 * (always POLL: its timed-out polls count as woken) and idle injection.
 * Returns whether the poll timed out. */
static __always_inline bool haltpoll_on_enter(__u32 cpu, __u32 state)
{
	struct haltpoll_cpu *hp = bpf_map_lookup_elem(&haltpoll_cpus, &cpu);
	bool timed_out = state != IS_HALTPOLL_POLL_STATE;

	if (!hp)
		return timed_out;
	if (timed_out)
		hp->timed_out++;
	else
		hp->woken++;
	return timed_out;
}

/* power:guest_halt_poll_ns(grow, new, old), on the CPU whose limit moved
 * (the governor's reflect, after a halt). Counted inside the window. */
static __always_inline void handle_halt_poll(__u32 cpu, __u64 now_ns, bool grow, __u32 new_ns,
					     __u32 old_ns)
{
	struct haltpoll_cpu *hp;

	if (!haltpoll_enabled || now_ns < start_ns || (stop_ns && now_ns > stop_ns))
		return;
	hp = bpf_map_lookup_elem(&haltpoll_cpus, &cpu);
	if (!hp)
		return;
	if (!hp->grow && !hp->shrink) {
		hp->limit_first_ns = old_ns;
		hp->limit_min_ns = old_ns;
		hp->limit_max_ns = old_ns;
	}
	if (grow)
		hp->grow++;
	else
		hp->shrink++;
	hp->limit_ns = new_ns;
	if (new_ns < hp->limit_min_ns)
		hp->limit_min_ns = new_ns;
	if (new_ns > hp->limit_max_ns)
		hp->limit_max_ns = new_ns;
}

#endif
