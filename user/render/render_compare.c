/* compare's table, CSV and JSON (render_compare.h): values, deltas and
 * percent changes from BASE, matched by metric name. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "render/render_compare.h"

static void fmt_val(char *buf, size_t len, double v)
{
	if (v == floor(v) && fabs(v) < 1e15)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.4g", v);
}

/* A file's column: as wide as its name, 16 at least. */
static int file_width(const struct compare_report *c, int f)
{
	return strlen(c->files[f]) > 16 ? (int)strlen(c->files[f]) : 16;
}

static void table(FILE *out, const struct compare_report *c)
{
	const struct metric_set *base = &c->sets[0];
	int mw = 6;

	/* the first column as wide as the longest metric name */
	for (int i = 0; i < base->n; i++)
		if ((int)strlen(base->kv[i].key) > mw)
			mw = (int)strlen(base->kv[i].key);
	fprintf(out, "%-*s %*s", mw, "metric", file_width(c, 0), c->files[0]);
	for (int f = 1; f < c->nr_files; f++)
		fprintf(out, " %*s %14s %9s", file_width(c, f), c->files[f], "delta", "delta%");
	fprintf(out, "\n");
	for (int i = 0; i < base->n; i++) {
		const struct metric_kv *b = &base->kv[i];
		char v[32];

		fmt_val(v, sizeof(v), b->value);
		fprintf(out, "%-*s %*s", mw, b->key, file_width(c, 0), v);
		for (int f = 1; f < c->nr_files; f++) {
			const struct metric_kv *o = metric_find(&c->sets[f], b->key);
			char d[32], p[16];

			if (!o) {
				fprintf(out, " %*s %14s %9s", file_width(c, f), "-", "-", "-");
				continue;
			}
			fmt_val(v, sizeof(v), o->value);
			fmt_val(d, sizeof(d), o->value - b->value);
			if (b->value != 0)
				snprintf(p, sizeof(p), "%+.1f%%", 100.0 * (o->value - b->value) / fabs(b->value));
			else
				snprintf(p, sizeof(p), "%s", o->value == 0 ? "0%" : "n/a");
			fprintf(out, " %*s %14s %9s", file_width(c, f), v, d, p);
		}
		fprintf(out, "\n");
	}
}

static void csv(FILE *out, const struct compare_report *c)
{
	const struct metric_set *base = &c->sets[0];

	fprintf(out, "metric,%s", c->files[0]);
	for (int f = 1; f < c->nr_files; f++)
		fprintf(out, ",%s,delta,delta_pct", c->files[f]);
	fprintf(out, "\n");
	for (int i = 0; i < base->n; i++) {
		const struct metric_kv *b = &base->kv[i];

		fprintf(out, "%s,%.17g", b->key, b->value);
		for (int f = 1; f < c->nr_files; f++) {
			const struct metric_kv *o = metric_find(&c->sets[f], b->key);

			if (!o)
				fprintf(out, ",,,");
			else if (b->value != 0)
				fprintf(out, ",%.17g,%.17g,%.6g", o->value, o->value - b->value,
					100.0 * (o->value - b->value) / fabs(b->value));
			else
				fprintf(out, ",%.17g,%.17g,", o->value, o->value - b->value);
		}
		fprintf(out, "\n");
	}
}

static json_t *unmatched(const struct compare_report *c, int f, int g)
{
	return metric_unmatched(&c->sets[f], &c->sets[g]);
}

static void unmatched_text(FILE *out, const struct compare_report *c)
{
	for (int f = 1; f < c->nr_files; f++)
		for (int dir = 0; dir < 2; dir++) {
			json_t *u = dir ? unmatched(c, f, 0) : unmatched(c, 0, f);
			size_t i;
			json_t *e;

			if (json_array_size(u)) {
				fprintf(out, "\nUnmatched: only in %s, not in %s:\n",
					c->files[dir ? f : 0], c->files[dir ? 0 : f]);
				json_array_foreach(u, i, e)
					fprintf(out, "  %s\n", json_string_value(e));
			}
			json_decref(u);
		}
}

