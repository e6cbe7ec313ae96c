// SPDX-License-Identifier: GPL-2.0
/* Idle-state residency and prediction error, computed per idle period in the
 * kernel from power:cpu_idle (and power:cpu_idle_miss where it exists). */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "idle_stats.h"

char LICENSE[] SEC("license") = "GPL";

/* Sized by the loader (number of possible CPUs); replay sizes them too. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct idle_cpu_slot);
} idle_slots SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct idle_params);
} idle_params SEC(".maps");

/* Indexed by cpu * IS_MAX_STATES + state. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, IS_MAX_STATES);
	__type(key, __u32);
	__type(value, struct idle_state_stats);
} idle_stats SEC(".maps");

/* The window: exits before start_ns are not counted; from stop_ns on the
 * handlers do nothing, so map reads after it see a frozen picture, including
 * the period each CPU had in flight. 0 = unset. */
__u64 start_ns;
__u64 stop_ns;
/* Events for a CPU beyond the maps (should stay 0; printed if not). */
__u64 cpu_out_of_range;

static __always_inline __u32 lowest_bit_index(__u32 mask)
{
	return is_msb64(mask & -mask);
}

/* The kernel's classification (drivers/cpuidle/cpuidle.c,
 * cpuidle_enter_state): above needs an enabled shallower state; below
 * compares residency - exit latency against the first enabled deeper state
 * only. Residency here is the BPF interval, a little longer than the
 * kernel's local_clock() diff. */
static __always_inline void classify(struct idle_state_stats *st,
				     const struct idle_params *p, __u64 s, __u64 r)
{
	__u32 nr = p->nr_states, enabled, shallower, deeper, d;
	__u64 ideal = 0;
	int i;

	if (nr > IS_MAX_STATES)
		nr = IS_MAX_STATES;
	enabled = ~p->disabled_mask & ((1u << nr) - 1);
	shallower = enabled & ((1u << s) - 1);
	deeper = enabled & ~((2u << s) - 1);

	if (r < p->target_residency_ns[s]) {
		if (shallower)
			st->above++;
	} else if (r > p->exit_latency_ns[s] && deeper) {
		d = lowest_bit_index(deeper);
		if (d < IS_MAX_STATES &&
		    r - p->exit_latency_ns[s] >= p->target_residency_ns[d]) {
			st->below++;
			if (p->exit_latency_ns[d] > p->qos_limit_ns)
				st->below_qos++;
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
}

static __always_inline void account(__u32 cpu, __u64 s, __u64 r)
{
	struct idle_state_stats *st;
	struct idle_params *p;
	__u32 key, b;

	if (s >= IS_MAX_STATES)
		return;
	key = cpu * IS_MAX_STATES + (__u32)s;
	st = bpf_map_lookup_elem(&idle_stats, &key);
	if (!st)
		return;
	st->entries++;
	st->time_ns += r;
	if (!st->min_ns || r < st->min_ns)
		st->min_ns = r;
	if (r > st->max_ns)
		st->max_ns = r;
	b = is_hist_bucket(r);
	if (b < IS_HIST_BUCKETS)
		st->hist[b]++;

	p = bpf_map_lookup_elem(&idle_params, &cpu);
	if (!p || !(p->flags & IS_PARAMS_VALID) || (p->flags & IS_PARAMS_NO_CLASSIFY) ||
	    s >= p->nr_states)
		return;
	classify(st, p, s, r);
}

/* One idle event: state != IS_PWR_EVENT_EXIT starts a period on cpu, EXIT
 * ends it. now_ns is read as early as the caller can on exit. */
static __always_inline void handle_idle(__u32 cpu, __u64 now_ns, __u32 state)
{
	struct idle_cpu_slot *slot;
	__u64 enter;

	slot = bpf_map_lookup_elem(&idle_slots, &cpu);
	if (!slot) {
		__sync_fetch_and_add(&cpu_out_of_range, 1);
		return;
	}
	if (stop_ns && now_ns > stop_ns) {
		slot->last_counted = 0; /* frozen, except that misses stop counting */
		return;
	}
	if (state != IS_PWR_EVENT_EXIT) {
		if (state >= IS_MAX_STATES) {
			slot->bad_state++;
			slot->enter_ns = 0;
			return;
		}
		slot->state = state;
		slot->enter_ns = now_ns;
		return;
	}
	enter = slot->enter_ns;
	slot->enter_ns = 0;
	slot->last_counted = 0;
	if (now_ns < start_ns)
		return;
	if (!enter) {
		/* The period began before we attached. */
		if (!slot->unmatched_exits)
			slot->first_exit_ns = now_ns;
		slot->unmatched_exits++;
		return;
	}
	/* Like the kernel's usage/time, a period counts whole at its exit. */
	slot->last_counted = 1;
	account(cpu, slot->state, now_ns - enter);
}

/* power:cpu_idle_miss (v6.0+): the kernel's own above/below decision. It
 * fires after the exit event of the same period on the same CPU, so it
 * counts exactly when that period was counted (window edges included). */
static __always_inline void handle_idle_miss(__u32 cpu, __u32 state, __u32 below)
{
	struct idle_state_stats *st;
	struct idle_cpu_slot *slot;
	__u32 key;

	if (state >= IS_MAX_STATES)
		return;
	slot = bpf_map_lookup_elem(&idle_slots, &cpu);
	if (!slot || !slot->last_counted)
		return;
	key = cpu * IS_MAX_STATES + state;
	st = bpf_map_lookup_elem(&idle_stats, &key);
	if (!st)
		return;
	if (below)
		st->miss_below++;
	else
		st->miss_above++;
}

/* Live wrappers; the loader autoloads one of tp_btf / raw_tp. u64 arguments
 * keep clang from re-extending the u32s after bounds checks. */
SEC("tp_btf/cpu_idle")
int BPF_PROG(tp_btf_cpu_idle, __u64 state, __u64 cpu_id)
{
	handle_idle((__u32)cpu_id, bpf_ktime_get_ns(), (__u32)state);
	return 0;
}

SEC("raw_tp/cpu_idle")
int BPF_PROG(raw_tp_cpu_idle, __u64 state, __u64 cpu_id)
{
	handle_idle((__u32)cpu_id, bpf_ktime_get_ns(), (__u32)state);
	return 0;
}

SEC("tp_btf/cpu_idle_miss")
int BPF_PROG(tp_btf_cpu_idle_miss, __u64 cpu_id, __u64 state, __u64 below)
{
	handle_idle_miss((__u32)cpu_id, (__u32)state, (__u32)(below & 1));
	return 0;
}

SEC("raw_tp/cpu_idle_miss")
int BPF_PROG(raw_tp_cpu_idle_miss, __u64 cpu_id, __u64 state, __u64 below)
{
	handle_idle_miss((__u32)cpu_id, (__u32)state, (__u32)(below & 1));
	return 0;
}

/* Replay: never attached; BPF_PROG_TEST_RUN passes a struct replay_event as
 * the context, and the same handlers run with the event's cpu and clock. */
SEC("raw_tp")
int replay_idle(struct bpf_raw_tracepoint_args *ctx)
{
	__u64 kind = ctx->args[0], cpu = ctx->args[1], now = ctx->args[2];
	__u64 state = ctx->args[3], arg = ctx->args[4];

	if (kind == REPLAY_IDLE)
		handle_idle((__u32)cpu, now, (__u32)state);
	else if (kind == REPLAY_IDLE_MISS)
		handle_idle_miss((__u32)cpu, (__u32)state, (__u32)(arg & 1));
	else
		return 1;
	return 0;
}
