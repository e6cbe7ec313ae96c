/* The --profile JSON (idlescope-profile/1) into per-CPU idle-state tables
 * and groups, with jansson; every field checked, one error line each. */
#include "replay/trace_profile.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

/* A non-negative time in microseconds (sysfs units) to ns. */
static int us_field(json_t *o, const char *key, bool required, uint64_t *ns, const char *where,
		    char *err, size_t errlen)
{
	json_t *v = json_object_get(o, key);
	double d;

	if (!v) {
		if (required)
			snprintf(err, errlen, "%s: missing \"%s\"", where, key);
		*ns = 0;
		return required ? -1 : 0;
	}
	d = json_number_value(v);
	if (!json_is_number(v) || d < 0 || !isfinite(d) || d > 1e12) {
		snprintf(err, errlen, "%s: \"%s\" must be a number of microseconds >= 0", where, key);
		return -1;
	}
	*ns = (uint64_t)llround(d * 1000.0);
	return 0;
}

static int parse_states(json_t *arr, struct cpuidle_cpu_info *info, const char *where, char *err,
			size_t errlen)
{
	size_t i;
	json_t *st;

	if (!json_is_array(arr) || !json_array_size(arr)) {
		snprintf(err, errlen, "%s: \"states\" must be a non-empty array", where);
		return -1;
	}
	if (json_array_size(arr) > IS_MAX_STATES) {
		snprintf(err, errlen, "%s: at most %d states", where, IS_MAX_STATES);
		return -1;
	}
	memset(info, 0, sizeof(*info));
	info->qos_limit_ns = UINT64_MAX;
	info->dev_qos_ns = UINT64_MAX;
	json_array_foreach(arr, i, st) {
		struct cpuidle_state_info *s = &info->states[i];
		char w[96];
		json_t *name, *b;

		snprintf(w, sizeof(w), "%s: state %zu", where, i);
		name = json_object_get(st, "name");
		if (!json_is_object(st) || !json_is_string(name) || !json_string_length(name) ||
		    json_string_length(name) >= IS_NAME_LEN) {
			snprintf(err, errlen, "%s: needs a \"name\" (1 to %d characters)", w,
				 IS_NAME_LEN - 1);
			return -1;
		}
		snprintf(s->name, sizeof(s->name), "%s", json_string_value(name));
		if (us_field(st, "exit_latency_us", true, &s->exit_latency_ns, w, err, errlen) ||
		    us_field(st, "target_residency_us", true, &s->target_residency_ns, w, err, errlen))
			return -1;
		if ((b = json_object_get(st, "disabled")) && !json_is_boolean(b)) {
			snprintf(err, errlen, "%s: \"disabled\" must be true or false", w);
			return -1;
		}
		s->disabled = json_is_true(b);
		if ((b = json_object_get(st, "poll")) && !json_is_boolean(b)) {
			snprintf(err, errlen, "%s: \"poll\" must be true or false", w);
			return -1;
		}
		/* the kernel's polling state is always called POLL */
		s->poll = b ? json_is_true(b) : !strcmp(s->name, "POLL");
	}
	info->nr_states = (int)json_array_size(arr);
	return 0;
}

static int cpus_of(json_t *v, int nr_cpus, struct cpulist *l, const char *where, char *err,
		   size_t errlen)
{
	char e[128];

	if (!json_is_string(v) || cpulist_parse(json_string_value(v), l, e, sizeof(e)) ||
	    !cpulist_count(l)) {
		snprintf(err, errlen, "%s: a CPU list such as \"0-3\" expected", where);
		return -1;
	}
	for (int c = nr_cpus; c < IS_CPULIST_MAX; c++)
		if (cpulist_has(l, c)) {
			snprintf(err, errlen, "%s: CPU %d is beyond \"cpus\": %d", where, c, nr_cpus);
			return -1;
		}
	return 0;
}

