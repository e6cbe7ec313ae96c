/* A workload's own figures, read from what it printed: cyclictest's
 * latency (the mean of its threads' Avg, the largest Max), for `ab`'s sweep
 * beside the idle numbers. */
#ifndef IDLESCOPE_WORKLOAD_FIGURE_H
#define IDLESCOPE_WORKLOAD_FIGURE_H

#include <stdbool.h>
#include <stddef.h>

enum wl_figure { WL_LATENCY_AVG, WL_LATENCY_MAX, NR_WL_FIGURES };

/* "workload.latency_avg_ns", "workload.latency_max_ns": ab's metric names */
extern const char *const wl_figure_names[NR_WL_FIGURES];
/* "latency avg", "latency max": their column headers */
extern const char *const wl_figure_labels[NR_WL_FIGURES];

/* The figures in text (len bytes, no NUL needed), in ns; have[k] false
 * for a figure the text does not hold. Returns how many it found. */
int workload_figures(const char *text, size_t len, double out[NR_WL_FIGURES],
		     bool have[NR_WL_FIGURES]);

#endif
