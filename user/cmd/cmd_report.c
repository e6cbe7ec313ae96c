/* `idlescope report FILE.json... --html OUT.html`: one self-contained HTML
 * page with charts and tables of record summaries (and hist JSON), and a
 * comparison view when there are several summaries. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "cmd/commands.h"
#include "model/flatten.h"
#include "cmd/summary_file.h"
#include "report/report_html.h"

#define MAX_INPUTS 16
#define HIST_SCHEMA "idlescope-hist/1"

enum { OPT_HTML = 0x100 };

struct report {
	const char *html;
	int n;
	struct report_input in[MAX_INPUTS];
};

static const struct argp_option options[] = {
	{ "html", OPT_HTML, "OUT.html", 0, "Write the report to OUT.html (required)", 0 },
	{ 0 }
};

static const char doc[] =
	"Write one self-contained HTML page (inline SVG charts and tables, nothing fetched) from "
	"JSON summaries of record (--format json) and JSON of hist (--format json); with two or more "
	"summaries, also their comparison, the first being the base.";

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct report *r = state->input;

	switch (key) {
	case OPT_HTML:
		r->html = arg;
		break;
	case ARGP_KEY_ARG:
		if (r->n == MAX_INPUTS)
			argp_error(state, "at most %d files", MAX_INPUTS);
		r->in[r->n++].path = arg;
		break;
	case ARGP_KEY_END:
		if (!r->n)
			argp_error(state, "need at least one FILE.json");
		if (!r->html)
			argp_error(state, "--html OUT.html is required");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

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

static int load_input(struct report_input *in, char *err, size_t errlen)
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

int cmd_report(int argc, char **argv)
{
	static struct report r; /* 16 inputs: keep it off the stack */
	const struct argp argp = { options, parse_opt, "FILE.json [FILE.json...] --html OUT.html",
				   doc, NULL, NULL, NULL };
	int ret = EXIT_RUNTIME;
	char err[512], *buf = NULL;
	size_t len = 0;
	FILE *mem, *out;

	memset(&r, 0, sizeof(r));
	argp_parse(&argp, argc, argv, 0, NULL, &r);
	for (int i = 0; i < r.n; i++)
		if (load_input(&r.in[i], err, sizeof(err))) {
			diag_error("%s", err);
			goto out;
		}
	/* the page is built in memory, so a failed run leaves no half file */
	if (!(mem = open_memstream(&buf, &len))) {
		diag_error("out of memory");
		goto out;
	}
	if (report_write_html(mem, r.in, r.n)) {
		fclose(mem);
		diag_error("internal error: bad report template");
		goto out;
	}
	if (fclose(mem)) {
		diag_error("out of memory");
		goto out;
	}
	if (!(out = fopen(r.html, "we"))) {
		diag_error("cannot write '%s': %s", r.html, strerror(errno));
		goto out;
	}
	if (fwrite(buf, 1, len, out) != len || fclose(out)) {
		diag_error("cannot write '%s': %s", r.html, strerror(errno));
		goto out;
	}
	ret = EXIT_OK;
out:
	free(buf);
	for (int i = 0; i < r.n; i++) {
		json_decref(r.in[i].summary);
		json_decref(r.in[i].hists);
		metric_set_free(&r.in[i].m);
	}
	return ret;
}
