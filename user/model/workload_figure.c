/* Reads a workload's own figures from its output (workload_figure.h). */
#include "model/workload_figure.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const wl_figure_names[NR_WL_FIGURES] = {
	"workload.latency_avg_ns", "workload.latency_max_ns", "workload.latency_p95_ns",
	"workload.slack_min_ns"
};
const char *const wl_figure_labels[NR_WL_FIGURES] = { "latency avg", "latency max", "latency p95",
						      "slack min" };

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

static int found(double out[NR_WL_FIGURES], bool have[NR_WL_FIGURES], enum wl_figure k, double v)
{
	out[k] = v;
	have[k] = true;
	return 1;
}

/* The next line of [*p, end): its start and length; *p moves past it.
 * false at the end. */
static bool next_line(const char **p, const char *end, const char **line, size_t *n)
{
	const char *nl;

	if (*p >= end)
		return false;
	nl = memchr(*p, '\n', (size_t)(end - *p));
	*line = *p;
	*n = nl ? (size_t)(nl - *p) : (size_t)(end - *p);
	*p += *n + 1;
	return true;
}

/* A decimal number making up the whole of [s, s + n) but for blanks, in
 * *v. false when it is not one. */
static bool number(const char *s, size_t n, double *v)
{
	char buf[64], *e;

	while (n && (*s == ' ' || *s == '\t'))
		s++, n--;
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		n--;
	if (!n || n >= sizeof(buf))
		return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	*v = strtod(buf, &e);
	return e == buf + n;
}

/* sysbench 1.0: the "Latency (ms):" block of its general statistics,
 *     "         avg:                                    0.40", in ms, to a
 * blank line; the percentile it was asked for (--percentile, 95 by
 * default) counts only when it is the 95th. */
static int sysbench(const char *p, const char *end, double out[NR_WL_FIGURES],
		    bool have[NR_WL_FIGURES])
{
	const char *line;
	size_t n;
	int k = 0;

	while (next_line(&p, end, &line, &n))
		if (n >= 13 && !memcmp(line, "Latency (ms):", 13))
			break;
	if (p >= end)
		return 0;
	while (next_line(&p, end, &line, &n)) {
		const char *colon = memchr(line, ':', n), *key = line;
		size_t kl;
		double v;

		if (!colon)
			break;
		while (key < colon && *key == ' ')
			key++;
		kl = (size_t)(colon - key);
		if (!number(colon + 1, n - (size_t)(colon + 1 - line), &v) || v < 0)
			break;
		if (kl == 3 && !memcmp(key, "avg", 3))
			k += found(out, have, WL_LATENCY_AVG, v * 1e6);
		else if (kl == 3 && !memcmp(key, "max", 3))
			k += found(out, have, WL_LATENCY_MAX, v * 1e6);
		else if (kl == 15 && !memcmp(key, "95th percentile", 15))
			k += found(out, have, WL_LATENCY_P95, v * 1e6);
	}
	return k;
}

#define RTAPP_MAX_COLS 32

/* rt-app's per-task logs as printed (cat rt-app-*.log after it): under
 * each "#idx perf run period ... slack ... wu_lat" header a line per
 * period, in microseconds; the columns found by name. Every period of
 * every task counts alike: the mean and largest wakeup latency (wu_lat),
 * the smallest slack (negative: a missed period). */
static int rtapp(const char *p, const char *end, double out[NR_WL_FIGURES],
		 bool have[NR_WL_FIGURES])
{
	int cols = 0, wu = -1, slack = -1, k = 0;
	double sum = 0, max = 0, min = 0;
	long long periods = 0;
	const char *line;
	size_t n;

	while (next_line(&p, end, &line, &n)) {
		double v[RTAPP_MAX_COLS + 1];
		const char *c = line, *e = line + n;
		int nc = 0;

		if (n >= 4 && !memcmp(line, "#idx", 4)) {
			/* a header: the columns of the lines under it */
			cols = 0;
			wu = slack = -1;
			for (c = line + 1; c < e && cols < RTAPP_MAX_COLS;) {
				const char *w;

				while (c < e && (*c == ' ' || *c == '\t'))
					c++;
				for (w = c; c < e && *c != ' ' && *c != '\t' && *c != '\r'; c++)
					;
				if (c == w)
					break;
				if (c - w == 6 && !memcmp(w, "wu_lat", 6))
					wu = cols;
				if (c - w == 5 && !memcmp(w, "slack", 5))
					slack = cols;
				cols++;
			}
			continue;
		}
		if (!cols || wu < 0 || line[0] == '#')
			continue;
		while (c < e && nc <= cols) {
			const char *w;

			while (c < e && (*c == ' ' || *c == '\t' || *c == '\r'))
				c++;
			if (c == e)
				break;
			for (w = c; c < e && *c != ' ' && *c != '\t' && *c != '\r'; c++)
				;
			if (!number(w, (size_t)(c - w), &v[nc++]))
				nc = RTAPP_MAX_COLS + 1; /* not a period's line */
		}
		if (nc != cols)
			continue;
		sum += v[wu];
		if (!periods || v[wu] > max)
			max = v[wu];
		if (slack >= 0 && (!periods || v[slack] < min))
			min = v[slack];
		periods++;
	}
	if (!periods)
		return 0;
	k += found(out, have, WL_LATENCY_AVG, sum / (double)periods * 1e3);
	k += found(out, have, WL_LATENCY_MAX, max * 1e3);
	if (slack >= 0)
		k += found(out, have, WL_SLACK_MIN, min * 1e3);
	return k;
}

int workload_figures(const char *text, size_t len, double out[NR_WL_FIGURES],
		     bool have[NR_WL_FIGURES])
{
	const char *p = text, *end = text + len;
	long long id[MAX_THREADS];
	double avg[MAX_THREADS], max = 0, sum = 0;
	int threads = 0, k;

	for (int i = 0; i < NR_WL_FIGURES; i++)
		have[i] = false;
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
	if (!threads) {
		k = sysbench(text, end, out, have);
		return k ? k : rtapp(text, end, out, have);
	}
	for (int i = 0; i < threads; i++)
		sum += avg[i];
	return found(out, have, WL_LATENCY_AVG, sum / threads) +
	       found(out, have, WL_LATENCY_MAX, max);
}
