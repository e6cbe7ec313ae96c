/* Why CPUs wake: the first attributable event of each counted idle period
 * (in (enter, exit + wake_window_ns]), the hrtimer that ended it and how late,
 * and the task woken. Included by idlescope.bpf.c; called from the idle
 * handlers and from the interrupt-path programs, which touch only the
 * event CPU's slot. */
#ifndef IDLESCOPE_WAKE_BPF_H
#define IDLESCOPE_WAKE_BPF_H

#include "maps.bpf.h"
#include "hist.bpf.h"
#include "stat.bpf.h"
#include "gov.bpf.h"

/* thread_info.cpu since 5.16 on every arch; task_struct.cpu before. */
struct task_struct___cpu_old {
	unsigned int cpu;
} __attribute__((preserve_access_index));

/* tp_btf programs read kernel structs with direct BTF-checked loads (no
 * helper call); raw_tp ones through bpf_probe_read_kernel. btf is a
 * constant in each flavour (TP_PAIR), so the other branch compiles out. */
#define KREAD(btf, p, field) ((btf) ? (p)->field : BPF_CORE_READ(p, field))

static __always_inline __u32 task_cpu_of(struct task_struct *p, bool btf)
{
	if (bpf_core_field_exists(p->thread_info.cpu))
		return KREAD(btf, p, thread_info.cpu);
	return KREAD(btf, (struct task_struct___cpu_old *)p, cpu);
}

/* Adds counts of key k to the detail table; a full table counts them as
 * dropped. */
static __always_inline void wake_detail_flush(__u32 cpu, const struct wake_detail_key *k,
					      __u64 count, __u64 early, const char *comm)
{
	struct wake_detail_val *v, zero = {};
	struct wake_cpu_stats *ws;

	v = bpf_map_lookup_elem(&wake_details, k);
	if (!v) {
		/* rare: first time this key is seen */
		bpf_map_update_elem(&wake_details, k, &zero, BPF_NOEXIST);
		v = bpf_map_lookup_elem(&wake_details, k);
		if (!v) {
			ws = bpf_map_lookup_elem(&wake_stats, &cpu);
			if (ws)
				ws->detail_drops += count;
			return;
		}
	}
	v->count += count;
	v->early += early;
	/* comm is NULL for the other kinds; testing it (not only the kind, which
	 * 6.1 and 6.12 verifiers lose through the stack) keeps them loadable */
	if (comm && (k->kind == WDETAIL_WAKEE || k->kind == WDETAIL_GROUP_WAKEE))
		__builtin_memcpy(v->comm, comm, sizeof(v->comm));
}

static __always_inline void wake_detail_add(__u32 cpu, __u32 kind, __u32 aux, __u64 detail,
					    __u32 early, const char *comm)
{
	struct wake_detail_key k = { .kind = kind, .aux = aux, .detail = detail, .cpu = cpu };
	__u32 idx = cpu * WDETAIL_NR + kind;
	struct wake_detail *last;

	if (!details_enabled)
		return;
	last = bpf_map_lookup_elem(&wake_detail_last, &idx);
	if (!last) {
		wake_detail_flush(cpu, &k, 1, early, comm);
		return;
	}
	if (!last->val.count || last->key.aux != aux || last->key.detail != detail) {
		if (last->val.count)
			wake_detail_flush(cpu, &last->key, last->val.count, last->val.early,
					  last->val.comm);
		last->key = k;
		last->val.count = 0;
		last->val.early = 0;
	}
	last->val.count++;
	last->val.early += early;
	if (comm)
		__builtin_memcpy(last->val.comm, comm, sizeof(last->val.comm));
}

