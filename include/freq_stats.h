/* Map layout for frequency residency (bpf/freq.bpf.h). __u* only. */
#ifndef IDLESCOPE_FREQ_STATS_H
#define IDLESCOPE_FREQ_STATS_H

#define IS_FREQ_SLOTS 32 /* distinct frequencies kept per CPU */

/* Per CPU: the current frequency and the time spent at each one seen. */
struct freq_cpu {
	__u32 cur_khz;   /* 0 = unknown (no snapshot, no event yet) */
	__u32 nr;        /* used entries of khz[] */
	__u64 since_ns;  /* cur_khz held since */
	__u64 changes;
	__u64 drops;     /* a frequency beyond IS_FREQ_SLOTS */
	__u32 khz[IS_FREQ_SLOTS];
	__u64 time_ns[IS_FREQ_SLOTS];
} __attribute__((aligned(64)));

#endif
