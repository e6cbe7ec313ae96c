/* The readable comparison (compare_view.h): rows matched by entity and state
 * name across summaries, each variant's runs reduced to statistics and
 * tested against the first variant's with Welch's test. */
#include "model/compare_view.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/cpulist.h"
#include "util/units.h"

enum { COL_TIME, COL_SHARE, COL_ENTRIES, COL_ABOVE, COL_BELOW, NR_STATE_COLS };

static const char *const state_cols[NR_STATE_COLS] = { "time", "share", "entries", "too deep",
							"too shallow" };
static const enum cv_unit state_units[NR_STATE_COLS] = { CV_NS, CV_SHARE, CV_COUNT, CV_COUNT,
							 CV_COUNT };

/* Where an entity's numbers are in a document. */
enum ent_kind { ENT_TOTAL, ENT_GROUP, ENT_CPU };

struct entity {
	enum ent_kind kind;
	char name[64];
	long long cpu;
};

static const char *name_of(const json_t *o)
{
	const char *s = json_string_value(json_object_get(o, "name"));

	return s ? s : "?";
}

static const json_t *by_name(const json_t *arr, const char *name)
{
	size_t i;
	json_t *e;

	json_array_foreach((json_t *)arr, i, e)
		if (!strcmp(name_of(e), name))
			return e;
	return NULL;
}

static const json_t *cpu_of(const json_t *doc, long long cpu)
{
	size_t i;
	json_t *c;

	json_array_foreach(json_object_get(doc, "cpus"), i, c)
		if (json_integer_value(json_object_get(c, "cpu")) == cpu)
			return c;
	return NULL;
}

static const json_t *group_of(const json_t *doc, const char *name)
{
	return by_name(json_object_get(json_object_get(doc, "groups"), "groups"), name);
}

static bool entity_in(const json_t *doc, const struct entity *e)
{
	switch (e->kind) {
	case ENT_TOTAL: return json_is_object(json_object_get(doc, "totals"));
	case ENT_GROUP: return group_of(doc, e->name) != NULL;
	default: return cpu_of(doc, e->cpu) != NULL;
	}
}

/* The sum over the CPUs of group g in doc of the number at key in the
 * object pick(cpu, arg) gives; false when no CPU has it. The kernel counts
 * too deep, too shallow and wakeups per CPU: a group's are its CPUs'. */
static bool group_sum(const json_t *doc, const json_t *g,
		      const json_t *(*pick)(const json_t *cpu, const char *arg), const char *arg,
		      const char *key, double *out)
{
	const char *list = json_string_value(json_object_get(g, "cpus"));
	struct cpulist l;
	char err[64];
	bool any = false;
	size_t i;
	json_t *c;

	*out = 0;
	if (!list || cpulist_parse(list, &l, err, sizeof(err)))
		return false;
	json_array_foreach(json_object_get(doc, "cpus"), i, c) {
		json_int_t cpu = json_integer_value(json_object_get(c, "cpu"));
		json_t *v;

		if (cpu < 0 || cpu >= IS_CPULIST_MAX || !cpulist_has(&l, (int)cpu))
			continue;
		v = json_object_get(pick(c, arg), key);
		if (json_is_number(v)) {
			*out += json_number_value(v);
			any = true;
		}
	}
	return any;
}

static const json_t *state_of_cpu(const json_t *cpu, const char *state)
{
	return by_name(json_object_get(cpu, "states"), state);
}

static const json_t *cause_of_cpu(const json_t *cpu, const char *cause)
{
	return json_object_get(json_object_get(json_object_get(cpu, "wakeups"), "causes"), cause);
}

/* The state col of entity e in doc; false when doc lacks it. */
static bool state_value(const json_t *doc, const struct entity *e, const char *state, int col,
			double *out)
{
	double dur = json_number_value(json_object_get(doc, "duration_ns"));
	const json_t *st, *g;

	if (e->kind != ENT_GROUP) {
		const json_t *o = e->kind == ENT_TOTAL ? json_object_get(doc, "totals") : cpu_of(doc, e->cpu);
		static const char *const keys[NR_STATE_COLS] = { "time_ns", "share", "entries", "above",
								 "below" };
		json_t *v;

		st = by_name(json_object_get(o, "states"), state);
		v = json_object_get(st, keys[col]);
		if (!json_is_number(v))
			return false;
		*out = json_number_value(v);
		return true;
	}
	g = group_of(doc, e->name);
	st = by_name(json_object_get(g, "states"), state);
	if (!st)
		return false;
	switch (col) {
	case COL_TIME: *out = json_number_value(json_object_get(st, "time_ns")); return true;
	case COL_SHARE:
		if (dur <= 0)
			return false;
		*out = json_number_value(json_object_get(st, "time_ns")) / dur;
		return true;
	case COL_ENTRIES: *out = json_number_value(json_object_get(st, "periods")); return true;
	default:
		return group_sum(doc, g, state_of_cpu, state, col == COL_ABOVE ? "above" : "below", out);
	}
}

