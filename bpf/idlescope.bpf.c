// SPDX-License-Identifier: GPL-2.0
/* All of idlescope's BPF programs: thin live wrappers (tp_btf, with raw_tp
 * fallbacks chosen by the loader) around handlers written once per concern in
 * the *.bpf.h files; the replay entry points are in replay.bpf.h. */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "idle_stats.h"
#include "wake_stats.h"
#include "hist_data.h"
#include "group_stats.h"
#include "pack_stats.h"
#include "freq_stats.h"
#include "haltpoll_stats.h"
#include "replay_event.h"
#include "qos_stats.h"

char LICENSE[] SEC("license") = "GPL";

#include "maps.bpf.h"
#include "hist.bpf.h"
#include "wake.bpf.h"
#include "sched.bpf.h"
#include "pack.bpf.h"
#include "freq.bpf.h"
#include "group.bpf.h"
#include "haltpoll.bpf.h"
#include "idle.bpf.h"
#include "idlepath.bpf.h"
#include "replay.bpf.h"
#include "poke.bpf.h"
#include "qos.bpf.h"

/* One handler call, two attach flavours. Arguments are declared u64 (or as
 * pointers read with CO-RE) so both flavours take the same body. The live
 * object (Makefile: idlescope_live.bpf.o), opened only where every event
 * takes tp_btf (idle_loader.c), keeps the raw_tp programs' names and none
 * of their code: instructions and line info a live session would hold on
 * its heap and never load. */
