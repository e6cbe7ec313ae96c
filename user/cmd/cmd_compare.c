/* `idlescope compare BASE.json OTHER.json...`: every metric side by side with
 * its change from BASE, matched by name (CPU number, state and group names),
 * and what could not be matched. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "cmd/commands.h"
#include "model/flatten.h"
#include "report/summary_file.h"
#include "render/render_compare.h"

#define MAX_FILES 16

struct compare {
	struct common_opts o;
	int nr_files;
	const char *files[MAX_FILES];
	struct metric_set m[MAX_FILES];
	FILE *out;
};

static const char doc[] =
	"Compare summaries (record --format json) metric by metric, with the difference from "
	"BASE in absolute terms and in percent.\v"
	"Metrics are matched by name: cpu[N], state[NAME], group[NAME]. Those present in only "
	"some files are listed as unmatched.";

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct compare *c = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &c->o;
		break;
	case ARGP_KEY_ARG:
		if (c->nr_files == MAX_FILES)
			argp_error(state, "at most %d files", MAX_FILES);
		c->files[c->nr_files++] = arg;
		break;
	case ARGP_KEY_END:
		if (c->nr_files < 2)
			argp_error(state, "need BASE.json and at least one more file");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

int cmd_compare(int argc, char **argv)
{
	struct compare c = { .o = { .format = FMT_TABLE }, .out = stdout };
	const struct argp_child children[] = { { &common_argp, 0, NULL, 0 }, { 0 } };
	const struct argp argp = { NULL, parse_opt, "BASE.json OTHER.json [MORE.json...]", doc,
				   children, NULL, NULL };
	int ret = EXIT_RUNTIME;
	char err[512];

	cli_takes(CLI_OUTPUT | CLI_FORMAT | CLI_FAIL_IF | CLI_CSV, NULL);
	argp_parse(&argp, argc, argv, 0, NULL, &c);
	if (c.o.command) {
		diag_error("compare takes no COMMAND");
		return EXIT_USAGE;
	}
	for (int f = 0; f < c.nr_files; f++)
		if (flatten_summary_file(c.files[f], &c.m[f], err, sizeof(err))) {
			diag_error("%s", err);
			goto out;
		}
	if (c.o.output && !(c.out = fopen(c.o.output, "we"))) {
		diag_error("cannot write '%s': %s", c.o.output, strerror(errno));
		c.out = stdout;
		goto out;
	}
	render_compare(c.out, c.o.format,
		       &(struct compare_report){ .nr_files = c.nr_files, .files = c.files, .sets = c.m });
	ret = EXIT_OK;
	fflush(c.out);
	for (int f = 0; f < c.nr_files && c.o.nr_asserts; f++) {
		int r;

		/* delta() between BASE and each other file; plain metrics on every file */
		if (f == 0)
			continue;
		r = assertions_check(c.o.asserts, c.o.nr_asserts, &c.m[f], &c.m[0], c.files[f]);
		if (r == EXIT_USAGE) {
			ret = r;
			break;
		}
		if (r > ret)
			ret = r;
	}
out:
	if (c.out != stdout)
		fclose(c.out);
	for (int f = 0; f < c.nr_files; f++)
		metric_set_free(&c.m[f]);
	return ret;
}
