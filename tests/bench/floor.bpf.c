// SPDX-License-Identifier: GPL-2.0
/* The cheapest observer of the events idlescope's default session hooks:
 * each program bumps its event's per-CPU counter, and cpu_idle reads the
 * clock once, as any idle tracer must. `make bench` measures idlescope's
 * programs against these, event by event (an interrupt-path event runs on a
 * CPU just out of idle, with cold caches: its floor says what that costs). */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

enum { C_IDLE, C_CLOCK, C_WAKEUP, C_SWITCH, C_IRQPATH, C_NR };

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, C_NR);
	__type(key, __u32);
	__type(value, __u64);
} counts SEC(".maps");

static __always_inline void bump(__u32 k, __u64 v)
{
	__u64 *c = bpf_map_lookup_elem(&counts, &k);

	if (c)
		*c += v;
}

SEC("tp_btf/cpu_idle")
int BPF_PROG(floor_cpu_idle, __u64 state, __u64 cpu)
{
	bump(C_IDLE, 1);
	bump(C_CLOCK, bpf_ktime_get_ns() & 1); /* the clock read a residency needs */
	return 0;
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(floor_sched_wakeup, struct task_struct *p)
{
	bump(C_WAKEUP, 1);
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(floor_sched_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	bump(C_SWITCH, 1);
	return 0;
}

/* The interrupt path (floor.c leaves out those this kernel lacks). */
#define FLOOR(event)                                  \
	SEC("tp_btf/" #event)                         \
	int BPF_PROG(floor_##event)                   \
	{                                             \
		bump(C_IRQPATH, 1);                   \
		return 0;                             \
	}
FLOOR(local_timer_entry)
FLOOR(reschedule_entry)
FLOOR(call_function_entry)
FLOOR(call_function_single_entry)
FLOOR(irq_handler_entry)
FLOOR(softirq_entry)
FLOOR(hrtimer_expire_entry)
FLOOR(ipi_send_cpu)
FLOOR(sched_wake_idle_without_ipi)