static int json_out(FILE *out, const struct compare_report *c)
{
	json_t *root = json_object(), *files = json_array(), *rows = json_array(), *um = json_array();
	const struct metric_set *base = &c->sets[0];
	int err;

	for (int f = 0; f < c->nr_files; f++)
		json_array_append_new(files, json_string(c->files[f]));
	for (int i = 0; i < base->n; i++) {
		json_t *vals = json_array(), *delta = json_array(), *pct = json_array();

		for (int f = 0; f < c->nr_files; f++) {
			const struct metric_kv *o = metric_find(&c->sets[f], base->kv[i].key);

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
	err = json_dumpf(root, out, JSON_INDENT(2));
	fputc('\n', out);
	json_decref(root);
	return err;
}

int render_compare(FILE *f, enum out_format fmt, const struct compare_report *c)
{
	if (fmt == FMT_JSON)
		return json_out(f, c) ? -1 : 0;
	if (fmt == FMT_CSV) {
		csv(f, c);
		return 0;
	}
	table(f, c);
	unmatched_text(f, c);
	return 0;
}

/* Characters of UTF-8 s: printf's widths count bytes, and "±" is two. */
static int chars_of(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

static void pad(FILE *out, const char *s, int width, bool left)
{
	int chars = chars_of(s);

	if (left)
		fputs(s, out);
	for (int i = chars; i < width; i++)
		fputc(' ', out);
	if (!left)
		fputs(s, out);
}

static void view_table(FILE *out, const struct compare_view *v, const struct cv_table *t,
		       const char *const *names, const char *title)
{
	int nw = 4, cw[CV_MAX_COLS];
	char buf[96];

	for (int i = 0; i < v->nr_variants; i++)
		if ((int)strlen(names[i]) + 2 > nw)
			nw = (int)strlen(names[i]) + 2;
	for (int c = 0; c < t->ncols; c++) {
		cw[c] = (int)strlen(t->cols[c]) > 8 ? (int)strlen(t->cols[c]) : 8;
		for (int r = 0; r < t->nrows; r++)
			for (int i = 0; i < v->nr_variants; i++) {
				int n = chars_of(cv_cell_text(buf, sizeof(buf), v, t, &t->rows[r], i, c));

				if (n > cw[c])
					cw[c] = n;
			}
	}
	pad(out, title, nw, true);
	for (int c = 0; c < t->ncols; c++) {
		fputs("  ", out);
		pad(out, t->cols[c], cw[c], false);
	}
	fputc('\n', out);
	for (int r = 0; r < t->nrows; r++) {
		const struct cv_row *row = &t->rows[r];

		fprintf(out, "%s%s%s\n", row->entity, *row->label ? ": " : "", row->label);
		for (int i = 0; i < v->nr_variants; i++) {
			fputs("  ", out);
			pad(out, names[i], nw - 2, true);
			for (int c = 0; c < t->ncols; c++) {
				fputs("  ", out);
				pad(out, cv_cell_text(buf, sizeof(buf), v, t, row, i, c), cw[c], false);
			}
			fputc('\n', out);
		}
	}
}

void render_compare_view(FILE *out, const struct compare_view *v, const char *const *names)
{
	bool single = false, tested = false;

	for (int i = 0; i < v->nr_variants; i++)
		single |= v->nr_runs[i] < 2;
	tested = !single;
	fprintf(out, "Idle states: base %s, then each other's difference from it; too deep "
		     "and too shallow are the CPUs' counts\n",
		names[0]);
	view_table(out, v, &v->states, names, "state");
	if (v->wakeups.nrows) {
		fputs("\nWakeup causes (CPUs' counts)\n", out);
		view_table(out, v, &v->wakeups, names, "woken by");
	}
	if (v->misses.nrows) {
		fputs("\nWhy the governor missed (of the periods whose inputs were seen; qos: every "
		      "too-shallow period PM QoS forced)\n",
		      out);
		view_table(out, v, &v->misses, names, "state");
	}
	if (v->figures.nrows) {
		fputs("\nThe workload's own figures (from its output: cyclictest's latency)\n", out);
		view_table(out, v, &v->figures, names, "figure");
	}
	fputc('\n', out);
	if (tested)
		fputs("Each cell: the mean of the runs, \xc2\xb1 its 95% interval (the base's mean, the "
		      "others' difference); * = significant (Welch's t-test, 95%).\n",
		      out);
	else
		fprintf(out, "No repetitions: %s one run, so no difference is tested; give "
			     "several files per variant (BASE... -- OTHER...).\n",
			v->nr_variants == 2 && v->nr_runs[0] < 2 && v->nr_runs[1] < 2
				? "each side is"
				: "some variant is");
	fputs("n.a.: a state never entered. --all lists every metric.\n", out);
}
