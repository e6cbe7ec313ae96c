/* Reads an idlescope/1 summary document from a file, for the commands that
 * take recordings (compare, report, advise, ab) and the report's inputs. */
#ifndef IDLESCOPE_SUMMARY_FILE_H
#define IDLESCOPE_SUMMARY_FILE_H

#include <jansson.h>
#include <stddef.h>

#include "model/flatten.h"

/* Reads an idlescope/1 document from path (a JSON file, or JSON Lines from
 * `record -i`, whose last summary line counts). Returns the document or
 * NULL with a one-line reason in err. */
json_t *load_summary_file(const char *path, char *err, size_t errlen);

/* load_summary_file, then flatten_summary into out. Returns 0, or -1 with a
 * one-line reason in err. */
int flatten_summary_file(const char *path, struct metric_set *out, char *err, size_t errlen);

#endif
