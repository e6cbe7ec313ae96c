/* The running statistics every per-period metric keeps (count, sum, min,
 * max and the quarter-octave histogram of include/hist.h), updated in one place. */
#ifndef IDLESCOPE_STAT_BPF_H
#define IDLESCOPE_STAT_BPF_H

/* Adds v to one map value's statistics. The fields come one by one because
 * each metric's struct names them for what it counts (entries or periods,
 * time_ns or sum_ns); min 0 means "none yet", as userspace reads it. */
static __always_inline void stat_add(__u64 *count, __u64 *sum, __u64 *min, __u64 *max,
				     __u64 *hist, __u64 v)
{
	__u32 b;

	(*count)++;
	*sum += v;
	if (!*min || v < *min)
		*min = v;
	if (v > *max)
		*max = v;
	b = is_hist_bucket(v);
	if (b < IS_HIST_BUCKETS)
		hist[b]++;
}

#endif