static int str_field(json_t *root, const char *key, char *out, size_t len, char *err, size_t errlen)
{
	json_t *v = json_object_get(root, key);

	if (!v)
		return 0;
	if (!json_is_string(v) || json_string_length(v) >= len) {
		snprintf(err, errlen, "\"%s\" must be a string of at most %zu characters", key, len - 1);
		return -1;
	}
	snprintf(out, len, "%s", json_string_value(v));
	return 0;
}

/* One level's groups (a JSON array of CPU lists) into l; a CPU in at most
 * one group. what names the array in errors. */
static int parse_groups(json_t *g, int nr_cpus, struct group_level *l, const char *what,
			char *err, size_t errlen)
{
	struct cpulist seen = { 0 };
	json_t *e;
	size_t i;

	if (!json_is_array(g) || !json_array_size(g)) {
		snprintf(err, errlen, "%s must be a non-empty array of CPU lists", what);
		return -1;
	}
	l->cpus = calloc(json_array_size(g), sizeof(*l->cpus));
	if (!l->cpus) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	json_array_foreach(g, i, e) {
		char w[96];

		snprintf(w, sizeof(w), "%s[%zu]", what, i);
		if (cpus_of(e, nr_cpus, &l->cpus[i], w, err, errlen))
			return -1;
		for (int c = 0; c < nr_cpus; c++) {
			if (!cpulist_has(&l->cpus[i], c))
				continue;
			if (cpulist_has(&seen, c)) {
				snprintf(err, errlen, "%s: CPU %d is in two groups", w, c);
				return -1;
			}
			cpulist_set(&seen, c);
		}
		l->nr++;
	}
	return 0;
}

/* "levels": [{"name": "core", "groups": [...]}, ...], or the one level of
 * "groups" and "group_level". */
static int parse_levels(json_t *root, struct trace_profile *p, char *err, size_t errlen)
{
	json_t *lv = json_object_get(root, "levels"), *g = json_object_get(root, "groups"), *e;
	char level[16] = "";
	size_t i;

	if (lv && g) {
		snprintf(err, errlen, "give \"levels\" or \"groups\", not both");
		return -1;
	}
	if (g) {
		if (str_field(root, "group_level", level, sizeof(level), err, errlen))
			return -1;
		snprintf(p->levels[0].name, sizeof(p->levels[0].name), "%s",
			 level[0] ? level : "cluster");
		p->nr_levels = 1;
		return parse_groups(g, p->nr_cpus, &p->levels[0], "groups", err, errlen);
	}
	if (!lv)
		return 0;
	if (!json_is_array(lv) || !json_array_size(lv) || json_array_size(lv) > IS_MAX_LEVELS) {
		snprintf(err, errlen, "\"levels\" must be an array of 1 to %d levels", IS_MAX_LEVELS);
		return -1;
	}
	json_array_foreach(lv, i, e) {
		struct group_level *l = &p->levels[i];
		char w[64];

		snprintf(w, sizeof(w), "levels[%zu]", i);
		if (!json_is_object(e) || str_field(e, "name", l->name, sizeof(l->name), err, errlen) ||
		    !l->name[0]) {
			snprintf(err, errlen, "%s needs a \"name\" of 1 to %zu characters", w,
				 sizeof(l->name) - 1);
			return -1;
		}
		for (size_t j = 0; j < i; j++)
			if (!strcmp(p->levels[j].name, l->name)) {
				snprintf(err, errlen, "%s: level '%s' given twice", w, l->name);
				return -1;
			}
		p->nr_levels++;
		snprintf(w, sizeof(w), "levels[%zu].groups", i);
		if (parse_groups(json_object_get(e, "groups"), p->nr_cpus, l, w, err, errlen))
			return -1;
	}
	return 0;
}

