/* A workload's own figures, read from what it printed: cyclictest's
 * latency (the mean of its threads' Avg, the largest Max), sysbench's
 * response time (its "Latency (ms):" block) and rt-app's wakeup latency and
 * slack (its per-task logs, printed after it), for `ab`'s sweep beside the
 * idle numbers. */
#ifndef IDLESCOPE_WORKLOAD_FIGURE_H
#define IDLESCOPE_WORKLOAD_FIGURE_H

#include <stdbool.h>
#include <stddef.h>

enum wl_figure { WL_LATENCY_AVG, WL_LATENCY_MAX, WL_LATENCY_P95, WL_SLACK_MIN, NR_WL_FIGURES };

/* "workload.latency_avg_ns", "workload.latency_max_ns",
 * "workload.latency_p95_ns", "workload.slack_min_ns": ab's metric names */
extern const char *const wl_figure_names[NR_WL_FIGURES];
/* "latency avg", "latency max", "latency p95", "slack min": their column
 * headers */
extern const char *const wl_figure_labels[NR_WL_FIGURES];

/* The figures in text (len bytes, no NUL needed), in ns, from the first
 * program whose output it holds (cyclictest, sysbench, rt-app); have[k]
 * false for a figure the text does not hold. Returns how many it found. */
int workload_figures(const char *text, size_t len, double out[NR_WL_FIGURES],
		     bool have[NR_WL_FIGURES]);

#endif
