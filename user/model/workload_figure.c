/* Reads a workload's own figures from its output (workload_figure.h). */
#include "model/workload_figure.h"

#include <stdio.h>
#include <string.h>

const char *const wl_figure_names[NR_WL_FIGURES] = { "workload.latency_avg_ns",
						     "workload.latency_max_ns" };
const char *const wl_figure_labels[NR_WL_FIGURES] = { "latency avg", "latency max" };

/* The integer after "key:" in line (spaces allowed), or -1. */
static long long field(const char *line, size_t len, const char *key)
{
	size_t k = strlen(key);

	for (size_t i = 0; i + k < len; i++)
		if (!memcmp(line + i, key, k) && (i == 0 || line[i - 1] == ' ')) {
			long long v = 0;
			size_t j = i + k;
			bool digits = false;

			while (j < len && line[j] == ' ')
				j++;
			for (; j < len && line[j] >= '0' && line[j] <= '9'; j++, digits = true)
				v = v * 10 + (line[j] - '0');
			return digits ? v : -1;
		}
	return -1;
}

#define MAX_THREADS 1024

int workload_figures(const char *text, size_t len, double out[NR_WL_FIGURES],
		     bool have[NR_WL_FIGURES])
{
	const char *p = text, *end = text + len;
	long long id[MAX_THREADS];
	double avg[MAX_THREADS], max = 0, sum = 0;
	int threads = 0;

	for (int k = 0; k < NR_WL_FIGURES; k++)
		have[k] = false;
	/* cyclictest: "T: 0 (  123) P: 0 I:1000 C:   1000 Min: 20 Act: 77 Avg: 75 Max: 4118",
	 * in microseconds (without -N); a thread printed again (no -q) replaces
	 * its older line, and its Max only grows */
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		long long t, a, m;

		if (n > 2 && !memcmp(p, "T:", 2) && (t = field(p, n, "T:")) >= 0 &&
		    field(p, n, "C:") > 0 && (a = field(p, n, "Avg:")) >= 0 &&
		    (m = field(p, n, "Max:")) >= 0) {
			int i;

			for (i = 0; i < threads && id[i] != t; i++)
				;
			if (i == threads && threads < MAX_THREADS)
				id[threads++] = t;
			if (i < threads)
				avg[i] = (double)a * 1e3;
			if ((double)m * 1e3 > max)
				max = (double)m * 1e3;
		}
		p += n + 1;
	}
	if (!threads)
		return 0;
	for (int i = 0; i < threads; i++)
		sum += avg[i];
	out[WL_LATENCY_AVG] = sum / threads;
	out[WL_LATENCY_MAX] = max;
	have[WL_LATENCY_AVG] = have[WL_LATENCY_MAX] = true;
	return NR_WL_FIGURES;
}
