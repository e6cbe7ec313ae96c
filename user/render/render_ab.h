/* ab's output: per metric, each variant's runs, their statistics and the
 * difference from the first variant; the table or "idlescope-ab/1" JSON. */
#ifndef IDLESCOPE_RENDER_AB_H
#define IDLESCOPE_RENDER_AB_H

#include <stdbool.h>
#include <stdio.h>

#include "model/compare_view.h"
#include "model/stats.h"
#include "render/render.h"

/* One metric under one variant. */
struct ab_row {
	bool have;              /* some run had the metric */
	const double *runs;     /* [repeat]; NAN where a run lacked it */
	struct sample_stats st; /* over the runs that had it */
	bool have_welch;        /* a later variant with the metric: w is vs the first */
	struct welch w;
};

struct ab_report {
	int repeat, nr_variants, nr_metrics;
	const char *const *variants; /* "governor=menu kernel.x=1" */
	const char *const *metrics;
	const struct ab_row *rows;   /* [metric * nr_variants + variant] */
	const char *warning;         /* "" when none */
};

/* FMT_JSON, else the table. */
void render_ab(FILE *f, enum out_format fmt, const struct ab_report *r);

/* A sweep (--workload): per workload its runs as ab's model and compare's
 * table of them. */
struct ab_sweep {
	int nr_workloads;
	const char *const *names, *const *commands;
	const struct ab_report *reports;  /* [workload] */
	const struct compare_view *views; /* [workload]; variants named as reports' */
};

/* FMT_JSON: "idlescope-ab-sweep/1", each workload's "idlescope-ab/1"
 * document under "ab"; else per workload its header and compare's table. */
void render_ab_sweep(FILE *f, enum out_format fmt, const struct ab_sweep *s);

/* report's page of the runs (report/report_html.h): a section per workload
 * and, embedded, the sweep's JSON (sweep) or the one "idlescope-ab/1"
 * document of -- COMMAND's runs. Returns 0 or -1 (template error). */
int render_ab_html(FILE *f, const struct ab_sweep *s, bool sweep);

#endif
