/* Statistics over the shared log2 histogram (include/hist.h). */
#ifndef IDLESCOPE_STATS_H
#define IDLESCOPE_STATS_H

#include <stdint.h>

/* One histogram bucket: count values in [lo, hi) ns, assumed spread evenly
 * over the integers lo..hi-1. A bucket [v, v+1) is one exact value. */
struct hist_bin {
	uint64_t lo, hi;
	double count;
};

/* Value at percentile pct (0..100) of hist, interpolated linearly within
 * the bucket and clamped to [min_ns, max_ns]; 0 for an empty histogram. */
uint64_t hist_percentile(const uint64_t *hist, int nbuckets, uint64_t min_ns, uint64_t max_ns,
			 double pct);
/* The same over n ascending, non-overlapping buckets (a histogram read back
 * from JSON, or summed over CPUs), with the samples' min and max. */
uint64_t bins_percentile(const struct hist_bin *b, int n, uint64_t min_ns, uint64_t max_ns,
			 double pct);

/* Sample statistics for repeated runs (`idlescope ab`). */
struct sample_stats {
	int n;
	double min, max, median, mean, stddev; /* stddev: sample (n - 1) */
};

void sample_stats(const double *v, int n, struct sample_stats *out);

/* Welch's t-test of two samples at 95% (two-sided), like ministat. */
struct welch {
	double diff;       /* mean(b) - mean(a) */
	double half_width; /* 95% confidence half-width of diff */
	double t, df, t_crit;
	int significant;   /* |t| > t_crit; 0 when either sample has n < 2 */
};

void welch_test(const struct sample_stats *a, const struct sample_stats *b, struct welch *out);
/* Two-sided 95% critical value of Student's t with df degrees of freedom
 * (table, rounded down in df, so never optimistic). */
double t_crit_95(double df);

#endif
