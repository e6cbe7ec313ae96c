/* replay's own output (render_replay.h): the "replay" object of its JSON
 * and the lines under its summary table. */
#include <inttypes.h>
#include <stdio.h>

#include "render/render.h"
#include "render/render_replay.h"
#include "util/json_num.h"
#include "util/units.h"

json_t *replay_report_json(const struct replay_report *r)
{
	const struct trace_data *td = r->td;
	json_t *sk = json_object(), *o;

	for (int i = 0; i < td->nr_skipped_names; i++)
		json_object_set_new(sk, td->skipped_names[i].name,
				    json_u64(td->skipped_names[i].count));
	o = json_pack("{s:s,s:o,s:s,s:s,s:b,s:I,s:I,s:I,s:o,s:I,s:o,s:b,s:o,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:f,s:I,s:f,s:I,s:I}",
			 "file", r->file, "format_version",
			 td->version[0] ? json_string(td->version) : json_null(), "format",
			 trace_format_name(td->format), "tables",
			 r->m->tables_from, "exit_latency_known", r->m->exit_latency_known, "lines",
			 (json_int_t)td->lines, "events", (json_int_t)r->fed->replayed, "skipped",
			 (json_int_t)td->skipped, "skipped_events", sk, "garbled_lines",
			 (json_int_t)td->garbled, "first_garbled_line",
			 td->garbled ? json_integer(td->first_garbled_line) : json_null(), "truncated",
			 td->truncated, "truncated_line",
			 td->truncated ? json_integer(td->truncated_line) : json_null(), "lost_events",
			 (json_int_t)td->lost_events, "drop_markers", (json_int_t)td->drop_markers,
			 "out_of_order", (json_int_t)td->out_of_order, "reordered_lines",
			 (json_int_t)td->reordered, "held_back", (json_int_t)td->held_back,
			 "index_tables", (json_int_t)r->m->index_tables, "rejected",
			 (json_int_t)r->fed->rejected, "replay_ns",
			 (json_int_t)r->fed->feed_ns, "events_per_s", r->events_per_s, "parse_ns",
			 (json_int_t)r->parse_ns, "total_events_per_s", r->total_events_per_s,
			 "timer_starts", (json_int_t)r->timers->starts, "timers_unmatched",
			 (json_int_t)r->timers->unmatched);
	if (o) {
		json_object_set_new(o, "gap_periods", json_u64(td->gap_periods));
		json_object_set_new(o, "overwritten_events", json_u64(td->overwritten));
		json_object_set_new(o, "idle_states_recorded", json_boolean(td->idle_events));
		json_object_set_new(o, "idle_task_dropped",
				    json_u64(td->idle_task_dropped));
	}
	return o;
}

json_t *replay_summary_json(const struct summary *s, const struct replay_report *r)
{
	json_t *doc = summary_json(s), *timers, *t;
	size_t i;

	if (!doc)
		return NULL;
	timers = json_object_get(json_object_get(doc, "wakeup_details"), "timers");
	/* a text trace names the function; there is no address */
	json_array_foreach(timers, i, t)
		json_object_set_new(t, "function", json_null());
	json_object_set_new(doc, "replay", replay_report_json(r));
	return doc;
}

void render_replay_table(FILE *f, const struct replay_report *r)
{
	const struct trace_data *td = r->td;
	char dur[32];

	fprintf(f, "\nReplay: %s (%s), tables from the %s\n", r->file, trace_format_name(td->format),
		r->m->tables_from);
	fprintf(f, "  %" PRIu64 " events replayed in %s (%.0f events/s; %.0f with parsing), %" PRIu64
		   " skipped", r->fed->replayed, fmt_ns(dur, sizeof(dur), r->fed->feed_ns), r->events_per_s,
		r->total_events_per_s, td->skipped);
	for (int i = 0; i < td->nr_skipped_names; i++)
		fprintf(f, "%s%s %" PRIu64, i ? ", " : " (", td->skipped_names[i].name,
			td->skipped_names[i].count);
	fprintf(f, "%s, %" PRIu64 " lines not understood\n", td->nr_skipped_names ? ")" : "",
		td->garbled);
}
