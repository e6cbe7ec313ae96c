/* `idlescope report FILE.json... -o OUT.html`: one self-contained HTML page
 * with charts and tables of record summaries (and hist JSON), and a
 * comparison view when there are several summaries (runs per variant: --). */
#include <errno.h>
#include <stdbool.h>
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
	struct common_opts o;
	const char *html;
	int n, variant;
	bool grouped;
	struct report_input in[MAX_INPUTS];
};

static const struct argp_option options[] = {
	{ "html", OPT_HTML, "OUT.html", 0, "The same as -o (the page is required)", 0 },
	{ 0 }
};

/* Stands for "--" in argv: argp keeps positional arguments in order. */
static char variant_break[] = "\x01";

static const char doc[] =
	"Write one self-contained HTML page (inline SVG charts and tables, nothing fetched) from "
	"JSON summaries of record (--format json) and JSON of hist (--format json); with two or more "
	"summaries, also their comparison, the first being the base.\v"
	"Summaries separated by -- are the runs of one variant (A1.json A2.json -- B1.json "
	"B2.json): the comparison then shows means, intervals and Welch's test, as compare does.";

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct report *r = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &r->o;
		break;
	case OPT_HTML:
		r->html = arg;
		break;
	case ARGP_KEY_ARG:
		if (arg == variant_break) {
			if (!r->n || r->in[r->n - 1].variant != r->variant)
				argp_error(state, "-- needs files on both sides");
			r->variant++;
			break;
		}
		if (r->n == MAX_INPUTS)
			argp_error(state, "at most %d files", MAX_INPUTS);
		r->in[r->n].variant = r->grouped ? r->variant : r->n;
		r->in[r->n++].path = arg;
		break;
	case ARGP_KEY_END:
		if (!r->n)
			argp_error(state, "need at least one FILE.json");
		if (r->grouped && r->in[r->n - 1].variant != r->variant)
			argp_error(state, "-- needs files on both sides");
		if (!r->html)
			r->html = r->o.output;
		if (!r->html)
			argp_error(state, "-o OUT.html is required");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

int cmd_report(int argc, char **argv)
{
	static struct report r; /* 16 inputs: keep it off the stack */
	const struct argp_child children[] = { { &common_argp, 0, NULL, 0 }, { 0 } };
	const struct argp argp = { options, parse_opt,
				   "FILE.json [FILE.json...] -o OUT.html\n"
				   "FILE.json... -- FILE.json... [-- FILE.json...] -o OUT.html",
				   doc, children, NULL, NULL };
	int ret = EXIT_RUNTIME;
	char err[512], *buf = NULL;
	size_t len = 0;
	FILE *mem, *out;

	memset(&r, 0, sizeof(r));
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			argv[i] = variant_break;
			r.grouped = true;
		}
	cli_takes(CLI_OUTPUT, NULL);
	argp_parse(&argp, argc, argv, 0, NULL, &r);
	if (r.o.command) {
		diag_error("report takes no COMMAND");
		return EXIT_USAGE;
	}
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
