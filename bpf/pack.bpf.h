/* Packing (EAS evaluation): one global state word changed with cmpxchg at
 * every idle enter/exit of a grouped CPU — a shared cache line, so only
 * loaded with `record --packing` — plus cross-group placements and runtime
 * per task and group from the scheduler tracepoints. Included by
 * idlescope.bpf.c. */
#ifndef IDLESCOPE_PACK_BPF_H
#define IDLESCOPE_PACK_BPF_H

#include "maps.bpf.h"

#define TASK_WAKING_STATE 0x0200

static __always_inline __u32 pack_group_of(__u32 cpu)
{
	__u32 *g = bpf_map_lookup_elem(&group_of, &cpu);

	return g ? *g : IS_NO_GROUP;
}

/* Busy groups change by dgroups and busy CPUs by dcpus at now_ns; the time
 * since the last change goes to the old state's histogram slot. */
static __always_inline void pack_update(__u64 now_ns, int dgroups, int dcpus)
{
	__u32 zero = 0, g, c;
	struct pack_global *pg = bpf_map_lookup_elem(&pack_global, &zero);
	__u64 now_us = now_ns / 1000, start_us = start_ns / 1000, old, new, last, d;

	if (!pg)
		return;
	for (int i = 0; i < 8; i++) {
		__u64 at;

		old = *(volatile __u64 *)&pg->word;
		g = PACK_GROUPS(old) + dgroups;
		c = PACK_CPUS(old) + dcpus;
		/* another CPU may have stamped a later time than our clock read:
		 * never move the stamp back, charge nothing then */
		at = PACK_US(old) > (now_us & ((1ULL << 40) - 1)) ? PACK_US(old) : now_us;
		new = PACK_WORD(g, c, at);
		if (__sync_val_compare_and_swap(&pg->word, old, new) != old)
			continue;
		if (now_ns < start_ns || start_ns == (__u64)-1)
			return;
		last = PACK_US(old);
		if (last < (start_us & ((1ULL << 40) - 1)))
			last = start_us & ((1ULL << 40) - 1);
		d = (now_us & ((1ULL << 40) - 1)) > last
			    ? ((now_us & ((1ULL << 40) - 1)) - last) * 1000
			    : 0;
		g = PACK_GROUPS(old);
		if (g < IS_PACK_SLOTS)
			__sync_fetch_and_add(&pg->busy_ns[g], d);
		if (g >= 2 && PACK_CPUS(old) <= pack_max_group_cpus)
			__sync_fetch_and_add(&pg->spread_ns, d);
		return;
	}
	__sync_fetch_and_add(&pg->lost_updates, 1);
}

static __always_inline void pack_count_cross(__u32 a, __u32 b, bool wakeup)
{
	struct pack_global *pg;
	__u32 zero = 0;

	if (stopped || a == IS_NO_GROUP || b == IS_NO_GROUP || a == b)
		return;
	pg = bpf_map_lookup_elem(&pack_global, &zero);
	if (!pg)
		return;
	if (wakeup)
		__sync_fetch_and_add(&pg->cross_wakeups, 1);
	else
		__sync_fetch_and_add(&pg->cross_migrations, 1);
}

/* sched_migrate_task outside a wakeup (load balancing, affinity): p moves
 * from its CPU to dest. Wakeup placements are counted at sched_wakeup. */
static __always_inline void handle_migrate(__u32 from, __u32 dest, __u64 task_state)
{
	if (!(task_state & TASK_WAKING_STATE))
		pack_count_cross(pack_group_of(from), pack_group_of(dest), false);
}

/* sched_waking runs on the waker's CPU, before the target is chosen:
 * remember it per task (LRU, bounded). */
static __always_inline void pack_on_waking(__u32 this_cpu, __u32 pid)
{
	if (!stopped && pid)
		bpf_map_update_elem(&pack_wakers, &pid, &this_cpu, BPF_ANY);
}

/* sched_wakeup: the woken task lands on target (on the waker's CPU, or on
 * the target itself for wakelist wakeups). */
static __always_inline void pack_on_wakeup(__u32 target, __u32 pid)
{
	__u32 *waker = bpf_map_lookup_elem(&pack_wakers, &pid);

	if (!waker)
		return;
	pack_count_cross(pack_group_of(*waker), pack_group_of(target), true);
	bpf_map_delete_elem(&pack_wakers, &pid);
}

/* sched_switch on cpu: charge prev's run to (prev, cpu's group). */
static __always_inline void pack_on_switch(__u32 cpu, __u64 now_ns, __u32 prev_pid,
					   const char *prev_comm, __u32 next_pid)
{
	struct idle_cpu_slot *slot = bpf_map_lookup_elem(&idle_slots, &cpu);
	struct pack_task_key k = { .pid = prev_pid, .group = pack_group_of(cpu) };
	struct pack_task_val *v, zero = {};
	__u32 z = 0;

	if (!slot || stopped)
		return;
	if (prev_pid && slot->cur_pid == prev_pid && slot->switch_in_ns &&
	    now_ns > slot->switch_in_ns && now_ns >= start_ns && k.group != IS_NO_GROUP) {
		v = bpf_map_lookup_elem(&pack_tasks, &k);
		if (!v) {
			bpf_map_update_elem(&pack_tasks, &k, &zero, BPF_NOEXIST);
			v = bpf_map_lookup_elem(&pack_tasks, &k);
		}
		if (v) {
			v->runtime_ns += now_ns - slot->switch_in_ns;
			__builtin_memcpy(v->comm, prev_comm, sizeof(v->comm));
		} else {
			struct pack_global *pg = bpf_map_lookup_elem(&pack_global, &z);

			if (pg)
				__sync_fetch_and_add(&pg->task_drops, 1);
		}
	}
	slot->cur_pid = next_pid;
	slot->switch_in_ns = now_ns;
}

/* sched_overutilized_tp: the root domain's overutilized flag changed. */
static __always_inline void handle_overutilized(__u64 now_ns, bool ou)
{
	struct pack_global *pg;
	__u32 zero = 0;

	if (stopped)
		return;
	pg = bpf_map_lookup_elem(&pack_global, &zero);
	if (!pg)
		return;
	pg->ou_seen = 1;
	if (pg->ou_state && !ou && now_ns > start_ns)
		pg->ou_ns += now_ns - (pg->ou_since > start_ns ? pg->ou_since : start_ns);
	if (!pg->ou_state && ou)
		pg->ou_since = now_ns;
	pg->ou_state = ou;
}

/* pelt_cfs_tp on a CPU's root cfs_rq: its utilization is util from now. */
static __always_inline void handle_pelt(__u32 cpu, __u64 now_ns, __u64 util)
{
	struct idle_cpu_slot *slot;
	__u64 from;

	if (stopped)
		return;
	slot = bpf_map_lookup_elem(&idle_slots, &cpu);
	if (!slot)
		return;
	from = slot->util_ts > start_ns ? slot->util_ts : start_ns;
	if (slot->util_ts && now_ns > from)
		slot->util_acc += slot->util_last * (now_ns - from);
	slot->util_last = util;
	slot->util_ts = now_ns;
	if (util > slot->util_max && now_ns >= start_ns)
		slot->util_max = util;
}

#endif
