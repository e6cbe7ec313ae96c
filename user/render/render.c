/* Output format names shared by every command's --format, and the switch
 * over them for a summary. */
#include <string.h>

#include <jansson.h>

#include "render/render.h"

int parse_format(const char *name, enum out_format *out)
{
	if (!strcmp(name, "table"))
		*out = FMT_TABLE;
	else if (!strcmp(name, "json"))
		*out = FMT_JSON;
	else if (!strcmp(name, "csv"))
		*out = FMT_CSV;
	else if (!strcmp(name, "prom"))
		*out = FMT_PROM;
	else
		return -1;
	return 0;
}

int render_summary(FILE *f, enum out_format fmt, const struct summary *s, struct json_t *doc,
		   bool compact)
{
	int err;

	switch (fmt) {
	case FMT_JSON:
		if (!doc)
			return render_json(f, s, compact);
		err = json_dumpf(doc, f, compact ? JSON_COMPACT : JSON_INDENT(2));
		fputc('\n', f);
		return err ? -1 : 0;
	case FMT_CSV:
		render_csv(f, s);
		return 0;
	default:
		render_table(f, s);
		return 0;
	}
}
