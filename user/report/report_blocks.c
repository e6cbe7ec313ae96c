/* Pieces every report section uses: the inputs (a record summary or hist
 * reports, by schema), dotted JSON paths for the cells and one histogram
 * block (chart, then its buckets as a table). */
#include "report/report_blocks.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "report/html.h"
#include "report/summary_file.h"
#include "report/svg_chart.h"

#define HIST_SCHEMA "idlescope-hist/1"

/* hist JSON: one report, or one per line (intervals). */
static json_t *load_hist_lines(const char *path, char *err, size_t errlen)
{
	json_t *arr = json_array();
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0;
	int lineno = 0;

	if (!f || !arr) {
		snprintf(err, errlen, "cannot read '%s': %s", path, strerror(errno));
		goto fail;
	}
	while (getline(&line, &cap, f) > 0) {
		json_error_t je;
		json_t *d;
		const char *schema;

		lineno++;
		if (line[strspn(line, " \t\r\n")] == '\0')
			continue;
		d = json_loads(line, 0, &je);
		if (!d) {
			snprintf(err, errlen, "%s: invalid JSON at line %d: %s", path, lineno, je.text);
			goto fail;
		}
		schema = json_string_value(json_object_get(d, "schema"));
		if (!schema || strcmp(schema, HIST_SCHEMA) ||
		    !json_is_array(json_object_get(d, "histograms"))) {
			snprintf(err, errlen, "%s: line %d is not an %s report", path, lineno, HIST_SCHEMA);
			json_decref(d);
			goto fail;
		}
		json_array_append_new(arr, d);
	}
	if (!json_array_size(arr)) {
		snprintf(err, errlen, "%s: no %s report", path, HIST_SCHEMA);
		goto fail;
	}
	free(line);
	fclose(f);
	return arr;
fail:
	free(line);
	if (f)
		fclose(f);
	json_decref(arr);
	return NULL;
}

/* The schema of the document, or of the first line that has one. */
static char *peek_schema(const char *path)
{
	json_t *doc = json_load_file(path, 0, NULL);
	char *line = NULL, *schema = NULL;
	size_t cap = 0;
	FILE *f;

	if (doc) {
		const char *s = json_string_value(json_object_get(doc, "schema"));

		schema = s ? strdup(s) : NULL;
		json_decref(doc);
		return schema;
	}
	if (!(f = fopen(path, "re")))
		return NULL;
	while (!schema && getline(&line, &cap, f) > 0) {
		json_t *d = json_loads(line, 0, NULL);
		const char *s = json_string_value(json_object_get(d, "schema"));

		if (s)
			schema = strdup(s);
		json_decref(d);
	}
	free(line);
	fclose(f);
	return schema;
}

int report_input_load(struct report_input *in, char *err, size_t errlen)
{
	char *schema = peek_schema(in->path);

	if (schema && !strcmp(schema, HIST_SCHEMA)) {
		in->hists = load_hist_lines(in->path, err, errlen);
	} else if (schema && strcmp(schema, "idlescope/1")) {
		snprintf(err, errlen, "%s: schema '%s' is neither idlescope/1 (record) nor %s (hist)",
			 in->path, schema, HIST_SCHEMA);
	} else {
		/* also the missing-file, invalid-JSON and no-schema errors */
		in->summary = load_summary_file(in->path, err, errlen);
		if (in->summary && flatten_summary(in->summary, &in->m)) {
			snprintf(err, errlen, "out of memory");
			free(schema);
			return -1;
		}
	}
	free(schema);
	return in->summary || in->hists ? 0 : -1;
}

void report_input_free(struct report_input *in)
{
	json_decref(in->summary);
	json_decref(in->hists);
	metric_set_free(&in->m);
	in->summary = in->hists = NULL;
}

const char *report_path(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return buf;
}

/* One histogram: chart, then its buckets as a table under <details>. */
void report_hist_block(FILE *f, int fi, const json_t *hist, const char *path, const char *id,
		       const char *what, double linear_ns)
{
	size_t n = json_array_size(hist), i;
	struct hist_bucket *b = calloc(n ? n : 1, sizeof(*b));
	const json_t *k;
	char p[300], q[320];

	if (!b)
		return;
	json_array_foreach(hist, i, k) {
		b[i].lo = json_number_value(json_object_get(k, "lo_ns"));
		b[i].hi = json_is_number(json_object_get(k, "hi_ns")) ? json_number_value(json_object_get(k, "hi_ns"))
			   : linear_ns > 0 ? b[i].lo + linear_ns : 2 * b[i].lo;
		b[i].open = !json_is_number(json_object_get(k, "hi_ns"));
		b[i].count = json_number_value(json_object_get(k, "count"));
	}
	svg_hist(f, &(struct hist_chart){ id, (int)n, b, linear_ns > 0, what });
	fputs("<details><summary>buckets</summary><table class=\"data\"><tr><th>lo_ns</th>"
	      "<th>hi_ns</th><th>count</th></tr>\n", f);
	json_array_foreach(hist, i, k) {
		report_path(p, sizeof(p), "%s.%zu", path, i);
		fputs("<tr>", f);
		html_num_cell(f, fi, json_object_get(k, "lo_ns"), report_path(q, sizeof(q), "%s.lo_ns", p));
		html_num_cell(f, fi, json_object_get(k, "hi_ns"), report_path(q, sizeof(q), "%s.hi_ns", p));
		html_num_cell(f, fi, json_object_get(k, "count"), report_path(q, sizeof(q), "%s.count", p));
		fputs("</tr>\n", f);
	}
	fputs("</table></details>\n", f);
	free(b);
}
