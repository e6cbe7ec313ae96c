/* Frequency residency from power:cpu_frequency (idlestat -p parity): time
 * per CPU at each frequency, starting from the loader's snapshot of
 * scaling_cur_freq. Included by idlescope.bpf.c. */
#ifndef IDLESCOPE_FREQ_BPF_H
#define IDLESCOPE_FREQ_BPF_H

#include "maps.bpf.h"

static __always_inline void freq_charge(struct freq_cpu *f, __u64 now_ns)
{
	__u64 from = f->since_ns > start_ns ? f->since_ns : start_ns;
	__u32 i;

	if (!f->cur_khz || now_ns <= from)
		return;
	for (i = 0; i < IS_FREQ_SLOTS; i++) {
		if (i == f->nr) {
			f->khz[i] = f->cur_khz;
			f->nr = i + 1;
		}
		if (f->khz[i] == f->cur_khz) {
			f->time_ns[i] += now_ns - from;
			return;
		}
	}
	f->drops++;
}

/* cpu_frequency: cpu runs at khz from now on. */
static __always_inline void handle_cpu_frequency(__u32 cpu, __u64 now_ns, __u32 khz)
{
	struct freq_cpu *f;

	if (stopped)
		return;
	f = bpf_map_lookup_elem(&freq_cpus, &cpu);
	if (!f)
		return;
	if (now_ns >= start_ns)
		freq_charge(f, now_ns);
	if (khz != f->cur_khz)
		f->changes += now_ns >= start_ns;
	f->cur_khz = khz;
	f->since_ns = now_ns;
}

#endif
