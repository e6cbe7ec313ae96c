/* replay's own output beside the summary: what was read, replayed and
 * skipped, and how fast; the "replay" object of its JSON and the lines
 * under its table. */
#ifndef IDLESCOPE_RENDER_REPLAY_H
#define IDLESCOPE_RENDER_REPLAY_H

#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "model/model.h"
#include "replay/replay_feed.h"
#include "replay/timer_match.h"
#include "replay/trace_machine.h"
#include "replay/trace_parse.h"

struct replay_report {
	const char *file;
	const struct trace_data *td;      /* the parser's counts */
	const struct trace_machine *m;    /* where the tables came from */
	const struct replay_feed *fed;    /* events replayed, rejected, feed time */
	const struct timer_match *timers;
	uint64_t parse_ns;                /* reading, parsing and sorting the file */
	double events_per_s;              /* replayed per second of feeding */
	double total_events_per_s;        /* the same, parsing included */
};

/* The "replay" object of replay's JSON; NULL without memory. */
json_t *replay_report_json(const struct replay_report *r);

/* The summary's "idlescope/1" document with replay's changes: timers named
 * by function only (a text trace has no address), and the "replay" object.
 * NULL without memory; caller json_decref's. */
json_t *replay_summary_json(const struct summary *s, const struct replay_report *r);

/* The lines under the summary's table. */
void render_replay_table(FILE *f, const struct replay_report *r);

#endif
