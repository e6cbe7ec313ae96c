/* Percentiles from the in-kernel histogram (or its buckets read back):
 * exact bucket, linear inside it, never outside the samples' [min, max]. */
#include "model/stats.h"

#include "hist.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

uint64_t bins_percentile(const struct hist_bin *b, int n, uint64_t min_ns, uint64_t max_ns,
			 double pct)
{
	double total = 0, seen = 0, rank;

	for (int i = 0; i < n; i++)
		total += b[i].count;
	if (total <= 0)
		return 0;
	/* nearest-rank: the smallest value with at least pct% at or below it */
	rank = pct / 100.0 * total;
	if (rank < 1)
		rank = 1;
	for (int i = 0; i < n; i++) {
		uint64_t lo = b[i].lo, hi = b[i].hi, v;
		double frac;

		if (b[i].count <= 0)
			continue;
		if (seen + b[i].count < rank) {
			seen += b[i].count;
			continue;
		}
		/* no sample lies outside [min, max]: neither does a percentile */
		if (lo < min_ns)
			lo = min_ns;
		if (hi > max_ns + 1)
			hi = max_ns + 1;
		if (hi <= lo)
			return lo > max_ns ? max_ns : lo;
		/* position of the rank-th value among this bucket's values */
		frac = (rank - seen) / b[i].count;
		v = lo + (uint64_t)(frac * (double)(hi - 1 - lo) + 0.5);
		return v < min_ns ? min_ns : v > max_ns ? max_ns : v;
	}
	return max_ns;
}

uint64_t hist_percentile(const uint64_t *hist, int nbuckets, uint64_t min_ns, uint64_t max_ns,
			 double pct)
{
	struct hist_bin b[IS_HIST_BUCKETS];
	int n = 0;

	for (int i = 0; i < nbuckets && i < IS_HIST_BUCKETS; i++) {
		if (!hist[i])
			continue;
		/* the last bucket is open-ended: it reaches max_ns */
		b[n++] = (struct hist_bin){ is_hist_lower((__u32)i),
					    i == nbuckets - 1 ? UINT64_MAX : is_hist_upper((__u32)i),
					    (double)hist[i] };
	}
	return bins_percentile(b, n, min_ns, max_ns, pct);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void sample_stats(const double *v, int n, struct sample_stats *out)
{
	double *s, sum = 0, ss = 0;

	memset(out, 0, sizeof(*out));
	out->n = n;
	if (n <= 0 || !(s = malloc(sizeof(*s) * (size_t)n)))
		return;
	memcpy(s, v, sizeof(*s) * (size_t)n);
	qsort(s, (size_t)n, sizeof(*s), cmp_double);
	out->min = s[0];
	out->max = s[n - 1];
	out->median = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	for (int i = 0; i < n; i++)
		sum += s[i];
	out->mean = sum / n;
	for (int i = 0; i < n; i++)
		ss += (s[i] - out->mean) * (s[i] - out->mean);
	out->stddev = n > 1 ? sqrt(ss / (n - 1)) : 0;
	free(s);
}

double t_crit_95(double df)
{
	static const double table[] = { 0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
					2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
					2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
					2.060, 2.056, 2.052, 2.048, 2.045, 2.042 };
	int d = (int)floor(df);

	if (d < 1)
		return INFINITY;
	if (d <= 30)
		return table[d];
	if (d < 40)
		return 2.042;
	if (d < 60)
		return 2.021;
	if (d < 120)
		return 2.000;
	return d < 1000 ? 1.980 : 1.960;
}

void welch_test(const struct sample_stats *a, const struct sample_stats *b, struct welch *out)
{
	double va, vb, se2;

	memset(out, 0, sizeof(*out));
	out->diff = b->mean - a->mean;
	if (a->n < 2 || b->n < 2)
		return;
	va = a->stddev * a->stddev / a->n;
	vb = b->stddev * b->stddev / b->n;
	se2 = va + vb;
	if (se2 == 0) {
		/* no spread at all: any difference is exact */
		out->significant = out->diff != 0;
		out->t = out->diff == 0 ? 0 : INFINITY;
		out->df = a->n + b->n - 2;
		out->t_crit = t_crit_95(out->df);
		return;
	}
	out->t = out->diff / sqrt(se2);
	out->df = se2 * se2 / (va * va / (a->n - 1) + vb * vb / (b->n - 1));
	out->t_crit = t_crit_95(out->df);
	out->half_width = out->t_crit * sqrt(se2);
	out->significant = fabs(out->t) > out->t_crit;
}
