/* trace-cmd's binary trace.dat files for `idlescope replay` (the container
 * read by dat_file.h): each record decoded by its event's format in the file
 * (field by name), into the same trace_data as the text parser
 * (trace_parse.h). */
#ifndef IDLESCOPE_TRACE_DAT_H
#define IDLESCOPE_TRACE_DAT_H

#include <stdbool.h>
#include <stddef.h>

#include "replay/trace_parse.h"

/* The buffer starts like a trace.dat (trace-cmd's magic, "\x17\x08\x44tracing"). */
bool trace_dat_is(const char *buf, size_t len);

/* Parses a whole trace.dat held in buf into d (format TF_TRACE_DAT, events
 * in the order trace-cmd report prints them, header_cpus the traced
 * machine's CPU count from the file, lines the number of records).
 * instance: NULL for every buffer merged by time, as trace-cmd report shows
 * them; "top" for the top-level buffer; else the buffer of `trace-cmd record
 * -B NAME`. Returns 0, or -1 with d->error set (not a readable trace.dat:
 * truncated, foreign, no such instance); free with trace_data_free either way. */
int trace_dat_parse_buffer(const char *buf, size_t len, const char *instance,
			   struct trace_data *d);

#endif
