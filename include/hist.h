/* Log2 histogram with 4 linear sub-buckets per power of two, in nanoseconds.
 * Shared by the BPF side (bucketing) and userspace (bounds, percentiles). */
#ifndef IDLESCOPE_HIST_H
#define IDLESCOPE_HIST_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* Buckets 0..3 hold the values 0..3 exactly. From 4 on, bucket b covers
 * [(4 + b%4) << (b/4 - 1), (5 + b%4) << (b/4 - 1)), i.e. a quarter octave:
 * 25% wide at worst, 1 ns wide below 8 ns, 256 ns wide around 1 us. The last
 * bucket, from 7 << 38 ns (about 1924 s), also holds everything larger. */
#define IS_HIST_BUCKETS 160

/* Index of the most significant set bit of v (v > 0); branch-free enough for
 * the verifier and without __builtin_clzll, which BPF lacks. The parts are
 * disjoint bits, summed rather than OR-ed: the 6.1 verifier keeps bounds
 * through ADD but loses them through OR with a register. */
static inline __u32 is_msb64(__u64 v)
{
	__u32 r = 0, s;

	s = (v > 0xffffffffULL) << 5; v >>= s; r += s;
	s = (v > 0xffffULL) << 4; v >>= s; r += s;
	s = (v > 0xffULL) << 3; v >>= s; r += s;
	s = (v > 0xfULL) << 2; v >>= s; r += s;
	s = (v > 0x3ULL) << 1; v >>= s; r += s;
	r += (__u32)(v >> 1);
	return r;
}

static inline __u32 is_hist_bucket(__u64 ns)
{
	__u32 msb, b;

	if (ns < 4)
		return (__u32)ns;
	msb = is_msb64(ns);
	b = 4 * (msb - 1) + (__u32)((ns >> (msb - 2)) & 3);
	return b < IS_HIST_BUCKETS ? b : IS_HIST_BUCKETS - 1;
}

/* Smallest value that lands in bucket b. */
static inline __u64 is_hist_lower(__u32 b)
{
	if (b < 4)
		return b;
	return (__u64)(4 + b % 4) << (b / 4 - 1);
}

/* One past the largest value that lands in bucket b; for the open-ended
 * last bucket, the bound the formula gives (larger values land there too). */
static inline __u64 is_hist_upper(__u32 b)
{
	if (b < 4)
		return b + 1;
	return (__u64)(5 + b % 4) << (b / 4 - 1);
}

#endif
