/* compare's output: every metric of BASE beside the other files', with its
 * change, and the entities only some files have; table, CSV or JSON. */
#ifndef IDLESCOPE_RENDER_COMPARE_H
#define IDLESCOPE_RENDER_COMPARE_H

#include <stdio.h>

#include "model/compare_view.h"
#include "model/flatten.h"
#include "render/render.h"

struct compare_report {
	int nr_files;            /* the first is BASE */
	const char *const *files;
	const struct metric_set *sets; /* each file's flat metrics */
};

/* FMT_JSON: "idlescope-compare/1"; FMT_CSV; else the table and the
 * unmatched entities. Returns 0, or -1 when the JSON could not be written. */
int render_compare(FILE *f, enum out_format fmt, const struct compare_report *c);

/* The readable view (compare's default table): per entity and state, the
 * first variant's value and each other's difference, one line per variant
 * under the row's name, then the wakeup causes; names[v] labels variant v. */
void render_compare_view(FILE *f, const struct compare_view *v, const char *const *names);

#endif
