/* Flattens the JSON summary into named metrics (docs/metrics.md lists the
 * names) and loads summary files for `compare`. */
#include "model/flatten.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"

static int add(struct metric_set *m, double v, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static const char *name_of(const json_t *o)
{
	const char *s = json_string_value(json_object_get(o, "name"));

	return s ? s : "?";
}

static int add(struct metric_set *m, double v, const char *fmt, ...)
{
	va_list ap;

	if (m->n == m->cap) {
		int cap = m->cap ? 2 * m->cap : 256;
		struct metric_kv *kv = realloc(m->kv, sizeof(*kv) * (size_t)cap);

		if (!kv)
			return -1;
		m->kv = kv;
		m->cap = cap;
	}
	va_start(ap, fmt);
	vsnprintf(m->kv[m->n].key, sizeof(m->kv[m->n].key), fmt, ap);
	va_end(ap);
	m->kv[m->n++].value = v;
	return 0;
}

/* Every number of obj under prefix (one level; nested objects skipped). */
static int add_numbers(struct metric_set *m, const char *prefix, const json_t *obj,
		       const char *const *skip)
{
	const char *k;
	json_t *v;

	json_object_foreach((json_t *)obj, k, v) {
		bool skipped = false;

		for (int i = 0; skip && skip[i]; i++)
			skipped |= !strcmp(k, skip[i]);
		if (skipped || !json_is_number(v))
			continue;
		if (add(m, json_number_value(v), "%s.%s", prefix, k))
			return -1;
	}
	return 0;
}

static const char *const state_skip[] = { "index", NULL };

static int add_cpu_like(struct metric_set *m, const char *prefix, const json_t *c, double window)
{
	static const char *const cpu_skip[] = { "cpu", NULL };
	double entries = 0, above = 0, below = 0, idle;
	size_t i;
	json_t *st, *w;

	if (add_numbers(m, prefix, c, cpu_skip))
		return -1;
	idle = json_number_value(json_object_get(c, "idle_ns"));
	if (window > 0 && add(m, idle / window, "%s.idle_share", prefix))
		return -1;
	json_array_foreach(json_object_get(c, "states"), i, st) {
		char p[96];

		snprintf(p, sizeof(p), "%s.state[%s]", prefix,
			 name_of(st));
		if (add_numbers(m, p, st, state_skip))
			return -1;
		/* why its misses missed: state[NAME].governor.above_timer_near, ... */
		if (json_is_object(json_object_get(st, "governor"))) {
			const json_t *gov = json_object_get(st, "governor");
			char g[112], sub[144];

			snprintf(g, sizeof(g), "%s.governor", p);
			if (add_numbers(m, g, gov, NULL))
				return -1;
			/* .governor.woken_early.CAUSE, .governor.timer_ended.as_told, ... */
			snprintf(sub, sizeof(sub), "%s.woken_early", g);
			if (add_numbers(m, sub, json_object_get(gov, "woken_before_timer_by_cause"), NULL))
				return -1;
			snprintf(sub, sizeof(sub), "%s.timer_ended", g);
			if (add_numbers(m, sub, json_object_get(gov, "timer_ended"), NULL))
				return -1;
		}
		entries += json_number_value(json_object_get(st, "entries"));
		above += json_number_value(json_object_get(st, "above"));
		below += json_number_value(json_object_get(st, "below"));
	}
	if (add(m, above, "%s.above", prefix) || add(m, below, "%s.below", prefix) ||
	    add(m, entries ? above / entries : 0, "%s.above_ratio", prefix) ||
	    add(m, entries ? below / entries : 0, "%s.below_ratio", prefix))
		return -1;
	w = json_object_get(c, "wakeups");
	if (json_is_object(w)) {
		const char *k;
		json_t *v;

		json_object_foreach(json_object_get(w, "causes"), k, v) {
			if (add(m, json_number_value(json_object_get(v, "count")), "%s.wakeups.%s",
				prefix, k) ||
			    add(m, json_number_value(json_object_get(v, "early")),
				"%s.wakeups.%s.early", prefix, k))
				return -1;
		}
		json_array_foreach(json_object_get(w, "timer_lateness"), i, st) {
			char p[96];

			snprintf(p, sizeof(p), "%s.lateness[%s]", prefix,
				 name_of(st));
			if (add_numbers(m, p, st, (const char *const[]){ "state", NULL }))
				return -1;
		}
	}
	return 0;
}

int flatten_summary(const json_t *doc, struct metric_set *out)
{
	double dur = json_number_value(json_object_get(doc, "duration_ns"));
	json_t *cpus = json_object_get(doc, "cpus"), *c, *g;
	size_t i, j;

	if (add(out, dur, "duration_ns"))
		return -1;
	if (add_cpu_like(out, "total", json_object_get(doc, "totals"),
			 dur * (double)json_array_size(cpus)))
		return -1;
	json_array_foreach(cpus, i, c) {
		char p[32];

		snprintf(p, sizeof(p), "cpu[%lld]", (long long)json_integer_value(json_object_get(c, "cpu")));
		if (add_cpu_like(out, p, c, dur))
			return -1;
	}
	/* halt-polling: cpu[N].haltpoll.woken, total.haltpoll.woken, ... */
	g = json_object_get(doc, "haltpoll");
	json_array_foreach(json_object_get(g, "cpus"), i, c) {
		char p[48];

		snprintf(p, sizeof(p), "cpu[%lld].haltpoll",
			 (long long)json_integer_value(json_object_get(c, "cpu")));
		if (add_numbers(out, p, c, (const char *const[]){ "cpu", NULL }))
			return -1;
	}
	if (json_is_object(json_object_get(g, "total")) &&
	    add_numbers(out, "total.haltpoll", json_object_get(g, "total"), NULL))
		return -1;
	/* totals' states are the ones users name: state[NAME] = total.state[NAME] */
	json_array_foreach(json_object_get(json_object_get(doc, "totals"), "states"), i, c) {
		char p[96];

		snprintf(p, sizeof(p), "state[%s]", name_of(c));
		if (add_numbers(out, p, c, state_skip))
			return -1;
	}
	json_array_foreach(json_object_get(json_object_get(doc, "groups"), "groups"), i, g) {
		char p[96];
		json_t *st;

		snprintf(p, sizeof(p), "group[%s]", name_of(g));
		if (add_numbers(out, p, g, (const char *const[]){ "id", NULL }) ||
		    add(out, json_number_value(json_object_get(g, "share")), "%s.idle_share", p))
			return -1;
		json_array_foreach(json_object_get(g, "states"), j, st) {
			char q[96 + 48];

			snprintf(q, sizeof(q), "%s.state[%s]", p,
				 name_of(st));
			if (add_numbers(out, q, st, state_skip))
				return -1;
		}
	}
	return 0;
}

const struct metric_kv *metric_find(const struct metric_set *m, const char *key)
{
	for (int i = 0; i < m->n; i++)
		if (!strcmp(m->kv[i].key, key))
			return &m->kv[i];
	return NULL;
}

void metric_set_free(struct metric_set *m)
{
	free(m->kv);
	memset(m, 0, sizeof(*m));
}

/* "cpu[3].state[C6].entries" -> "cpu[3].state[C6]": what a key belongs to. */
static void entity_of(const char *key, char *buf, size_t len)
{
	const char *dot = strrchr(key, '.');

	snprintf(buf, len, "%.*s", dot ? (int)(dot - key) : (int)strlen(key), key);
}

json_t *metric_unmatched(const struct metric_set *a, const struct metric_set *b)
{
	json_t *arr = json_array();
	char last[96] = "";

	for (int i = 0; arr && i < a->n; i++) {
		char e[96];

		if (metric_find(b, a->kv[i].key))
			continue;
		entity_of(a->kv[i].key, e, sizeof(e));
		if (strcmp(e, last)) {
			json_array_append_new(arr, json_string(e));
			snprintf(last, sizeof(last), "%s", e);
		}
	}
	return arr;
}

static json_t *check_schema(json_t *doc, const char *path, char *err, size_t errlen)
{
	const char *schema = json_string_value(json_object_get(doc, "schema"));

	if (!schema) {
		snprintf(err, errlen, "%s: not an idlescope summary (no \"schema\")", path);
	} else if (strcmp(schema, IS_SCHEMA)) {
		snprintf(err, errlen, "%s: schema '%s' is not %s (from another idlescope version?)",
			 path, schema, IS_SCHEMA);
	} else if (!json_is_array(json_object_get(doc, "cpus")) ||
		   !json_is_object(json_object_get(doc, "totals"))) {
		snprintf(err, errlen, "%s: %s document without cpus/totals", path, IS_SCHEMA);
	} else {
		return doc;
	}
	json_decref(doc);
	return NULL;
}

json_t *load_summary_buffer(const char *buf, size_t len, const char *name, char *err,
			    size_t errlen)
{
	json_error_t je;
	json_t *doc = json_loadb(buf, len, 0, &je), *last = NULL;
	const char *p = buf, *end = buf + len;

	if (doc)
		return check_schema(doc, name, err, errlen);
	/* JSON Lines (record -i --format json): the last summary line */
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		json_t *d = json_loadb(p, n, 0, NULL);

		if (d && json_object_get(d, "schema")) {
			json_decref(last);
			last = d;
		} else {
			json_decref(d);
		}
		p += n + 1;
	}
	if (!last) {
		snprintf(err, errlen, "%s: invalid JSON at line %d: %s", name, je.line, je.text);
		return NULL;
	}
	return check_schema(last, name, err, errlen);
}