#ifdef IS_LIVE_OBJECT
#define RAW_TP_BODY(call) { return 0; }
#else
#define RAW_TP_BODY(call) { const bool btf = false; (void)btf; call; return 0; }
#endif
#define TP_PAIR(event, call, args...)                                      \
	SEC("tp_btf/" #event)                                              \
	int BPF_PROG(tp_btf_##event, ##args)                               \
	{ const bool btf = true; (void)btf; call; return 0; }              \
	SEC("raw_tp/" #event)                                              \
	int BPF_PROG(raw_tp_##event, ##args)                               \
	RAW_TP_BODY(call)

static __always_inline __u32 this_cpu(void)
{
	return bpf_get_smp_processor_id();
}

/* power */
TP_PAIR(cpu_idle, handle_idle((__u32)cpu_id, bpf_ktime_get_ns(), (__u32)state, btf ? 1 : 2, 0),
	__u64 state, __u64 cpu_id)
TP_PAIR(cpu_frequency, handle_cpu_frequency((__u32)cpu_id, bpf_ktime_get_ns(), (__u32)state),
	__u64 state, __u64 cpu_id)
TP_PAIR(cpu_idle_miss, handle_idle_miss((__u32)cpu_id, (__u32)state, (__u32)(below & 1)),
	__u64 cpu_id, __u64 state, __u64 below)
/* guest halt-polling: the poll limit moved (haltpoll.bpf.h) */
TP_PAIR(guest_halt_poll_ns,
	handle_halt_poll(this_cpu(), bpf_ktime_get_ns(), (bool)(grow & 1), (__u32)new_ns,
			 (__u32)old_ns),
	__u64 grow, __u64 new_ns, __u64 old_ns)

/* PM QoS: any constraint's aggregate changed (qos.bpf.h) */
TP_PAIR(pm_qos_update_target, handle_qos_change((__s32)prev_value, (__s32)curr_value),
	__u64 action, __u64 prev_value, __u64 curr_value)
/* PM QoS requests: who asked, for what (the ledger, qos.bpf.h) */
TP_PAIR(pm_qos_add_request, handle_qos_request(QOS_ADD, QOS_SCOPE_CPU_LATENCY, (__s32)value, 0),
	__u64 value)
TP_PAIR(pm_qos_update_request,
	handle_qos_request(QOS_UPDATE, QOS_SCOPE_CPU_LATENCY, (__s32)value, 0), __u64 value)
TP_PAIR(pm_qos_remove_request,
	handle_qos_request(QOS_REMOVE, QOS_SCOPE_CPU_LATENCY, (__s32)value, 0), __u64 value)
TP_PAIR(dev_pm_qos_add_request,
	handle_dev_qos_request(QOS_ADD, name, (__u32)type, (__s32)value),
	const char *name, __u64 type, __u64 value)
TP_PAIR(dev_pm_qos_update_request,
	handle_dev_qos_request(QOS_UPDATE, name, (__u32)type, (__s32)value),
	const char *name, __u64 type, __u64 value)
TP_PAIR(dev_pm_qos_remove_request,
	handle_dev_qos_request(QOS_REMOVE, name, (__u32)type, (__s32)value),
	const char *name, __u64 type, __u64 value)
/* CPU hotplug: record's online mask read, the disable flags watched again */
TP_PAIR(cpuhp_exit, handle_hotplug_step(), __u64 cpu, __u64 state, __u64 idx, __u64 ret)

/* x86 interrupt vectors: the cause of a wakeup, on the woken CPU */
TP_PAIR(local_timer_entry, handle_wake_event(this_cpu(), 0, WAKE_TIMER, 0),
	__u64 vector)
TP_PAIR(reschedule_entry, handle_wake_event(this_cpu(), 0, WAKE_IPI_RESCHED, 0),
	__u64 vector)
TP_PAIR(call_function_entry, handle_wake_event(this_cpu(), 0, WAKE_IPI_CALL, 0),
	__u64 vector)
TP_PAIR(call_function_single_entry,
	handle_wake_event(this_cpu(), 0, WAKE_IPI_CALL_SINGLE, 0), __u64 vector)
TP_PAIR(irq_work_entry, handle_wake_event(this_cpu(), 0, WAKE_IPI_IRQ_WORK, 0),
	__u64 vector)
TP_PAIR(x86_platform_ipi_entry,
	handle_wake_event(this_cpu(), 0, WAKE_IPI_OTHER, vector), __u64 vector)
TP_PAIR(thermal_apic_entry,
	handle_wake_event(this_cpu(), 0, WAKE_IPI_OTHER, vector), __u64 vector)

/* every arch */
TP_PAIR(irq_handler_entry,
	handle_wake_event(this_cpu(), 0, WAKE_IRQ, (__u32)irq),
	__u64 irq, void *action)
TP_PAIR(softirq_entry,
	handle_wake_event(this_cpu(), 0, WAKE_SOFTIRQ, (__u32)vec), __u64 vec)
TP_PAIR(sched_wake_idle_without_ipi, handle_no_ipi((__u32)cpu, 0, this_cpu()), __u64 cpu)
TP_PAIR(ipi_send_cpu, handle_ipi_send(this_cpu(), (__u32)cpu), __u64 cpu, __u64 callsite,
	__u64 callback)

static __always_inline void on_hrtimer(struct hrtimer *t, ktime_t *nowp, bool btf)
{
	__u32 cpu = this_cpu();
	struct idle_cpu_slot *slot = hrtimer_wanted(cpu);
	__s64 hnow = 0, off = 0;

	if (!slot)
		return;
	bpf_probe_read_kernel(&hnow, sizeof(hnow), nowp);
	/* the base's offset to the monotonic clock, for the governor's
	 * comparison alone (its next event is a monotonic time) */
	if (gov_enabled)
		off = btf ? t->base->offset : BPF_CORE_READ(t, base, offset);
	hrtimer_record(cpu, slot, (__u64)KREAD(btf, t, function), KREAD(btf, t, node.expires),
		       hnow, off);
}
TP_PAIR(hrtimer_expire_entry, on_hrtimer(hrtimer, now, btf), struct hrtimer *hrtimer, ktime_t *now)

/* A task's comm into buf: two loads through the BTF pointer (tp_btf),
 * else one fixed-size copy. Not a string read: the kernel keeps comm
 * NUL-terminated in its 16 bytes, and probe_read_kernel_str's
 * byte-at-a-time copy cost more than the rest of a wakeup's handler. */
static __always_inline void task_comm(char buf[16], struct task_struct *p, bool btf)
{
	if (btf) {
		__u64 *dst = (__u64 *)buf;

		dst[0] = *(__u64 *)&p->comm[0];
		dst[1] = *(__u64 *)&p->comm[8];
	} else {
		BPF_CORE_READ_INTO((char (*)[16])buf, p, comm);
	}
}

/* hm: which hist metric this wakeup event feeds (HM_NONE: attribution only) */
/* Reads of the task cost more than the rest: each is made only when needed. */
static __always_inline void on_sched_wakeup(struct task_struct *p, __u32 hm, bool btf)
{
	__u32 pid;
	char comm[16];

	if (wake_enabled && details_enabled && hm != HM_WAKEUP_LATENCY) {
		__u32 target = task_cpu_of(p, btf);
		struct idle_cpu_slot *slot = wakee_wanted(target);

		if (slot) {
			task_comm(comm, p, btf);
			set_wakee(slot, this_cpu(), target, (__u32)KREAD(btf, p, pid), comm);
		}
	}
	if (!packing_enabled && hist_metric == HM_NONE)
		return;
	pid = (__u32)KREAD(btf, p, pid);
	if (packing_enabled && hm == HM_WAKEUP_LATENCY)
		pack_on_waking(this_cpu(), pid);
	else if (packing_enabled && hm == HM_RUNQ_LATENCY)
		pack_on_wakeup(task_cpu_of(p, btf), pid);
	if (hist_metric != HM_NONE && hist_metric == hm) {
		task_comm(comm, p, btf);
		handle_task_ready(bpf_ktime_get_ns(), pid, (__u32)KREAD(btf, p, tgid), comm);
	}
	else if (hist_metric == HM_WAKEUP_LATENCY && hm == HM_RUNQ_LATENCY)
		handle_task_wakeup(bpf_ktime_get_ns(), pid); /* sched_wakeup: the split */
}
TP_PAIR(sched_wakeup, on_sched_wakeup(p, HM_RUNQ_LATENCY, btf), struct task_struct *p)
TP_PAIR(sched_wakeup_new, on_sched_wakeup(p, HM_RUNQ_LATENCY, btf), struct task_struct *p)
TP_PAIR(sched_waking, on_sched_wakeup(p, HM_WAKEUP_LATENCY, btf), struct task_struct *p)

/* sched_switch gained prev_state in 5.18; before, read the racy task state
 * (renamed from state to __state in 5.14). */
typedef void (*btf_trace_sched_switch___new)(void *, bool, struct task_struct *,
					     struct task_struct *, unsigned int);
struct task_struct___state_old {
	long state;
} __attribute__((preserve_access_index));

static __always_inline void on_sched_switch(unsigned long long *ctx, struct task_struct *prev,
					    struct task_struct *next, bool btf)
{
	bool runnable = false;
	char comm[16] = {};

	if (hist_metric == HM_RUNQ_LATENCY) {
		long st;

		if (bpf_core_type_exists(btf_trace_sched_switch___new))
			st = (long)ctx[3];
		else if (bpf_core_field_exists(prev->__state))
			st = KREAD(btf, prev, __state);
		else
			st = KREAD(btf, (struct task_struct___state_old *)prev, state);
		runnable = st == 0; /* TASK_RUNNING */
		task_comm(comm, prev, btf);
	}
	__u64 now = bpf_ktime_get_ns();
	__u32 prev_pid = (__u32)KREAD(btf, prev, pid), next_pid = (__u32)KREAD(btf, next, pid);

	if (hist_metric != HM_NONE)
		handle_switch(this_cpu(), now, prev_pid, (__u32)KREAD(btf, prev, tgid), comm,
			      runnable, next_pid);
	if (packing_enabled) {
		if (hist_metric != HM_RUNQ_LATENCY)
			task_comm(comm, prev, btf);
		pack_on_switch(this_cpu(), now, prev_pid, comm, next_pid);
	}
}

static __always_inline __u64 task_state_of(struct task_struct *p)
{
	if (bpf_core_field_exists(p->__state))
		return BPF_CORE_READ(p, __state);
	return BPF_CORE_READ((struct task_struct___state_old *)p, state);
}
/* EAS bare tracepoints (tp_btf / raw_tp only) */
TP_PAIR(sched_overutilized_tp, handle_overutilized(bpf_ktime_get_ns(), (bool)(ou & 1)), void *rd,
	__u64 ou)

static __always_inline void on_pelt_cfs(struct cfs_rq *cfs_rq)
{
	struct rq *rq;

	/* with group scheduling only the root cfs_rq (rq->cfs) is the CPU's */
	if (bpf_core_field_exists(cfs_rq->rq)) {
		rq = BPF_CORE_READ(cfs_rq, rq);
		if ((void *)cfs_rq != (void *)__builtin_preserve_access_index(&rq->cfs))
			return;
		handle_pelt((__u32)BPF_CORE_READ(rq, cpu), bpf_ktime_get_ns(),
			    BPF_CORE_READ(cfs_rq, avg.util_avg));
		return;
	}
	handle_pelt(this_cpu(), bpf_ktime_get_ns(), BPF_CORE_READ(cfs_rq, avg.util_avg));
}
TP_PAIR(pelt_cfs_tp, on_pelt_cfs(cfs_rq), struct cfs_rq *cfs_rq)

TP_PAIR(sched_migrate_task, handle_migrate(task_cpu_of(p, btf), (__u32)dest_cpu, task_state_of(p)),
	struct task_struct *p, __u64 dest_cpu)
TP_PAIR(sched_switch, on_sched_switch(ctx, prev, next, btf), bool preempt, struct task_struct *prev,
	struct task_struct *next)

/* fentry/fexit (loader: autoload only where the probe attached one). The
 * idle outcome from cpuidle_enter_state, or from cpuidle_enter (same
 * arguments swapped, same return value) where the former is noinstr (6.3+). */
SEC("fexit/cpuidle_enter_state")
int BPF_PROG(fexit_cpuidle_enter_state, void *dev, void *drv, int index, int ret)
{
	handle_idle_outcome(this_cpu(), index, ret);
	return 0;
}

SEC("fexit/cpuidle_enter")
int BPF_PROG(fexit_cpuidle_enter, void *drv, void *dev, int index, int ret)
{
	handle_idle_outcome(this_cpu(), index, ret);
	return 0;
}

/* What the governor was told (gov.bpf.h): the sleep length it asked for,
 * then whether the idle loop stopped the tick or kept it. Only the
 * fexit's return value (ctx[1]) is read: its argument, a pointer to an
 * s64, is refused by the 5.10 verifier (btf_ctx_access: not a struct),
 * and the time to the next tick it gives is not used. */
/* The kernel counts the sleep length from the CPU's idle entry time
 * (tick_sched.idle_entrytime, set by tick_nohz_idle_enter): the same base
 * places the next event exactly. A kernel whose BTF lacks the per-CPU
 * variable gets the fexit's own time, a little late. */
extern const struct tick_sched tick_cpu_sched __ksym __weak;

SEC("fexit/tick_nohz_get_sleep_length")
int gov_sleep_length_fexit(__u64 *ctx)
{
	const struct tick_sched *ts = NULL;
	__u64 base = 0;

	if (&tick_cpu_sched)
		ts = bpf_this_cpu_ptr(&tick_cpu_sched);
	if (ts)
		base = (__u64)ts->idle_entrytime;
	gov_sleep_length(this_cpu(), base ? base : bpf_ktime_get_ns(), (__s64)ctx[1]);
	return 0;
}

SEC("fentry/tick_nohz_idle_stop_tick")
int BPF_PROG(gov_stop_tick_fentry)
{
	gov_tick(this_cpu(), false);
	return 0;
}

SEC("fentry/tick_nohz_idle_retain_tick")
int BPF_PROG(gov_retain_tick_fentry)
{
	gov_tick(this_cpu(), true);
	return 0;
}

/* path-latency: the targets are set by the loader (--from, --to). */
SEC("fentry/cpuidle_select")
int BPF_PROG(path_from_fentry)
{
	path_from_entry(this_cpu());
	return 0;
}

SEC("fexit/cpuidle_select")
int BPF_PROG(path_from_fexit)
{
	path_from_exit(this_cpu());
	return 0;
}

SEC("fentry/cpuidle_enter")
int BPF_PROG(path_to_fentry)
{
	path_to_entry(this_cpu());
	return 0;
}