static int parse_root(json_t *root, struct trace_profile *p, char *err, size_t errlen)
{
	json_t *v, *t;
	struct cpuidle_cpu_info common;
	size_t i;

	if (!json_is_object(root)) {
		snprintf(err, errlen, "a JSON object expected");
		return -1;
	}
	v = json_object_get(root, "schema");
	if (v && (!json_is_string(v) || strcmp(json_string_value(v), IS_PROFILE_SCHEMA))) {
		snprintf(err, errlen, "\"schema\" must be \"%s\"", IS_PROFILE_SCHEMA);
		return -1;
	}
	v = json_object_get(root, "cpus");
	if (!json_is_integer(v) || json_integer_value(v) < 1 ||
	    json_integer_value(v) > IS_MAX_CPUS) {
		snprintf(err, errlen, "\"cpus\" must be the CPU count, 1 to %d", IS_MAX_CPUS);
		return -1;
	}
	p->nr_cpus = (int)json_integer_value(v);
	if (str_field(root, "driver", p->driver, sizeof(p->driver), err, errlen) ||
	    str_field(root, "governor", p->governor, sizeof(p->governor), err, errlen))
		return -1;
	p->info = calloc((size_t)p->nr_cpus, sizeof(*p->info));
	if (!p->info) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	v = json_object_get(root, "states");
	t = json_object_get(root, "tables");
	if (!v && !t) {
		snprintf(err, errlen, "needs \"states\" (every CPU) or \"tables\" (per CPU list)");
		return -1;
	}
	if (v) {
		if (parse_states(v, &common, "states", err, errlen))
			return -1;
		for (int c = 0; c < p->nr_cpus; c++)
			p->info[c] = common;
	}
	if (t) {
		json_t *tab;

		if (!json_is_array(t)) {
			snprintf(err, errlen, "\"tables\" must be an array");
			return -1;
		}
		json_array_foreach(t, i, tab) {
			struct cpulist l;
			char w[64];

			snprintf(w, sizeof(w), "tables[%zu]", i);
			if (cpus_of(json_object_get(tab, "cpus"), p->nr_cpus, &l, w, err, errlen) ||
			    parse_states(json_object_get(tab, "states"), &common, w, err, errlen))
				return -1;
			for (int c = 0; c < p->nr_cpus; c++)
				if (cpulist_has(&l, c))
					p->info[c] = common;
		}
	}
	for (int c = 0; c < p->nr_cpus; c++)
		if (!p->info[c].nr_states) {
			snprintf(err, errlen, "CPU %d has no idle-state table", c);
			return -1;
		}
	return parse_levels(root, p, err, errlen);
}

/* jansson's reason, on one line: it quotes the offending token, which may
 * hold a newline or other control bytes. */
static void json_reason(const json_error_t *je, char *err, size_t errlen)
{
	if (je->line < 1)
		snprintf(err, errlen, "%s", je->text);
	else
		snprintf(err, errlen, "line %d: %s", je->line, je->text);
	for (char *c = err; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
}

/* root as loaded by jansson (NULL: je says why) into p. */
static int profile_from_json(json_t *root, const json_error_t *je, struct trace_profile *p,
			     char *err, size_t errlen)
{
	int r;

	memset(p, 0, sizeof(*p));
	if (!root) {
		json_reason(je, err, errlen);
		return -1;
	}
	r = parse_root(root, p, err, errlen);
	json_decref(root);
	if (r)
		trace_profile_free(p);
	return r;
}

int trace_profile_parse(const char *text, size_t len, struct trace_profile *p, char *err,
			size_t errlen)
{
	json_error_t je;

	return profile_from_json(json_loadb(text, len, JSON_REJECT_DUPLICATES, &je), &je, p, err,
				 errlen);
}

int trace_profile_load(const char *path, struct trace_profile *p, char *err, size_t errlen)
{
	json_error_t je;

	return profile_from_json(json_load_file(path, JSON_REJECT_DUPLICATES, &je), &je, p, err,
				 errlen);
}

void trace_profile_free(struct trace_profile *p)
{
	free(p->info);
	for (int i = 0; i < IS_MAX_LEVELS; i++)
		free(p->levels[i].cpus);
	memset(p, 0, sizeof(*p));
}