static __always_inline void wake_account_timer(__u32 cpu, struct idle_cpu_slot *slot)
{
	struct wake_lat_stats *ls;
	__u64 lat = slot->timer_lat_ns;
	__u32 key;

	if (slot->wake_state >= state_slots)
		return;
	key = cpu * state_slots + slot->wake_state;
	ls = bpf_map_lookup_elem(&wake_lat, &key);
	if (ls)
		stat_add(&ls->count, &ls->sum_ns, &ls->min_ns, &ls->max_ns, ls->hist, lat);
	if (ls && gov_enabled)
		gov_timer_count(cpu, ls);
	if (hist_metric == HM_EXIT_LATENCY)
		hist_add(cpu, slot->wake_state, lat);
	wake_detail_add(cpu, WDETAIL_TIMER_FN, 0, slot->timer_fn, slot->wake_early, NULL);
}

/* The counted period's cause is final: count it once. */
static __always_inline void wake_count(__u32 cpu, struct idle_cpu_slot *slot)
{
	struct wake_cpu_stats *ws;
	__u32 kind = slot->wake_kind;

	slot->wake_pending = 0;
	slot->wake_open = 1;
	if (kind >= WAKE_NR_KINDS)
		return;
	ws = bpf_map_lookup_elem(&wake_stats, &cpu);
	if (!ws)
		return;
	ws->count[kind]++;
	/* only an early period can be too deep: the rest skip the lookup */
	if (gov_enabled && slot->wake_early)
		gov_above_cause(cpu, slot->wake_state, kind);
	/* early[] is another cache line than count[]: touched only when early */
	if (slot->wake_early)
		ws->early[kind]++;
	if (kind == WAKE_IRQ)
		wake_detail_add(cpu, WDETAIL_IRQ, 0, slot->wake_detail, slot->wake_early, NULL);
	else if (kind == WAKE_SOFTIRQ)
		wake_detail_add(cpu, WDETAIL_SOFTIRQ, 0, slot->wake_detail, slot->wake_early, NULL);
	if (slot->wake_lat_done)
		wake_account_timer(cpu, slot);
}

/* A waker that found this CPU polling during this wake, before anything
 * else came (handle_no_ipi left its mark on the sender line): the wake's
 * cause. Read only while the cause is unknown. */
static __always_inline bool noipi_take(struct idle_cpu_slot *slot)
{
	/* nothing leaves the mark where the exit infers it: its line unread */
	if (noipi_inferred)
		return false;
	if (!slot->noipi_from || slot->noipi_gen != slot->wake_gen)
		return false;
	slot->wake_kind = WAKE_NO_IPI;
	slot->wake_detail = slot->noipi_from - 1;
	return true;
}

/* Whether this CPU's run queue has work at its idle exit: a task queued
 * (nr_running) or a wakelist entry (ttwu_pending). Reached through the idle
 * task's root cfs_rq (CONFIG_FAIR_GROUP_SCHED), not the per-CPU
 * `runqueues`: a kernel without CONFIG_KALLSYMS_ALL cannot resolve a data
 * ksym. The loader checks the same fields (noipi_inferred). */
struct cfs_rq___grp {
	struct rq *rq;
} __attribute__((preserve_access_index));

static __always_inline bool rq_has_work(bool btf)
{
	struct task_struct *t;
	struct cfs_rq___grp *cfs;
	struct rq *rq;

	if (!bpf_core_field_exists(struct sched_entity, cfs_rq) ||
	    !bpf_core_field_exists(struct cfs_rq___grp, rq))
		return false;
	/* bpf_get_current_task_btf came in 5.11: before, the CO-RE reads */
	if (!bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_get_current_task_btf))
		btf = false;
	t = btf ? bpf_get_current_task_btf() : (struct task_struct *)bpf_get_current_task();
	cfs = (struct cfs_rq___grp *)KREAD(btf, t, se.cfs_rq);
	if (!cfs)
		return false;
	rq = KREAD(btf, cfs, rq);
	if (!rq)
		return false;
	if (KREAD(btf, rq, nr_running))
		return true;
	return bpf_core_field_exists(struct rq, ttwu_pending) && KREAD(btf, rq, ttwu_pending);
}