/* The governor split's columns (docs/metrics.md#why-the-governor-missed):
 * below_qos from the state, the rest from its governor object. */
enum { NR_MISS_COLS = 6 };
static const char *const miss_cols[NR_MISS_COLS] = { "timer near",  "woken early", "qos",
						     "tick kept",   "pred. short", "timer moved" };
static const char *const miss_keys[NR_MISS_COLS] = { "above_timer_near",      "above_woken_before_timer",
						     "below_qos",	      "below_tick_kept",
						     "below_predicted_short", "below_timer_moved" };

/* Entity e's state's split in doc (all CPUs or one CPU; not groups). */
static bool miss_value(const json_t *doc, const struct entity *e, const char *state, int col,
		       double *out)
{
	const json_t *o, *st, *g;
	json_t *v;

	if (e->kind == ENT_GROUP)
		return false;
	o = e->kind == ENT_TOTAL ? json_object_get(doc, "totals") : cpu_of(doc, e->cpu);
	st = by_name(json_object_get(o, "states"), state);
	g = json_object_get(st, "governor");
	if (!json_is_object(g))
		return false;
	v = json_object_get(col == 2 ? st : g, miss_keys[col]);
	if (!json_is_number(v))
		return false;
	*out = json_number_value(v);
	return true;
}

static const json_t *causes_of(const json_t *o)
{
	return json_object_get(json_object_get(o, "wakeups"), "causes");
}

static bool wakeup_value(const json_t *doc, const struct entity *e, const char *cause, double *out)
{
	const json_t *g;
	json_t *v;

	if (e->kind != ENT_GROUP) {
		const json_t *o = e->kind == ENT_TOTAL ? json_object_get(doc, "totals") : cpu_of(doc, e->cpu);

		v = json_object_get(json_object_get(causes_of(o), cause), "count");
		if (!json_is_number(v))
			return false;
		*out = json_number_value(v);
		return true;
	}
	g = group_of(doc, e->name);
	return g && group_sum(doc, g, cause_of_cpu, cause, "count", out);
}

struct names {
	int n, cap;
	char (*s)[64];
};

static int names_add(struct names *l, const char *s)
{
	for (int i = 0; i < l->n; i++)
		if (!strcmp(l->s[i], s))
			return 0;
	if (l->n == l->cap) {
		int cap = l->cap ? 2 * l->cap : 16;
		char(*p)[64] = realloc(l->s, sizeof(*p) * (size_t)cap);

		if (!p)
			return -1;
		l->s = p;
		l->cap = cap;
	}
	snprintf(l->s[l->n++], 64, "%s", s);
	return 0;
}

struct ents {
	int n, cap;
	struct entity *e;
};

static int ents_add(struct ents *l, const struct entity *e)
{
	for (int i = 0; i < l->n; i++)
		if (l->e[i].kind == e->kind && l->e[i].cpu == e->cpu && !strcmp(l->e[i].name, e->name))
			return 0;
	if (l->n == l->cap) {
		int cap = l->cap ? 2 * l->cap : 16;
		struct entity *p = realloc(l->e, sizeof(*p) * (size_t)cap);

		if (!p)
			return -1;
		l->e = p;
		l->cap = cap;
	}
	l->e[l->n++] = *e;
	return 0;
}

/* Every entity of every document, in order: all CPUs, groups, CPUs. */
static int collect_entities(const json_t *const *docs, int nd, bool per_cpu, struct ents *out)
{
	struct entity total = { ENT_TOTAL, "all CPUs", -1 };

	if (ents_add(out, &total))
		return -1;
	for (int d = 0; d < nd; d++) {
		size_t i;
		json_t *g;

		json_array_foreach(json_object_get(json_object_get(docs[d], "groups"), "groups"), i, g) {
			struct entity e = { ENT_GROUP, "", -1 };

			snprintf(e.name, sizeof(e.name), "%s", name_of(g));
			if (ents_add(out, &e))
				return -1;
		}
	}
	for (int d = 0; per_cpu && d < nd; d++) {
		size_t i;
		json_t *c;

		json_array_foreach(json_object_get(docs[d], "cpus"), i, c) {
			struct entity e = { ENT_CPU, "", json_integer_value(json_object_get(c, "cpu")) };

			snprintf(e.name, sizeof(e.name), "cpu %lld", e.cpu);
			if (ents_add(out, &e))
				return -1;
		}
	}
	return 0;
}

