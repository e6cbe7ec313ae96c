/* `idlescope compare BASE.json OTHER.json...`: every metric side by side with
 * its change from BASE, matched by name (CPU number, state and group names),
 * and what could not be matched. */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "cmd/commands.h"
#include "model/flatten.h"
#include "cmd/summary_file.h"

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

static void fmt_val(char *buf, size_t len, double v)
{
	if (v == floor(v) && fabs(v) < 1e15)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.4g", v);
}

static void table(struct compare *c)
{
	const struct metric_set *base = &c->m[0];
	int mw = 6, fw[MAX_FILES];

	/* columns as wide as the longest metric name and file name */
	for (int i = 0; i < base->n; i++)
		if ((int)strlen(base->kv[i].key) > mw)
			mw = (int)strlen(base->kv[i].key);
	for (int f = 0; f < c->nr_files; f++)
		fw[f] = strlen(c->files[f]) > 16 ? (int)strlen(c->files[f]) : 16;
	fprintf(c->out, "%-*s %*s", mw, "metric", fw[0], c->files[0]);
	for (int f = 1; f < c->nr_files; f++)
		fprintf(c->out, " %*s %14s %9s", fw[f], c->files[f], "delta", "delta%");
	fprintf(c->out, "\n");
	for (int i = 0; i < base->n; i++) {
		const struct metric_kv *b = &base->kv[i];
		char v[32];

		fmt_val(v, sizeof(v), b->value);
		fprintf(c->out, "%-*s %*s", mw, b->key, fw[0], v);
		for (int f = 1; f < c->nr_files; f++) {
			const struct metric_kv *o = metric_find(&c->m[f], b->key);
			char d[32], p[16];

			if (!o) {
				fprintf(c->out, " %*s %14s %9s", fw[f], "-", "-", "-");
				continue;
			}
			fmt_val(v, sizeof(v), o->value);
			fmt_val(d, sizeof(d), o->value - b->value);
			if (b->value != 0)
				snprintf(p, sizeof(p), "%+.1f%%", 100.0 * (o->value - b->value) / fabs(b->value));
			else
				snprintf(p, sizeof(p), "%s", o->value == 0 ? "0%" : "n/a");
			fprintf(c->out, " %*s %14s %9s", fw[f], v, d, p);
		}
		fprintf(c->out, "\n");
	}
}

static void csv(struct compare *c)
{
	const struct metric_set *base = &c->m[0];

	fprintf(c->out, "metric,%s", c->files[0]);
	for (int f = 1; f < c->nr_files; f++)
		fprintf(c->out, ",%s,delta,delta_pct", c->files[f]);
	fprintf(c->out, "\n");
	for (int i = 0; i < base->n; i++) {
		const struct metric_kv *b = &base->kv[i];

		fprintf(c->out, "%s,%.17g", b->key, b->value);
		for (int f = 1; f < c->nr_files; f++) {
			const struct metric_kv *o = metric_find(&c->m[f], b->key);

			if (!o)
				fprintf(c->out, ",,,");
			else if (b->value != 0)
				fprintf(c->out, ",%.17g,%.17g,%.6g", o->value, o->value - b->value,
					100.0 * (o->value - b->value) / fabs(b->value));
			else
				fprintf(c->out, ",%.17g,%.17g,", o->value, o->value - b->value);
		}
		fprintf(c->out, "\n");
	}
}

static json_t *unmatched(struct compare *c, int f, int g)
{
	return metric_unmatched(&c->m[f], &c->m[g]);
}

static void unmatched_text(struct compare *c)
{
	for (int f = 1; f < c->nr_files; f++)
		for (int dir = 0; dir < 2; dir++) {
			json_t *u = dir ? unmatched(c, f, 0) : unmatched(c, 0, f);
			size_t i;
			json_t *e;

			if (json_array_size(u)) {
				fprintf(c->out, "\nUnmatched: only in %s, not in %s:\n",
					c->files[dir ? f : 0], c->files[dir ? 0 : f]);
				json_array_foreach(u, i, e)
					fprintf(c->out, "  %s\n", json_string_value(e));
			}
			json_decref(u);
		}
}

static int json_out(struct compare *c)
{
	json_t *root = json_object(), *files = json_array(), *rows = json_array(), *um = json_array();
	const struct metric_set *base = &c->m[0];
	int err;

	for (int f = 0; f < c->nr_files; f++)
		json_array_append_new(files, json_string(c->files[f]));
	for (int i = 0; i < base->n; i++) {
		json_t *vals = json_array(), *delta = json_array(), *pct = json_array();

		for (int f = 0; f < c->nr_files; f++) {
			const struct metric_kv *o = metric_find(&c->m[f], base->kv[i].key);

			json_array_append_new(vals, o ? json_real(o->value) : json_null());
			json_array_append_new(delta, o ? json_real(o->value - base->kv[i].value)
						       : json_null());
			json_array_append_new(pct, o && base->kv[i].value != 0
							   ? json_real(100.0 * (o->value - base->kv[i].value) /
								       fabs(base->kv[i].value))
							   : json_null());
		}
		json_array_append_new(rows, json_pack("{s:s,s:o,s:o,s:o}", "metric", base->kv[i].key,
						      "values", vals, "delta", delta, "delta_pct", pct));
	}
	for (int f = 1; f < c->nr_files; f++) {
		json_array_append_new(um, json_pack("{s:s,s:s,s:o}", "only_in", c->files[0], "not_in",
						    c->files[f], "entities", unmatched(c, 0, f)));
		json_array_append_new(um, json_pack("{s:s,s:s,s:o}", "only_in", c->files[f], "not_in",
						    c->files[0], "entities", unmatched(c, f, 0)));
	}
	json_object_set_new(root, "schema", json_string("idlescope-compare/1"));
	json_object_set_new(root, "files", files);
	json_object_set_new(root, "rows", rows);
	json_object_set_new(root, "unmatched", um);
	err = json_dumpf(root, c->out, JSON_INDENT(2));
	fputc('\n', c->out);
	json_decref(root);
	return err;
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
	for (int f = 0; f < c.nr_files; f++) {
		json_t *doc = load_summary_file(c.files[f], err, sizeof(err));

		if (!doc) {
			diag_error("%s", err);
			goto out;
		}
		if (flatten_summary(doc, &c.m[f])) {
			json_decref(doc);
			diag_error("out of memory");
			goto out;
		}
		json_decref(doc);
	}
	if (c.o.output && !(c.out = fopen(c.o.output, "we"))) {
		diag_error("cannot write '%s': %s", c.o.output, strerror(errno));
		c.out = stdout;
		goto out;
	}
	if (c.o.format == FMT_JSON) {
		json_out(&c);
	} else if (c.o.format == FMT_CSV) {
		csv(&c);
	} else {
		table(&c);
		unmatched_text(&c);
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
	for (int f = 0; f < c.nr_files; f++)
		metric_set_free(&c.m[f]);
	return ret;
}