/* A period of a state whose wakers need no IPI (idle_params.noipi_mask: it
 * polls, or MWAIT watches the flag) that ended with no interrupt seen
 * and work on the run queue was ended by a waker that set need-resched
 * without an IPI: poll-resched, known at the exit, so that the waker's
 * sched_wake_idle_without_ipi (a read of this CPU's slot from the waker)
 * is not hooked. live: 1 tp_btf, 2 raw_tp, 0 replay (facts: the event's). */
static __always_inline bool noipi_at_exit(__u32 cpu, __u32 state, int live, __u32 facts)
{
	struct idle_params *p;

	if (!live)
		return facts & RE_EXIT_NOIPI;
	if (!noipi_inferred || state >= 32)
		return false;
	p = bpf_map_lookup_elem(&idle_params, &cpu);
	if (!p || !((p->noipi_mask >> state) & 1))
		return false;
	return rq_has_work(live == 1);
}

/* A period of a polling state that nothing ended: no interrupt inside, no
 * work on the run queue (noipi_at_exit) and as long as the poll's limit.
 * poll_idle() stops there with nothing to run (drivers/cpuidle/
 * poll_state.c: local_clock() past cpuidle_poll_time()); the BPF interval
 * spans the kernel's, so every such stop is at least the limit. Under the
 * haltpoll governor the limit moves per period (poll_limit_ns 0): the next
 * entry tells instead (wake_on_enter). */
static __always_inline bool poll_timed_out(__u32 cpu, __u32 state, __u64 r)
{
	struct idle_params *p;

	if (state >= 32)
		return false;
	p = bpf_map_lookup_elem(&idle_params, &cpu);
	return p && ((p->poll_mask >> state) & 1) && p->poll_limit_ns && r >= p->poll_limit_ns;
}

/* From handle_idle at a counted exit of residency r. early: 1/0, or -1
 * without a table. */
static __always_inline void wake_on_exit(__u32 cpu, struct idle_cpu_slot *slot, __u64 now_ns,
					 __u64 r, __u32 state, int early, int live, __u32 facts)
{
	slot->wake_exit_ns = now_ns;
	slot->wake_state = (__u8)state;
	slot->wake_early = early > 0;
	if (slot->wake_kind != WAKE_UNKNOWN || noipi_take(slot)) {
		wake_count(cpu, slot); /* HLT-style: the interrupt ran inside */
	} else if (noipi_at_exit(cpu, state, live, facts)) {
		slot->wake_kind = WAKE_NO_IPI;
		slot->wake_detail = 0; /* the waker is not known here */
		wake_count(cpu, slot);
	} else if (poll_timed_out(cpu, state, r)) {
		slot->wake_kind = WAKE_POLL_TIMEOUT;
		wake_count(cpu, slot);
	} else {
		slot->wake_pending = 1; /* MWAIT/WFI-style: it comes after the exit */
	}
}

/* From handle_idle at an enter: close the previous period's wake.
 * poll_ended: the haltpoll governor's choice says that period was a poll
 * that reached its limit (haltpoll.bpf.h). */
static __always_inline void wake_on_enter(__u32 cpu, struct idle_cpu_slot *slot, bool poll_ended)
{
	if (slot->wake_pending) {
		/* nothing else came in the window: unknown, or the poll's end */
		if (!noipi_take(slot) && poll_ended)
			slot->wake_kind = WAKE_POLL_TIMEOUT;
		wake_count(cpu, slot);
	}
	if (details_enabled && slot->wake_open && slot->wakee_tag == WAKEE_TAG(slot->wake_gen)) {
		wake_detail_add(cpu, WDETAIL_WAKEE, slot->waker_cpu, slot->wakee_pid,
				slot->wake_early, slot->wakee_comm);
		/* the wakeup that ended a group's all-idle time: aux = the
		 * largest such group */
		if (slot->ended_group && groups_enabled)
			wake_detail_add(cpu, WDETAIL_GROUP_WAKEE, slot->ended_group - 1,
					slot->wakee_pid, 0, slot->wakee_comm);
	}
	slot->ended_group = 0;
	slot->wake_kind = WAKE_UNKNOWN;
	slot->wake_open = 0;
	slot->wake_softirq_seen = 0;
	slot->wake_lat_done = 0;
	/* a new wake: the wakee tagged with the last one is stale; the tag is
	 * cleared once per wrap so that no old tag matches again */
	if (!++slot->wake_gen) {
		slot->wakee_tag = 0;
		slot->noipi_from = 0;
	}
}

