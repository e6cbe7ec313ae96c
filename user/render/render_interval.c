/* One line per `record -i` interval: per-state share and misses/s (table),
 * or one JSON object per line. */
#include <inttypes.h>
#include <jansson.h>

#include "render/render.h"

void render_interval(FILE *f, enum out_format fmt, const struct interval_sample *iv)
{
	double secs = (double)iv->duration_ns / 1e9, cpu_ns = (double)iv->duration_ns * iv->nr_cpus;

	if (fmt == FMT_JSON) {
		json_t *o = json_object(), *states = json_array();

		json_object_set_new(o, "interval", json_integer(iv->seq));
		json_object_set_new(o, "offset_ns", json_integer((json_int_t)iv->offset_ns));
		json_object_set_new(o, "duration_ns", json_integer((json_int_t)iv->duration_ns));
		for (int i = 0; i < iv->nr_states; i++)
			json_array_append_new(states, json_pack("{s:s,s:I,s:I,s:f}", "name", iv->names[i],
								"entries", (json_int_t)iv->entries[i],
								"time_ns", (json_int_t)iv->time_ns[i],
								"share", cpu_ns ? iv->time_ns[i] / cpu_ns : 0));
		json_object_set_new(o, "states", states);
		json_object_set_new(o, "above", json_integer((json_int_t)iv->above));
		json_object_set_new(o, "below", json_integer((json_int_t)iv->below));
		json_dumpf(o, f, JSON_COMPACT);
		fputc('\n', f);
		json_decref(o);
	} else if (fmt == FMT_CSV) {
		for (int i = 0; i < iv->nr_states; i++)
			fprintf(f, "interval,%d,%" PRIu64 ",\"%s\",%" PRIu64 ",%" PRIu64 "\n", iv->seq,
				iv->offset_ns, iv->names[i], iv->entries[i], iv->time_ns[i]);
	} else {
		fprintf(f, "%7.2fs", (double)iv->offset_ns / 1e9);
		for (int i = 0; i < iv->nr_states; i++)
			fprintf(f, "  %s %5.1f%%", iv->names[i], cpu_ns ? 100.0 * iv->time_ns[i] / cpu_ns : 0);
		fprintf(f, "  above/s %.1f  below/s %.1f\n", secs ? iv->above / secs : 0,
			secs ? iv->below / secs : 0);
	}
	fflush(f);
}
