/* A summary document read from a file: the reading here, in the commands'
 * layer; the parsing and schema check are model/flatten.c's. */
#include "report/summary_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/flatten.h"

/* Larger than any summary (a 4096-CPU one is a few MB): a bound, not a guess. */
#define MAX_SUMMARY_BYTES (256u << 20)

json_t *load_summary_file(const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t len = 0, cap = 0;
	json_t *doc;

	if (!f) {
		snprintf(err, errlen, "cannot read '%s': %s", path, strerror(errno));
		return NULL;
	}
	for (;;) {
		size_t n;

		if (len == cap) {
			char *b = cap < MAX_SUMMARY_BYTES ? realloc(buf, cap ? 2 * cap : 65536) : NULL;

			if (!b) {
				snprintf(err, errlen, "%s: %s", path,
					 cap < MAX_SUMMARY_BYTES ? "out of memory" : "too large for a summary");
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = b;
			cap = cap ? 2 * cap : 65536;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(f)) {
		snprintf(err, errlen, "cannot read '%s': %s", path, strerror(errno));
		free(buf);
		fclose(f);
		return NULL;
	}
	fclose(f);
	doc = load_summary_buffer(buf, len, path, err, errlen);
	free(buf);
	return doc;
}

int flatten_summary_file(const char *path, struct metric_set *out, char *err, size_t errlen)
{
	json_t *doc = load_summary_file(path, err, errlen);
	int ret;

	if (!doc)
		return -1;
	ret = flatten_summary(doc, out);
	json_decref(doc);
	if (ret)
		snprintf(err, errlen, "out of memory");
	return ret;
}