/* The states entity e has in any document, in order. */
static int collect_states(const json_t *const *docs, int nd, const struct entity *e, struct names *out)
{
	for (int d = 0; d < nd; d++) {
		const json_t *o = e->kind == ENT_TOTAL ? json_object_get(docs[d], "totals")
				  : e->kind == ENT_GROUP ? group_of(docs[d], e->name)
							 : cpu_of(docs[d], e->cpu);
		size_t i;
		json_t *st;

		json_array_foreach(json_object_get(o, "states"), i, st)
			if (names_add(out, name_of(st)))
				return -1;
	}
	return 0;
}

static struct cv_row *add_row(struct cv_table *t, int nv, const char *entity, const char *label)
{
	struct cv_row *rows = realloc(t->rows, sizeof(*rows) * (size_t)(t->nrows + 1)), *r;

	if (!rows)
		return NULL;
	t->rows = rows;
	r = &rows[t->nrows];
	memset(r, 0, sizeof(*r));
	r->cells = calloc((size_t)nv * (size_t)t->ncols, sizeof(*r->cells));
	if (!r->cells)
		return NULL;
	t->nrows++;
	snprintf(r->entity, sizeof(r->entity), "%s", entity);
	snprintf(r->label, sizeof(r->label), "%s", label);
	return r;
}

/* Statistics of one variant's values (NAN: a run without it), then the test. */
static void fill_cell(struct cv_cell *c, double *vals, int n)
{
	int k = 0;

	/* the runs that had it, to the front */
	for (int i = 0; i < n; i++)
		if (!isnan(vals[i]))
			vals[k++] = vals[i];
	c->have = k > 0;
	if (k)
		sample_stats(vals, k, &c->st);
}

static void test_cells(struct cv_table *t, int nv)
{
	for (int r = 0; r < t->nrows; r++)
		for (int v = 1; v < nv; v++)
			for (int c = 0; c < t->ncols; c++) {
				struct cv_cell *b = &t->rows[r].cells[c], *o = &t->rows[r].cells[v * t->ncols + c];

				if (b->have && o->have && b->st.n >= 2 && o->st.n >= 2) {
					welch_test(&b->st, &o->st, &o->w);
					o->tested = true;
				}
			}
}

/* The misses row of entity en's state, when some run has its split.
 * Returns 0 or -1 (out of memory). */
static int add_miss_row(struct compare_view *out, const json_t *const *docs, const int *nr_runs,
			int nr_variants, const struct entity *en, const char *state, double *vals)
{
	struct cv_row *r;
	bool any = false;
	double x;

	for (int v = 0, d0 = 0; v < nr_variants && !any; d0 += nr_runs[v++])
		for (int i = 0; i < nr_runs[v] && !any; i++)
			any = miss_value(docs[d0 + i], en, state, 0, &x);
	if (!any)
		return 0;
	if (!(r = add_row(&out->misses, nr_variants, en->name, state)))
		return -1;
	for (int v = 0, d0 = 0; v < nr_variants; d0 += nr_runs[v++])
		for (int c = 0; c < NR_MISS_COLS; c++) {
			for (int i = 0; i < nr_runs[v]; i++)
				vals[i] = miss_value(docs[d0 + i], en, state, c, &x) ? x : NAN;
			fill_cell(&r->cells[v * NR_MISS_COLS + c], vals, nr_runs[v]);
		}
	return 0;
}

