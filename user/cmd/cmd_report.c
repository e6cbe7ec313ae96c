/* `idlescope report FILE.json... --html OUT.html`: one self-contained HTML
 * page with charts and tables of record summaries (and hist JSON), and a
 * comparison view when there are several summaries. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "cmd/commands.h"
#include "report/report_blocks.h"
#include "report/report_html.h"

#define MAX_INPUTS 16

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
		if (report_input_load(&r.in[i], err, sizeof(err))) {
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
	for (int i = 0; i < r.n; i++)
		report_input_free(&r.in[i]);
	return ret;
}
