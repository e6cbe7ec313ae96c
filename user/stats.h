/* Statistics over the shared log2 histogram (include/hist.h). */
#ifndef IDLESCOPE_STATS_H
#define IDLESCOPE_STATS_H

#include <stdint.h>

/* Value at percentile pct (0..100) of hist, interpolated linearly within
 * the bucket and clamped to [min_ns, max_ns]; 0 for an empty histogram. */
uint64_t hist_percentile(const uint64_t *hist, int nbuckets, uint64_t min_ns, uint64_t max_ns,
			 double pct);

#endif
