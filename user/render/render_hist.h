/* Rendering of `idlescope hist`: libbpf-tools-style ASCII histograms with
 * percentiles, or JSON (one object per interval). */
#ifndef IDLESCOPE_RENDER_HIST_H
#define IDLESCOPE_RENDER_HIST_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "hist_data.h"
#include "render/render.h"

/* struct hist_slot in userspace types. */
struct hist_sums {
	uint64_t count, sum_ns, min_ns, max_ns;
	uint64_t disp[IS_DISP_BUCKETS];
	uint64_t fine[IS_HIST_BUCKETS];
};

/* One histogram to print: a CPU (or -1 = all selected) and a state (or -1). */
struct hist_view {
	int cpu;
	int state;
	const char *state_name;
	const char *part; /* wakeup-latency: which part, else NULL */
	struct hist_sums h;
};

struct hist_report {
	const char *metric;
	const char *unit;       /* "ns", "us", "ms" */
	uint64_t unit_ns;
	uint64_t linear_ns;     /* 0 = log2 */
	int seq;                /* interval number, 0 = whole run */
	uint64_t duration_ns;
	int nr_views;
	struct hist_view *views;
	/* path-latency: the functions and what could not be paired */
	const char *path_from, *path_to;
	uint64_t path_pending, path_replaced, path_unmatched_to, path_overflow;
};

void render_hist(FILE *f, enum out_format fmt, const struct hist_report *r);
/* The report as an "idlescope-hist/1" document (caller json_decref's). */
struct json_t;
struct json_t *hist_report_json(const struct hist_report *r);

#endif
