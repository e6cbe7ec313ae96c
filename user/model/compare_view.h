/* compare's readable view: per entity (all CPUs, each topology group, each CPU
 * when asked) the states' residency, entries, too deep and too shallow, and
 * the wakeup causes, of variants of one or more summaries each, tested. */
#ifndef IDLESCOPE_COMPARE_VIEW_H
#define IDLESCOPE_COMPARE_VIEW_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "model/stats.h"

#define CV_MAX_COLS 16

enum cv_unit { CV_NS, CV_SHARE, CV_COUNT };

/* One number of one variant: its runs' statistics and, after the first
 * variant, Welch's test against it. */
struct cv_cell {
	bool have;      /* some run of the variant had it */
	bool na;        /* a state no run of the variant entered: "n.a." */
	struct sample_stats st;
	bool tested;    /* both variants have 2+ runs: w is this one vs the first */
	struct welch w;
};

struct cv_row {
	char entity[64];       /* "all CPUs", "cluster0", "cpu 2" */
	char label[64];        /* a state's name; "" in the wakeups table */
	struct cv_cell *cells; /* [variant * ncols + col] */
};

struct cv_table {
	int ncols;
	char cols[CV_MAX_COLS][32];
	enum cv_unit unit[CV_MAX_COLS];
	int nrows;
	struct cv_row *rows;
};

struct compare_view {
	int nr_variants;
	const int *nr_runs;      /* [variant] */
	struct cv_table states;  /* time, share, entries, too deep, too shallow */
	struct cv_table wakeups; /* one column per cause any run saw; no rows without wakeups */
	struct cv_table figures; /* the workload's own numbers (ab's sweep); no rows without */
	/* why the governor missed, per state where a run had the split
	 * (states[].governor, with below_qos); no rows without */
	struct cv_table misses;
};

/* Builds the view of nr_variants variants; variant v is nr_runs[v]
 * idlescope/1 documents, all in docs (variant after variant). Entities come
 * from every document in order: "all CPUs" (totals), the topology groups,
 * and with per_cpu each CPU; a group's too deep, too shallow and wakeups are
 * the sums over its CPUs. Returns 0 or -1 (out of memory). */
int compare_view_build(const json_t *const *docs, const int *nr_runs, int nr_variants,
		       bool per_cpu, struct compare_view *out);
void compare_view_free(struct compare_view *v);
/* The workload's own figures as one more table of one row, "workload":
 * ncols durations named cols, vals[run * ncols + col] over the runs in the
 * documents' order (NAN where a run lacks one); columns no run has are left
 * out, and with none the table stays empty. Returns 0 or -1. */
int compare_view_add_figures(struct compare_view *v, int ncols, const char *const *cols,
			     const double *vals);

/* The text of a cell in human units: variant 0's value (its mean, with the
 * 95% interval of the mean when it has 2+ runs), a later variant's
 * difference from it, signed (with Welch's interval and a "*" when
 * significant); "n.a." for a state never entered, "-" when absent.
 * Returns buf. */
const char *cv_cell_text(char *buf, size_t len, const struct compare_view *v,
			 const struct cv_table *t, const struct cv_row *r, int variant, int col);
/* The half width of the 95% interval of a cell's mean (Student's t over
 * its runs); NAN with fewer than 2 runs. */
double cv_cell_half_width(const struct cv_cell *c);
/* The exact number behind the cell (variant 0: mean; later: mean - base
 * mean); false when the cell has none. */
bool cv_cell_value(const struct cv_table *t, const struct cv_row *r, int variant, int col,
		   double *out);
/* A duration, a share (as %) or a count in human units, signed when
 * sign is set. Returns buf. */
const char *cv_number_text(char *buf, size_t len, enum cv_unit u, double v, bool sign);

#endif