int compare_view_build(const json_t *const *docs, const int *nr_runs, int nr_variants,
		       bool per_cpu, struct compare_view *out)
{
	struct ents ents = { 0 };
	struct names causes = { 0 };
	int nd = 0, ret = -1, maxrun = 1;
	double *vals;

	memset(out, 0, sizeof(*out));
	out->nr_variants = nr_variants;
	out->nr_runs = nr_runs;
	for (int v = 0; v < nr_variants; v++) {
		nd += nr_runs[v];
		if (nr_runs[v] > maxrun)
			maxrun = nr_runs[v];
	}
	vals = calloc((size_t)maxrun, sizeof(*vals));
	if (!vals || collect_entities(docs, nd, per_cpu, &ents))
		goto out;
	out->states.ncols = NR_STATE_COLS;
	for (int c = 0; c < NR_STATE_COLS; c++) {
		snprintf(out->states.cols[c], sizeof(out->states.cols[c]), "%s", state_cols[c]);
		out->states.unit[c] = state_units[c];
	}
	/* wakeup causes any run saw, in the documents' order */
	for (int d = 0; d < nd; d++) {
		const char *k;
		json_t *c;

		json_object_foreach((json_t *)causes_of(json_object_get(docs[d], "totals")), k, c)
			if (json_number_value(json_object_get(c, "count")) > 0 &&
			    causes.n < CV_MAX_COLS && names_add(&causes, k))
				goto out;
	}
	out->misses.ncols = NR_MISS_COLS;
	for (int c = 0; c < NR_MISS_COLS; c++) {
		snprintf(out->misses.cols[c], sizeof(out->misses.cols[c]), "%s", miss_cols[c]);
		out->misses.unit[c] = CV_COUNT;
	}
	out->wakeups.ncols = causes.n;
	for (int c = 0; c < causes.n; c++) {
		snprintf(out->wakeups.cols[c], sizeof(out->wakeups.cols[c]), "%s", causes.s[c]);
		out->wakeups.unit[c] = CV_COUNT;
	}
	for (int e = 0; e < ents.n; e++) {
		const struct entity *en = &ents.e[e];
		struct names states = { 0 };

		if (collect_states(docs, nd, en, &states)) {
			free(states.s);
			goto out;
		}
		for (int s = 0; s < states.n; s++) {
			struct cv_row *r = add_row(&out->states, nr_variants, en->name, states.s[s]);

			if (!r) {
				free(states.s);
				goto out;
			}
			for (int v = 0, d0 = 0; v < nr_variants; d0 += nr_runs[v++]) {
				bool entered = false;

				for (int c = 0; c < NR_STATE_COLS; c++) {
					for (int i = 0; i < nr_runs[v]; i++) {
						double x;

						vals[i] = state_value(docs[d0 + i], en, states.s[s], c, &x) ? x : NAN;
						if (c == COL_ENTRIES && !isnan(vals[i]) && vals[i] > 0)
							entered = true;
					}
					fill_cell(&r->cells[v * NR_STATE_COLS + c], vals, nr_runs[v]);
				}
				for (int c = 0; c < NR_STATE_COLS; c++)
					r->cells[v * NR_STATE_COLS + c].na =
						r->cells[v * NR_STATE_COLS + c].have && !entered;
			}
			if (add_miss_row(out, docs, nr_runs, nr_variants, en, states.s[s], vals)) {
				free(states.s);
				goto out;
			}
		}
		free(states.s);
		if (causes.n) {
			struct cv_row *r = add_row(&out->wakeups, nr_variants, en->name, "");

			if (!r)
				goto out;
			for (int v = 0, d0 = 0; v < nr_variants; d0 += nr_runs[v++])
				for (int c = 0; c < causes.n; c++) {
					for (int i = 0; i < nr_runs[v]; i++) {
						double x;

						vals[i] = entity_in(docs[d0 + i], en) &&
									  wakeup_value(docs[d0 + i], en, causes.s[c], &x)
								  ? x
								  : NAN;
					}
					fill_cell(&r->cells[v * causes.n + c], vals, nr_runs[v]);
				}
		}
	}
	test_cells(&out->states, nr_variants);
	test_cells(&out->wakeups, nr_variants);
	test_cells(&out->misses, nr_variants);
	ret = 0;
out:
	free(vals);
	free(ents.e);
	free(causes.s);
	if (ret)
		compare_view_free(out);
	return ret;
}

static void table_free(struct cv_table *t)
{
	for (int r = 0; r < t->nrows; r++)
		free(t->rows[r].cells);
	free(t->rows);
	t->rows = NULL;
	t->nrows = 0;
}

void compare_view_free(struct compare_view *v)
{
	table_free(&v->states);
	table_free(&v->wakeups);
	table_free(&v->figures);
	table_free(&v->misses);
}

