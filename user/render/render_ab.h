/* ab's output: per metric, each variant's runs, their statistics and the
 * difference from the first variant; the table or "idlescope-ab/1" JSON. */
#ifndef IDLESCOPE_RENDER_AB_H
#define IDLESCOPE_RENDER_AB_H

#include <stdbool.h>
#include <stdio.h>

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

#endif