/* A wake is in progress on this CPU: idle, or just out of a counted period.
 * Line 0's view, for the CPUs that wake this one. */
static __always_inline bool wake_in_progress(const struct idle_cpu_slot *slot)
{
	return slot->enter_ns || slot->wake_pending || slot->wake_open;
}

/* The same on line 1, for this CPU's own interrupt path: set after every
 * idle event (handle_idle), and by the interrupt path itself where it
 * counts a pending cause (handle_wake_event). */
static __always_inline void wake_phase_sync(struct idle_cpu_slot *slot)
{
	slot->wake_phase = slot->enter_ns ? WP_IDLE :
			   slot->wake_pending ? WP_PENDING :
			   slot->wake_open ? WP_OPEN : WP_NONE;
}

/* An event that may have ended the idle period of `cpu`. now_ns is only
 * needed for a cause that arrives after the exit; live callers pass 0 and
 * the clock is read then (it costs more than the rest of the handler). */
static __always_inline void handle_wake_event(__u32 cpu, __u64 now_ns, __u32 kind, __u64 detail)
{
	struct idle_cpu_slot *slot;
	__u8 phase;

	/* The slot's line 1 only. Inside a period (an interrupt inside HLT)
	 * only that line is written, which a stopped window's reader does
	 * not take from it (the period in flight at the stop is never
	 * counted): the window's line, `stopped`, is read only where
	 * statistics change, so the first program after a halt touches one
	 * line that the floor does not. */
	slot = bpf_map_lookup_elem(&idle_slots, &cpu);
	if (!slot)
		return;
	phase = slot->wake_phase;
	if (phase == WP_NONE)
		return;
	/* stored once per wake: most softirqs run with the line left clean */
	if (kind == WAKE_SOFTIRQ && !slot->wake_softirq_seen)
		slot->wake_softirq_seen = 1;
	if (phase == WP_IDLE) {
		/* inside the period: the first event is its cause */
		if (slot->wake_kind == WAKE_UNKNOWN && !noipi_take(slot)) {
			slot->wake_kind = (__u8)kind;
			slot->wake_detail = detail;
		}
		return;
	}
	if (phase == WP_PENDING && !stopped) {
		if (!now_ns)
			now_ns = bpf_ktime_get_ns();
		if (!noipi_take(slot) && now_ns - slot->wake_exit_ns <= wake_window_ns) {
			slot->wake_kind = (__u8)kind;
			slot->wake_detail = detail;
		}
		wake_count(cpu, slot);
		slot->wake_phase = WP_OPEN;
	}
}

/* sched_wake_idle_without_ipi on the waker: target was polling and is
 * told to reschedule. The waker reads the target's line 0 (a wake in
 * progress: in a period, or exited, then line 1's exit time for the wake
 * window) and marks the target's sender line; the target takes the mark
 * as its cause when nothing came before it (noipi_take), so that no
 * waker writes the attribution line the target's own interrupt-path
 * programs write. Hooked only where the exit cannot infer poll-resched. */
static __always_inline void handle_no_ipi(__u32 target, __u64 now_ns, __u32 waker)
{
	struct idle_cpu_slot *slot = bpf_map_lookup_elem(&idle_slots, &target);

	if (!slot || !wake_in_progress(slot))
		return;
	if (!slot->enter_ns) {
		if (!slot->wake_pending || stopped)
			return;
		if (!now_ns)
			now_ns = bpf_ktime_get_ns();
		if (now_ns - slot->wake_exit_ns > wake_window_ns)
			return;
	}
	slot->noipi_gen = slot->wake_gen;
	slot->noipi_from = (__u16)(waker + 1);
}

