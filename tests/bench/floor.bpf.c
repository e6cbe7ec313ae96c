// SPDX-License-Identifier: GPL-2.0
/* The cheapest observer on this kernel: count cpu_idle, sched_wakeup and
 * sched_switch into a per-CPU array, reading the clock once on cpu_idle as
 * any idle tracer must. `make bench` measures idlescope against it. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 4);
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
	bump(0, 1);
	bump(3, bpf_ktime_get_ns() & 1); /* the clock read a residency needs */
	return 0;
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(floor_sched_wakeup, struct task_struct *p)
{
	bump(1, 1);
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(floor_sched_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	bump(2, 1);
	return 0;
}
