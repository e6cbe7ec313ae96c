/* Scheduler latencies for `idlescope hist`: sched_waking or sched_wakeup ->
 * the task switched in (per-task timestamps in an LRU hash, paid only when
 * one of these metrics is asked for), and the idle task's own entry/exit
 * overhead (per-CPU slot only). Included by idlescope.bpf.c. */
#ifndef IDLESCOPE_SCHED_BPF_H
#define IDLESCOPE_SCHED_BPF_H

#include "maps.bpf.h"
#include "hist.bpf.h"

static __always_inline bool task_selected(__u32 tgid, const char *comm)
{
	if (targ_tgid && tgid != targ_tgid)
		return false;
	if (filter_comm) {
		for (int i = 0; i < 16; i++) {
			if (comm[i] != targ_comm[i])
				return false;
			if (!comm[i])
				break;
		}
	}
	return true;
}

static __always_inline bool sched_window_open(__u64 now_ns)
{
	return !stopped && now_ns >= start_ns;
}

/* The task became runnable (waking: wakeup latency; wakeup/new: runq). */
static __always_inline void handle_task_ready(__u64 now_ns, __u32 pid, __u32 tgid,
					      const char *comm)
{
	struct task_ready r = { .ready_ns = now_ns };

	if (!pid || !sched_window_open(now_ns) || !task_selected(tgid, comm))
		return;
	bpf_map_update_elem(&task_ts, &pid, &r, BPF_ANY);
}

/* wakeup-latency: the sched_wakeup that follows a sched_waking. */
static __always_inline void handle_task_wakeup(__u64 now_ns, __u32 pid)
{
	struct task_ready *r = bpf_map_lookup_elem(&task_ts, &pid);

	if (r && !r->wakeup_ns)
		r->wakeup_ns = now_ns;
}

/* A context switch on cpu. prev_runnable: prev was preempted, still
 * runnable (runq latency restarts for it). */
static __always_inline void handle_switch(__u32 cpu, __u64 now_ns, __u32 prev_pid,
					  __u32 prev_tgid, const char *prev_comm,
					  bool prev_runnable, __u32 next_pid)
{
	struct idle_cpu_slot *slot;
	struct task_ready *r;

	if (!sched_window_open(now_ns))
		return;
	if (hist_metric == HM_WAKEUP_LATENCY || hist_metric == HM_RUNQ_LATENCY) {
		if (hist_metric == HM_RUNQ_LATENCY && prev_runnable && prev_pid)
			handle_task_ready(now_ns, prev_pid, prev_tgid, prev_comm);
		if (!next_pid)
			return;
		r = bpf_map_lookup_elem(&task_ts, &next_pid);
		if (!r)
			return;
		if (now_ns > r->ready_ns)
			hist_add(cpu, WP_TOTAL, now_ns - r->ready_ns);
		if (hist_metric == HM_WAKEUP_LATENCY && r->wakeup_ns >= r->ready_ns &&
		    now_ns >= r->wakeup_ns) {
			hist_add(cpu, WP_WAKEUP, r->wakeup_ns - r->ready_ns);
			hist_add(cpu, WP_RUNQ, now_ns - r->wakeup_ns);
		}
		bpf_map_delete_elem(&task_ts, &next_pid);
		return;
	}
	slot = bpf_map_lookup_elem(&idle_slots, &cpu);
	if (!slot)
		return;
	if (hist_metric == HM_IDLE_ENTRY && !next_pid)
		slot->to_idle_ns = now_ns;
	if (hist_metric == HM_IDLE_EXIT && !prev_pid && slot->last_exit_ns) {
		hist_add(cpu, slot->state, now_ns - slot->last_exit_ns);
		slot->last_exit_ns = 0;
	}
}

/* From handle_idle: the idle-entry and idle-exit ends of the intervals. */
static __always_inline void sched_on_idle(__u32 cpu, struct idle_cpu_slot *slot, __u64 now_ns,
					  __u32 state, bool exit)
{
	if (hist_metric == HM_IDLE_ENTRY && !exit && slot->to_idle_ns) {
		if (now_ns > slot->to_idle_ns)
			hist_add(cpu, state, now_ns - slot->to_idle_ns);
		slot->to_idle_ns = 0;
	}
	if (hist_metric == HM_IDLE_EXIT && exit)
		slot->last_exit_ns = now_ns;
}

#endif
