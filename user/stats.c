/* Percentiles from the in-kernel histogram: exact bucket, linear inside it. */
#include "stats.h"

#include "hist.h"

uint64_t hist_percentile(const uint64_t *hist, int nbuckets, uint64_t min_ns, uint64_t max_ns,
			 double pct)
{
	uint64_t total = 0, seen = 0;
	double rank;

	for (int b = 0; b < nbuckets; b++)
		total += hist[b];
	if (!total)
		return 0;
	/* nearest-rank: the smallest value with at least pct% at or below it */
	rank = pct / 100.0 * (double)total;
	if (rank < 1)
		rank = 1;
	for (int b = 0; b < nbuckets; b++) {
		uint64_t lo, hi, v;
		double frac;

		if (!hist[b])
			continue;
		if ((double)(seen + hist[b]) < rank) {
			seen += hist[b];
			continue;
		}
		lo = is_hist_lower((__u32)b);
		/* the last bucket is open-ended: it reaches max_ns */
		hi = b == nbuckets - 1 ? max_ns + 1 : is_hist_upper((__u32)b);
		if (lo < min_ns)
			lo = min_ns;
		if (hi > max_ns + 1)
			hi = max_ns + 1;
		if (hi <= lo)
			return lo;
		/* position of the rank-th value among this bucket's hist[b] values */
		frac = (rank - (double)seen) / (double)hist[b];
		v = lo + (uint64_t)(frac * (double)(hi - 1 - lo) + 0.5);
		return v < min_ns ? min_ns : v > max_ns ? max_ns : v;
	}
	return max_ns;
}
