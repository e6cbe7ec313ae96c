/* Reads the advisor's input from an idlescope/1 document, checking every
 * field it uses: per-state histograms and counters, the state table, timer
 * lateness; CPUs with the same state table are summed into one table. */
#include "advise/advise_input.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ADV_MAX_BUCKETS 4096

struct ctx {
	char *err;
	size_t errlen;
};

static int fail(struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct ctx *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->err, c->errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* An integer >= 0 under key; null allowed when out_null is given. */
static int get_u64(struct ctx *c, const json_t *o, const char *where, const char *key,
		   uint64_t *v, bool *out_null)
{
	const json_t *j = json_object_get(o, key);

	if (out_null)
		*out_null = json_is_null(j);
	if (out_null && *out_null) {
		*v = 0;
		return 0;
	}
	if (!json_is_integer(j) || json_integer_value(j) < 0)
		return fail(c, "%s.%s: %s", where, key,
			    j ? "not an integer >= 0" : "missing");
	*v = (uint64_t)json_integer_value(j);
	return 0;
}

static int cmp_bin(const void *a, const void *b)
{
	const struct hist_bin *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return (x->hi > y->hi) - (x->hi < y->hi);
}

/* Appends the buckets of a "hist" array to *bins. */
static int add_hist(struct ctx *c, const json_t *arr, const char *where, struct hist_bin **bins,
		    int *n)
{
	size_t i;
	const json_t *h;
	struct hist_bin *nb;

	if (!json_is_array(arr))
		return fail(c, "%s: missing or not an array (the residency histogram)", where);
	nb = realloc(*bins, (size_t)(*n + (int)json_array_size(arr) + 1) * sizeof(**bins));
	if (!nb)
		return fail(c, "out of memory");
	*bins = nb;
	json_array_foreach(arr, i, h) {
		char w[160];
		uint64_t lo, hi, count;

		snprintf(w, sizeof(w), "%s[%zu]", where, i);
		if (get_u64(c, h, w, "lo_ns", &lo, NULL) || get_u64(c, h, w, "hi_ns", &hi, NULL) ||
		    get_u64(c, h, w, "count", &count, NULL))
			return -1;
		if (hi <= lo)
			return fail(c, "%s: hi_ns %llu is not above lo_ns %llu", w,
				    (unsigned long long)hi, (unsigned long long)lo);
		nb[(*n)++] = (struct hist_bin){ lo, hi, (double)count };
	}
	return 0;
}

/* Sorts, sums equal buckets (the same bucket from several CPUs) and
 * rejects overlapping ones. */
static int merge_bins(struct ctx *c, const char *where, struct hist_bin *b, int *n)
{
	int m = 0;

	if (!*n)
		return 0;
	qsort(b, (size_t)*n, sizeof(*b), cmp_bin);
	for (int i = 1; i < *n; i++) {
		if (b[i].lo == b[m].lo && b[i].hi == b[m].hi) {
			b[m].count += b[i].count;
			continue;
		}
		if (b[i].lo < b[m].hi)
			return fail(c, "%s: buckets [%llu, %llu) and [%llu, %llu) overlap", where,
				    (unsigned long long)b[m].lo, (unsigned long long)b[m].hi,
				    (unsigned long long)b[i].lo, (unsigned long long)b[i].hi);
		b[++m] = b[i];
	}
	*n = m + 1;
	/* idlescope writes at most IS_HIST_BUCKETS; the proposal search is
	 * quadratic in the bucket count, so bound what a file may hold */
	if (*n > ADV_MAX_BUCKETS)
		return fail(c, "%s: %d buckets, more than %d", where, *n, ADV_MAX_BUCKETS);
	return 0;
}

uint64_t adv_lat_quantile(const struct adv_state_in *s, double q)
{
	return bins_percentile(s->lat_bins, s->nr_lat_bins, s->lat_min_ns, s->lat_max_ns, q * 100);
}

uint64_t adv_lat_median(const struct adv_state_in *s)
{
	return adv_lat_quantile(s, 0.5);
}

/* The state's row of the chosen x ideal matrix, added in; null (no
 * table) adds nothing. */
static int read_ideal(struct ctx *c, const json_t *a, const char *where, struct adv_state_in *s)
{
	const json_t *v;
	size_t k;

	if (json_is_null(a) || !a)
		return 0;
	if (!json_is_array(a))
		return fail(c, "%s.ideal: not an array", where);
	json_array_foreach(a, k, v) {
		if (!json_is_integer(v) || json_integer_value(v) < 0)
			return fail(c, "%s.ideal[%zu]: not a count", where, k);
		if (k < ADV_MAX_STATES)
			s->ideal[k] += (uint64_t)json_integer_value(v);
	}
	return 0;
}

/* One state of one CPU into s (a fresh slot or the table's own). */
static int read_state(struct ctx *c, const json_t *js, const char *where, struct adv_state_in *s,
		      bool fresh)
{
	const char *name = json_string_value(json_object_get(js, "name"));
	uint64_t v;
	bool null_a, null_b;
	char w[160];

	if (fresh) {
		uint64_t idx;

		if (!name)
			return fail(c, "%s.name: missing", where);
		if (get_u64(c, js, where, "index", &idx, NULL) ||
		    get_u64(c, js, where, "exit_latency_ns", &s->exit_ns, NULL) ||
		    get_u64(c, js, where, "target_residency_ns", &s->target_ns, NULL))
			return -1;
		s->index = (int)idx;
		snprintf(s->name, sizeof(s->name), "%s", name);
		s->disabled = json_is_true(json_object_get(js, "disabled"));
		s->poll = json_is_true(json_object_get(js, "poll"));
	}
	if (get_u64(c, js, where, "entries", &v, NULL))
		return -1;
	s->entries += v;
	if (get_u64(c, js, where, "time_ns", &v, NULL))
		return -1;
	s->time_ns += v;
	if (get_u64(c, js, where, "above", &v, &null_a))
		return -1;
	s->above += v;
	if (get_u64(c, js, where, "below", &v, &null_b))
		return -1;
	s->below += v;
	if (get_u64(c, js, where, "below_qos", &v, &null_b))
		return -1;
	s->below_qos += v;
	if (read_ideal(c, json_object_get(js, "ideal"), where, s))
		return -1;
	snprintf(w, sizeof(w), "%s.hist", where);
	return add_hist(c, json_object_get(js, "hist"), w, &s->bins, &s->nr_bins);
}

static bool same_table(const struct adv_table_in *t, const json_t *states)
{
	size_t i;
	const json_t *js;

	if ((int)json_array_size(states) != t->nr_states)
		return false;
	json_array_foreach(states, i, js) {
		const struct adv_state_in *s = &t->st[i];
		const char *name = json_string_value(json_object_get(js, "name"));

		if (!name || strcmp(name, s->name) ||
		    (uint64_t)json_integer_value(json_object_get(js, "exit_latency_ns")) != s->exit_ns ||
		    (uint64_t)json_integer_value(json_object_get(js, "target_residency_ns")) !=
			    s->target_ns ||
		    json_is_true(json_object_get(js, "disabled")) != s->disabled)
			return false;
	}
	return true;
}

/* The CPU's timer lateness per state (wakeups.timer_lateness[]). */
/* The min and max of one CPU's lateness samples, into the state's (over
 * CPUs); a file without them leaves the buckets' bounds (lat_bounds). */
static void lat_range(const json_t *l, struct adv_state_in *s)
{
	const json_t *mn = json_object_get(l, "min_ns"), *mx = json_object_get(l, "max_ns");

	if (!json_is_integer(mn) || !json_is_integer(mx) || json_integer_value(mn) < 0 ||
	    json_integer_value(mx) < json_integer_value(mn)) {
		s->lat_range_unknown = true;
		return;
	}
	if (!s->lat_count || (uint64_t)json_integer_value(mn) < s->lat_min_ns)
		s->lat_min_ns = (uint64_t)json_integer_value(mn);
	if ((uint64_t)json_integer_value(mx) > s->lat_max_ns)
		s->lat_max_ns = (uint64_t)json_integer_value(mx);
}

static int read_lateness(struct ctx *c, const json_t *cpu, const char *where,
			 struct adv_table_in *t, bool *have)
{
	const json_t *wk = json_object_get(cpu, "wakeups"), *l;
	size_t i;

	if (!json_is_object(wk))
		return 0;
	*have = true;
	json_array_foreach(json_object_get(wk, "timer_lateness"), i, l) {
		char w[160];
		uint64_t idx, count;

		snprintf(w, sizeof(w), "%s.wakeups.timer_lateness[%zu]", where, i);
		if (get_u64(c, l, w, "state", &idx, NULL) || get_u64(c, l, w, "count", &count, NULL))
			return -1;
		for (int k = 0; k < t->nr_states; k++) {
			if ((uint64_t)t->st[k].index != idx)
				continue;
			if (count)
				lat_range(l, &t->st[k]);
			t->st[k].lat_count += count;
			strncat(w, ".hist", sizeof(w) - strlen(w) - 1);
			if (add_hist(c, json_object_get(l, "hist"), w, &t->st[k].lat_bins,
				     &t->st[k].nr_lat_bins))
				return -1;
		}
	}
	return 0;
}

static int package_of(const json_t *doc, int cpu)
{
	const json_t *tc;
	size_t i;

	json_array_foreach(json_object_get(json_object_get(doc, "topology"), "cpus"), i, tc)
		if (json_integer_value(json_object_get(tc, "cpu")) == cpu)
			return (int)json_integer_value(json_object_get(tc, "package"));
	return -1;
}

static void copy_str(char *dst, size_t len, const json_t *j)
{
	snprintf(dst, len, "%s", json_string_value(j) ? json_string_value(j) : "");
}

int adv_input_load(const json_t *doc, const struct cpulist *sel, struct adv_input *in, char *err,
		   size_t errlen)
{
	struct ctx c = { err, errlen };
	const json_t *cpu, *ci = json_object_get(doc, "cpuidle");
	size_t i;

	memset(in, 0, sizeof(*in));
	copy_str(in->kernel, sizeof(in->kernel), json_object_get(doc, "kernel"));
	copy_str(in->driver, sizeof(in->driver), json_object_get(ci, "driver"));
	copy_str(in->governor, sizeof(in->governor), json_object_get(ci, "governor"));
	in->duration_ns = (uint64_t)json_integer_value(json_object_get(doc, "duration_ns"));
	json_array_foreach(json_object_get(doc, "cpus"), i, cpu) {
		const json_t *states = json_object_get(cpu, "states"), *js;
		const json_t *jc = json_object_get(cpu, "cpu");
		struct adv_table_in *t = NULL;
		char where[64];
		size_t k;
		bool fresh = false;
		int n;

		snprintf(where, sizeof(where), "cpus[%zu]", i);
		if (!json_is_integer(jc) || json_integer_value(jc) < 0 ||
		    json_integer_value(jc) >= IS_CPULIST_MAX)
			goto bad_cpu;
		n = (int)json_integer_value(jc);
		if (sel && !cpulist_has(sel, n))
			continue;
		if (!json_is_array(states) || json_array_size(states) > ADV_MAX_STATES)
			return fail(&c, "%s.states: missing or more than %d states", where,
				    ADV_MAX_STATES);
		if (!json_array_size(states))
			continue; /* offline */
		in->nr_cpus++;
		/* without a driver the thresholds are null: nothing to advise */
		if (json_is_null(json_object_get(json_array_get(states, 0), "target_residency_ns"))) {
			in->no_driver_cpus++;
			continue;
		}
		for (int j = 0; j < in->nr_tables && !t; j++)
			if (same_table(&in->tables[j], states))
				t = &in->tables[j];
		if (!t) {
			if (in->nr_tables == ADV_MAX_TABLES)
				return fail(&c, "more than %d different state tables", ADV_MAX_TABLES);
			t = &in->tables[in->nr_tables++];
			t->nr_states = (int)json_array_size(states);
			t->first_cpu = n;
			t->package = package_of(doc, n);
			fresh = true;
		}
		cpulist_set(&t->cpus, n);
		json_array_foreach(states, k, js) {
			char w[96];

			snprintf(w, sizeof(w), "%s.states[%zu]", where, k);
			if (read_state(&c, js, w, &t->st[k], fresh))
				return -1;
		}
		if (read_lateness(&c, cpu, where, t, &in->have_wakeups))
			return -1;
		continue;
bad_cpu:
		return fail(&c, "%s.cpu: missing or not a CPU number", where);
	}
	for (int j = 0; j < in->nr_tables; j++)
		for (int k = 0; k < in->tables[j].nr_states; k++) {
			struct adv_state_in *s = &in->tables[j].st[k];
			char w[96];

			snprintf(w, sizeof(w), "state '%s' hist", s->name);
			if (merge_bins(&c, w, s->bins, &s->nr_bins))
				return -1;
			snprintf(w, sizeof(w), "state '%s' timer lateness hist", s->name);
			if (merge_bins(&c, w, s->lat_bins, &s->nr_lat_bins))
				return -1;
			if (s->lat_range_unknown && s->nr_lat_bins) {
				s->lat_min_ns = s->lat_bins[0].lo;
				s->lat_max_ns = s->lat_bins[s->nr_lat_bins - 1].hi - 1;
			}
		}
	return 0;
}

void adv_input_free(struct adv_input *in)
{
	for (int j = 0; j < in->nr_tables; j++)
		for (int k = 0; k < in->tables[j].nr_states; k++) {
			free(in->tables[j].st[k].bins);
			free(in->tables[j].st[k].lat_bins);
		}
	memset(in, 0, sizeof(*in));
}