/* hrtimer_expire_entry on `cpu`: the slot when this timer may have ended
 * its period (the first one after a timer interrupt, or after an IRQ before
 * any softirq, which is how the arm64 arch timer shows), else NULL. Asked
 * before the timer is read: most expiries are not wanted. */
static __always_inline struct idle_cpu_slot *hrtimer_wanted(__u32 cpu)
{
	struct idle_cpu_slot *slot = bpf_map_lookup_elem(&idle_slots, &cpu);
	__u8 kind;

	if (!slot || slot->wake_phase == WP_NONE || slot->wake_lat_done)
		return NULL;
	kind = slot->wake_kind;
	if (kind != WAKE_TIMER && (kind != WAKE_IRQ || slot->wake_softirq_seen))
		return NULL;
	return slot;
}

/* The wanted timer: its function and lateness now - expires. */
static __always_inline void hrtimer_record(__u32 cpu, struct idle_cpu_slot *slot, __u64 fn,
					   __s64 expires, __s64 hnow, __s64 base_offset)
{
	if (gov_enabled)
		gov_timer_seen(cpu, (__u64)(expires - base_offset));
	slot->timer_fn = fn;
	slot->timer_lat_ns = hnow > expires ? (__u64)(hnow - expires) : 0;
	slot->wake_lat_done = 1;
	/* the period was already counted: its statistics, not after a stop */
	if (slot->wake_phase == WP_OPEN && !stopped)
		wake_account_timer(cpu, slot);
}

static __always_inline void handle_hrtimer(__u32 cpu, __u64 fn, __s64 expires, __s64 hnow)
{
	struct idle_cpu_slot *slot = hrtimer_wanted(cpu);

	if (slot)
		hrtimer_record(cpu, slot, fn, expires, hnow, 0);
}

/* The slot of target when its wake still wants its first wakee, else NULL:
 * most wakeups need nothing more, not even the task's pid and comm. */
static __always_inline struct idle_cpu_slot *wakee_wanted(__u32 target)
{
	struct idle_cpu_slot *slot = bpf_map_lookup_elem(&idle_slots, &target);

	/* no `stopped` here: the wakee reaches the statistics at the CPU's
	 * next idle entry, which the window's stop already guards */
	if (!slot || !wake_in_progress(slot) || slot->wakee_tag == WAKEE_TAG(slot->wake_gen))
		return NULL;
	return slot;
}

/* sched_wakeup on the waker's CPU (or on the target, for wakelist wakeups):
 * the first task woken onto an idle-or-waking CPU during its wake. */
static __always_inline void set_wakee(struct idle_cpu_slot *slot, __u32 this_cpu, __u32 target,
				      __u32 pid, const char *comm)
{
	slot->wakee_pid = pid;
	__builtin_memcpy(slot->wakee_comm, comm, sizeof(slot->wakee_comm));
	/* On the target itself the waker is whoever sent the IPI, or the CPU
	 * itself (a timer callback, an interrupt handler). */
	if (this_cpu != target)
		slot->waker_cpu = this_cpu;
	else if (slot->wake_kind >= WAKE_IPI_RESCHED && slot->wake_kind <= WAKE_IPI_OTHER &&
		 slot->ipi_from)
		slot->waker_cpu = slot->ipi_from - 1;
	else
		slot->waker_cpu = this_cpu;
	slot->wakee_tag = WAKEE_TAG(slot->wake_gen);
}

static __always_inline void handle_sched_wakeup(__u32 this_cpu, __u32 target, __u32 pid,
						const char *comm)
{
	struct idle_cpu_slot *slot = wakee_wanted(target);

	if (slot)
		set_wakee(slot, this_cpu, target, pid, comm);
}

/* ipi_send_cpu on the sender: remember who interrupted the target. */
static __always_inline void handle_ipi_send(__u32 this_cpu, __u32 target)
{
	struct idle_cpu_slot *slot = bpf_map_lookup_elem(&idle_slots, &target);

	if (slot && slot->ipi_from != this_cpu + 1)
		slot->ipi_from = this_cpu + 1; /* 0 = none yet */
}

#endif