int flatten_hist(const json_t *doc, struct metric_set *out)
{
	static const char *const parts[] = { "total", "wakeup", "runq" };
	json_t *h;
	size_t i;

	json_array_foreach(json_object_get(doc, "histograms"), i, h) {
		char p[128] = "";
		size_t n = 0;
		json_t *cpu = json_object_get(h, "cpu"), *st = json_object_get(h, "state");
		const char *part = json_string_value(json_object_get(h, "part"));

		if (json_is_integer(cpu))
			n += (size_t)snprintf(p + n, sizeof(p) - n, "cpu[%lld].",
					      (long long)json_integer_value(cpu));
		if (json_is_object(st))
			n += (size_t)snprintf(p + n, sizeof(p) - n, "state[%s].", name_of(st));
		if (part) {
			/* "waking -> running", "waking -> wakeup (...)", "wakeup -> running (...)" */
			const char *short_name = !strncmp(part, "wakeup", 6)        ? parts[2]
						 : strstr(part, "-> wakeup") != NULL ? parts[1]
										     : parts[0];

			n += (size_t)snprintf(p + n, sizeof(p) - n, "part[%s].", short_name);
		}
		if (n)
			p[n - 1] = '\0';
		if (add_numbers(out, n ? p : "hist", h, (const char *const[]){ NULL }))
			return -1;
		if (!n) {
			/* the plain names too: p99_ns, count, ... */
			const char *k;
			json_t *v;

			json_object_foreach(h, k, v)
				if (json_is_number(v) && add(out, json_number_value(v), "%s", k))
					return -1;
		}
	}
	return 0;
}