int compare_view_add_figures(struct compare_view *v, int ncols, const char *const *cols,
			     const double *vals)
{
	struct cv_table *t = &v->figures;
	int nd = 0, maxrun = 1, keep[CV_MAX_COLS], nk = 0;
	struct cv_row *r;
	double *run;

	for (int i = 0; i < v->nr_variants; i++) {
		nd += v->nr_runs[i];
		if (v->nr_runs[i] > maxrun)
			maxrun = v->nr_runs[i];
	}
	for (int c = 0; c < ncols && nk < CV_MAX_COLS; c++)
		for (int d = 0; d < nd; d++)
			if (!isnan(vals[d * ncols + c])) {
				keep[nk++] = c;
				break;
			}
	if (!nk)
		return 0;
	t->ncols = nk;
	for (int k = 0; k < nk; k++) {
		snprintf(t->cols[k], sizeof(t->cols[k]), "%s", cols[keep[k]]);
		t->unit[k] = CV_NS;
	}
	if (!(run = calloc((size_t)maxrun, sizeof(*run))) ||
	    !(r = add_row(t, v->nr_variants, "workload", ""))) {
		free(run);
		return -1;
	}
	for (int i = 0, d0 = 0; i < v->nr_variants; d0 += v->nr_runs[i++])
		for (int k = 0; k < nk; k++) {
			for (int j = 0; j < v->nr_runs[i]; j++)
				run[j] = vals[(d0 + j) * ncols + keep[k]];
			fill_cell(&r->cells[i * nk + k], run, v->nr_runs[i]);
		}
	test_cells(t, v->nr_variants);
	free(run);
	return 0;
}

const char *cv_number_text(char *buf, size_t len, enum cv_unit u, double v, bool sign)
{
	const char *s = sign ? (v > 0 ? "+" : v < 0 ? "-" : "") : (v < 0 ? "-" : "");
	double a = fabs(v);
	char n[32];

	switch (u) {
	case CV_NS:
		/* below half a nanosecond is nothing, not "+0ns" */
		if (a < 0.5)
			return snprintf(buf, len, "0"), buf;
		fmt_ns(n, sizeof(n), (uint64_t)(a + 0.5));
		break;
	case CV_SHARE:
		/* a share in %, a difference of shares in percentage points */
		if (a * 100 < 0.005)
			return snprintf(buf, len, "0%%"), buf;
		snprintf(n, sizeof(n), a * 100 >= 9.995 ? "%.1f%%" : "%.2f%%", a * 100);
		break;
	default:
		/* a mean of counts to one decimal; what rounds to 0 is 0 */
		if (a < 0.05)
			return snprintf(buf, len, "0"), buf;
		if (a == floor(a) || a >= 1000)
			snprintf(n, sizeof(n), "%.0f", a);
		else
			snprintf(n, sizeof(n), "%.1f", a);
		break;
	}
	snprintf(buf, len, "%s%s", s, n);
	return buf;
}

double cv_cell_half_width(const struct cv_cell *c)
{
	if (!c->have || c->st.n < 2)
		return NAN;
	return t_crit_95(c->st.n - 1) * c->st.stddev / sqrt(c->st.n);
}

bool cv_cell_value(const struct cv_table *t, const struct cv_row *r, int variant, int col,
		   double *out)
{
	const struct cv_cell *c = &r->cells[variant * t->ncols + col], *b = &r->cells[col];

	if (!c->have || c->na)
		return false;
	if (variant == 0) {
		*out = c->st.mean;
		return true;
	}
	/* against a base that never entered the state (or lacked it), from 0 */
	*out = c->st.mean - (b->have ? b->st.mean : 0);
	return true;
}

const char *cv_cell_text(char *buf, size_t len, const struct compare_view *v,
			 const struct cv_table *t, const struct cv_row *r, int variant, int col)
{
	const struct cv_cell *c = &r->cells[variant * t->ncols + col];
	enum cv_unit u = t->unit[col];
	char a[32], h[32];
	double x;

	(void)v;
	if (c->have && c->na)
		return snprintf(buf, len, "n.a."), buf;
	if (!cv_cell_value(t, r, variant, col, &x))
		return snprintf(buf, len, "-"), buf;
	cv_number_text(a, sizeof(a), u, x, variant > 0);
	if (variant == 0 && c->st.n >= 2) {
		/* the 95% interval of the mean */
		snprintf(buf, len, "%s \xc2\xb1%s", a,
			 cv_number_text(h, sizeof(h), u, cv_cell_half_width(c), false));
	} else if (c->tested) {
		snprintf(buf, len, "%s \xc2\xb1%s%s", a,
			 cv_number_text(h, sizeof(h), u, c->w.half_width, false),
			 c->w.significant ? "*" : "");
	} else {
		snprintf(buf, len, "%s", a);
	}
	return buf;
}
