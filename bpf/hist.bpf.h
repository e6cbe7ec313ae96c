/* `idlescope hist`: one metric, chosen at load time (hist_metric rodata, so
 * the verifier drops the other paths), into per-CPU, per-state histograms.
 * Included by idlescope.bpf.c. */
#ifndef IDLESCOPE_HIST_BPF_H
#define IDLESCOPE_HIST_BPF_H

#include "maps.bpf.h"
#include "stat.bpf.h"

static __always_inline __u32 disp_bucket(__u64 v)
{
	__u64 u;

	if (hist_linear_ns) {
		u = v / hist_linear_ns;
		return u < IS_DISP_BUCKETS ? (__u32)u : IS_DISP_BUCKETS - 1;
	}
	u = v / hist_unit_ns;
	if (!u)
		return 0;
	u = is_msb64(u) + 1;
	return u < IS_DISP_BUCKETS ? (__u32)u : IS_DISP_BUCKETS - 1;
}

static __always_inline void hist_add(__u32 cpu, __u32 state, __u64 v)
{
	struct hist_slot *h;
	__u32 key, b;

	if (state >= state_slots)
		return;
	key = cpu * state_slots + state;
	h = bpf_map_lookup_elem(&hist_data, &key);
	if (!h)
		return;
	stat_add(&h->count, &h->sum_ns, &h->min_ns, &h->max_ns, h->fine, v);
	b = disp_bucket(v);
	if (b < IS_DISP_BUCKETS)
		h->disp[b]++;
}

#endif
