/* Renderers of the summary model: one function per output format. */
#ifndef IDLESCOPE_RENDER_H
#define IDLESCOPE_RENDER_H

#include <stdbool.h>
#include <stdio.h>

#include "model/model.h"

/* FMT_PROM: the Prometheus text of render/prom.h, `record --format prom`
 * only (a live session's counters and its own cost) */
enum out_format { FMT_TABLE, FMT_JSON, FMT_CSV, FMT_PROM };

/* Returns 0, or -1 for an unknown name. */
int parse_format(const char *name, enum out_format *out);

void render_table(FILE *f, const struct summary *s);
void render_csv(FILE *f, const struct summary *s);
/* The summary as an "idlescope/1" JSON document (caller json_decref's). */
struct json_t;
struct json_t *summary_json(const struct summary *s);
/* compact: one line (JSON Lines, used with -i). Returns 0 or -1. */
int render_json(FILE *f, const struct summary *s, bool compact);

/* The --format switch of the commands that print a summary (record, replay):
 * the table, CSV, or JSON. doc, when not NULL, is the JSON document to write
 * instead of summary_json(s) (the summary plus a command's own fields);
 * compact as for render_json. Returns 0 or -1 (JSON that could not be made). */
int render_summary(FILE *f, enum out_format fmt, const struct summary *s, struct json_t *doc,
		   bool compact);

/* One interval of `record -i`: per-state time and misses summed over the
 * selected CPUs, as deltas over the interval. */
struct interval_sample {
	int seq;
	uint64_t offset_ns;   /* interval end, from the window start */
	uint64_t duration_ns;
	int nr_cpus;
	int nr_states;
	char names[IS_MAX_STATES][IS_NAME_LEN];
	uint64_t time_ns[IS_MAX_STATES];
	uint64_t entries[IS_MAX_STATES];
	uint64_t above, below;
};

void render_interval(FILE *f, enum out_format fmt, const struct interval_sample *iv);

#endif
