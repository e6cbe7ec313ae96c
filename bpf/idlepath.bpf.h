/* fentry/fexit on the idle path, where the kernel allows them (autoload off
 * otherwise): the outcome of each cpuidle entry (fexit: the state entered,
 * or < 0 rejected), and `hist path-latency` between two functions.
 * Included by idlescope.bpf.c. */
#ifndef IDLESCOPE_IDLEPATH_BPF_H
#define IDLESCOPE_IDLEPATH_BPF_H

#include "maps.bpf.h"
#include "hist.bpf.h"

static __always_inline bool idlepath_window_open(__u64 now_ns)
{
	return now_ns >= start_ns && !(stop_ns && now_ns > stop_ns);
}

/* cpuidle_enter_state(dev, drv, index) returned ret on cpu: counted like the
 * kernel's usage (at the entered state) and rejected (at the requested one).
 * power:cpu_idle's exit fired just before, inside cpuidle_enter_state: the
 * outcome counts when that period did, with no clock read of its own. */
static __always_inline void handle_idle_outcome(__u32 cpu, int index, int ret)
{
	struct idle_state_stats *st;
	struct idle_cpu_slot *slot;
	__u32 key;

	if (index < 0 || (__u32)index >= state_slots)
		return;
	slot = bpf_map_lookup_elem(&idle_slots, &cpu);
	if (!slot || !slot->last_counted)
		return;
	key = cpu * state_slots + (__u32)index;
	st = bpf_map_lookup_elem(&idle_stats, &key);
	if (!st)
		return;
	if (ret < 0) {
		st->fx_rejected++;
		return;
	}
	if (ret != index) {
		st->fx_demoted++;
		if ((__u32)ret >= state_slots)
			return;
		key = cpu * state_slots + (__u32)ret;
		st = bpf_map_lookup_elem(&idle_stats, &key);
		if (!st)
			return;
	}
	st->fx_entered++;
}

/* d < IS_PATH_DEPTH at every use; clang knows and drops a plain mask, and the
 * 5.10/6.1 verifiers then lose the bound: mask behind an opaque barrier. */
static __always_inline __u32 path_index(__u32 d)
{
	asm volatile("" : "+r"(d));
	return d & (IS_PATH_DEPTH - 1);
}

static __always_inline void path_from_entry(__u32 cpu)
{
	struct path_cpu *p = bpf_map_lookup_elem(&path_cpus, &cpu);
	__u64 now = bpf_ktime_get_ns();
	__u32 d;

	/* nothing before the window: the three programs attach one by one,
	 * and a FROM seen without its fexit would stay pending for good */
	if (!p || !idlepath_window_open(now))
		return;
	d = p->depth;
	if (d > IS_PATH_DEPTH)
		d = IS_PATH_DEPTH;
	/* the previous FROM returned without reaching TO: forget it */
	if (d && ((p->returned >> (d - 1)) & 1)) {
		d--;
		p->returned &= ~(1u << d);
		p->replaced++;
	}
	if (d >= IS_PATH_DEPTH) {
		p->overflow++;
		p->depth = d;
		return;
	}
	p->ts[path_index(d)] = now;
	p->returned &= ~(1u << d);
	p->depth = d + 1;
}

/* FROM returned: its frame is the innermost one not returned yet (frames
 * above it are inner calls that returned and still wait for their TO). */
static __always_inline void path_from_exit(__u32 cpu)
{
	struct path_cpu *p = bpf_map_lookup_elem(&path_cpus, &cpu);
	int i;

	if (!p)
		return;
#pragma unroll
	for (i = IS_PATH_DEPTH - 1; i >= 0; i--) {
		if ((__u32)i < p->depth && !((p->returned >> i) & 1)) {
			p->returned |= 1u << i;
			break;
		}
	}
}

static __always_inline void path_to_entry(__u32 cpu)
{
	struct path_cpu *p = bpf_map_lookup_elem(&path_cpus, &cpu);
	__u64 now = bpf_ktime_get_ns(), ts;
	__u32 d;

	if (!p)
		return;
	d = p->depth;
	if (!d || d > IS_PATH_DEPTH) {
		if (idlepath_window_open(now))
			p->unmatched_to++;
		return;
	}
	d--;
	ts = p->ts[path_index(d)];
	p->returned &= ~(1u << d);
	p->depth = d;
	if (ts >= start_ns && idlepath_window_open(now) && now >= ts)
		hist_add(cpu, 0, now - ts);
}

#endif
