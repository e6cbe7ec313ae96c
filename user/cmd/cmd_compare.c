/* `idlescope compare BASE.json OTHER.json...` (or `BASE... -- OTHER...`, runs
 * per variant): the states and wakeups per group and CPU, each variant's change
 * from BASE tested; with --all every metric by name, and what did not match. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "cmd/commands.h"
#include "model/compare_view.h"
#include "model/flatten.h"
#include "report/summary_file.h"
#include "render/render_compare.h"

#define MAX_FILES 64

enum { OPT_ALL = 0x400, OPT_PER_CPU };

struct compare {
	struct common_opts o;
	int nr_files;
	const char *files[MAX_FILES];
	struct metric_set m[MAX_FILES];
	json_t *docs[MAX_FILES];
	int nr_variants;
	int nr_runs[MAX_FILES]; /* files per variant, in order */
	bool all, per_cpu;
	FILE *out;
};

/* Stands for "--" in argv: argp keeps positional arguments in order. */
static char variant_break[] = "\x01";

static const struct argp_option options[] = {
	{ "all", OPT_ALL, NULL, 0,
	  "Every metric by name with its delta and delta% (the flat list; what --format json and "
	  "csv write)", 0 },
	{ "per-cpu", OPT_PER_CPU, NULL, 0, "Rows for each CPU too, after the groups", 0 },
	{ 0 }
};

static const char doc[] =
	"Compare summaries (record --format json): per topology group (and CPU with --per-cpu) "
	"and idle state, the residency, share of the window, entries, too deep and too shallow, "
	"and the wakeup causes: BASE's value, then each other's difference, in human units.\v"
	"Files separated by -- are the runs of one variant (BASE1 BASE2 -- OTHER1 OTHER2): each "
	"cell is then the mean with its 95% interval, and * marks a difference Welch's t-test "
	"finds significant. Without --, each file is a variant of one run. --all (and --format "
	"json or csv) gives every metric by name, cpu[N], state[NAME], group[NAME], with its "
	"delta from the first file; those present in only some files are listed as unmatched.";

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct compare *c = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &c->o;
		break;
	case OPT_ALL:
		c->all = true;
		break;
	case OPT_PER_CPU:
		c->per_cpu = true;
		break;
	case ARGP_KEY_ARG:
		if (arg == variant_break) {
			if (!c->nr_variants || !c->nr_runs[c->nr_variants - 1])
				argp_error(state, "-- needs files on both sides");
			c->nr_runs[c->nr_variants++] = 0;
			break;
		}
		if (c->nr_files == MAX_FILES)
			argp_error(state, "at most %d files", MAX_FILES);
		if (!c->nr_variants)
			c->nr_variants = 1;
		c->nr_runs[c->nr_variants - 1]++;
		c->files[c->nr_files++] = arg;
		break;
	case ARGP_KEY_END:
		if (c->nr_variants && !c->nr_runs[c->nr_variants - 1])
			argp_error(state, "-- needs files on both sides");
		if (c->nr_files < 2)
			argp_error(state, "need BASE.json and at least one more file");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* The readable table, a variant named by its first file. Returns 0 or -1. */
static int view_out(struct compare *c)
{
	struct compare_view v;
	char names[MAX_FILES][300];
	const char *np[MAX_FILES];

	if (compare_view_build((const json_t *const *)c->docs, c->nr_runs, c->nr_variants,
			       c->per_cpu, &v)) {
		diag_error("out of memory");
		return -1;
	}
	for (int i = 0, f = 0; i < c->nr_variants; f += c->nr_runs[i++]) {
		if (c->nr_runs[i] > 1)
			snprintf(names[i], sizeof(names[i]), "%s (%d runs)", c->files[f], c->nr_runs[i]);
		else
			snprintf(names[i], sizeof(names[i]), "%s", c->files[f]);
		np[i] = names[i];
	}
	render_compare_view(c->out, &v, np);
	compare_view_free(&v);
	return 0;
}

int cmd_compare(int argc, char **argv)
{
	struct compare c = { .o = { .format = FMT_TABLE }, .out = stdout };
	const struct argp_child children[] = { { &common_argp, 0, NULL, 0 }, { 0 } };
	const struct argp argp = { options, parse_opt,
				   "BASE.json OTHER.json [MORE.json...]\n"
				   "BASE.json... -- OTHER.json... [-- MORE.json...]",
				   doc, children, NULL, NULL };
	int ret = EXIT_RUNTIME;
	char err[512];
	bool grouped = false;

	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			argv[i] = variant_break;
			grouped = true;
		}
	cli_takes(CLI_OUTPUT | CLI_FORMAT | CLI_FAIL_IF | CLI_CSV, NULL);
	argp_parse(&argp, argc, argv, 0, NULL, &c);
	if (!grouped) {
		/* each file its own variant of one run */
		c.nr_variants = c.nr_files;
		for (int f = 0; f < c.nr_files; f++)
			c.nr_runs[f] = 1;
	} else if (c.nr_variants < 2) {
		diag_error("compare: with --, give the files of at least two variants");
		return EXIT_USAGE;
	}
	if (c.o.command) {
		diag_error("compare takes no COMMAND");
		return EXIT_USAGE;
	}
	for (int f = 0; f < c.nr_files; f++)
		if (!(c.docs[f] = load_summary_file(c.files[f], err, sizeof(err))) ||
		    flatten_summary(c.docs[f], &c.m[f])) {
			diag_error("%s", c.docs[f] ? "out of memory" : err);
			goto out;
		}
	if (c.o.output && !(c.out = fopen(c.o.output, "we"))) {
		diag_error("cannot write '%s': %s", c.o.output, strerror(errno));
		c.out = stdout;
		goto out;
	}
	if (c.all || c.o.format != FMT_TABLE) {
		render_compare(c.out, c.o.format,
			       &(struct compare_report){ .nr_files = c.nr_files, .files = c.files,
							 .sets = c.m });
	} else if (view_out(&c)) {
		goto out;
	}
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
	for (int f = 0; f < c.nr_files; f++) {
		metric_set_free(&c.m[f]);
		json_decref(c.docs[f]);
	}
	return ret;
}
