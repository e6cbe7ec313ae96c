/* Parsing and evaluation of --fail-if expressions. */
#include "cmd/assert.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/diag.h"

static const struct {
	const char *s;
	enum assert_op op;
} ops[] = { { ">=", OP_GE }, { "<=", OP_LE }, { "==", OP_EQ }, { "!=", OP_NE },
	    { ">", OP_GT },  { "<", OP_LT } };

/* "cluster[0]" -> "group[cluster0]": topology levels as group names. */
static void alias(const char *in, char *out, size_t len)
{
	static const char *const levels[] = { "cluster", "package", "die", "core", "custom",
					      "freq-domain" };

	for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++) {
		size_t n = strlen(levels[i]);

		if (!strncmp(in, levels[i], n) && in[n] == '[' && isdigit((unsigned char)in[n + 1])) {
			char *end;
			long idx = strtol(in + n + 1, &end, 10);

			if (*end == ']') {
				snprintf(out, len, "group[%s%ld]%s", levels[i], idx, end + 1);
				return;
			}
		}
	}
	snprintf(out, len, "%s", in);
}

int assertion_parse(const char *text, struct assertion *a, char *err, size_t errlen)
{
	char buf[160], *p, *q, *end, metric[96];
	const char *opstr = NULL;
	double mult = 1;

	memset(a, 0, sizeof(*a));
	snprintf(a->text, sizeof(a->text), "%s", text);
	snprintf(buf, sizeof(buf), "%s", text);
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]) && !opstr; i++)
		if ((p = strstr(buf, ops[i].s))) {
			opstr = ops[i].s;
			a->op = ops[i].op;
		}
	if (!opstr) {
		snprintf(err, errlen, "--fail-if '%s': no comparison (>, >=, <, <=, ==, !=)", text);
		return -1;
	}
	*p = '\0';
	q = p + strlen(opstr);
	/* the metric: trim, then delta(...) */
	while (*buf && isspace((unsigned char)buf[strlen(buf) - 1]))
		buf[strlen(buf) - 1] = '\0';
	p = buf;
	while (isspace((unsigned char)*p))
		p++;
	if (!strncmp(p, "delta(", 6) && p[strlen(p) - 1] == ')') {
		a->delta = true;
		p[strlen(p) - 1] = '\0';
		p += 6;
	}
	if (!*p || strpbrk(p, "()")) { /* state names may hold spaces */
		snprintf(err, errlen, "--fail-if '%s': bad metric name '%s'", text, p);
		return -1;
	}
	alias(p, metric, sizeof(metric));
	snprintf(a->metric, sizeof(a->metric), "%s", metric);
	/* the value: a number with an optional %, or a duration unit */
	while (isspace((unsigned char)*q))
		q++;
	errno = 0;
	a->value = strtod(q, &end);
	if (end == q || errno || !isfinite(a->value)) {
		snprintf(err, errlen, "--fail-if '%s': expected a number after '%s'", text, opstr);
		return -1;
	}
	if (*end == '%') {
		a->percent = true;
		end++;
	} else if (!strncmp(end, "ns", 2)) {
		end += 2;
	} else if (!strncmp(end, "us", 2)) {
		mult = 1e3;
		end += 2;
	} else if (!strncmp(end, "ms", 2)) {
		mult = 1e6;
		end += 2;
	} else if (*end == 's') {
		mult = 1e9;
		end++;
	}
	while (isspace((unsigned char)*end))
		end++;
	if (*end) {
		snprintf(err, errlen, "--fail-if '%s': unexpected '%s' (units: ns us ms s %%)", text, end);
		return -1;
	}
	a->value *= mult;
	if (a->percent && !a->delta)
		a->value /= 100; /* shares and ratios are fractions */
	return 0;
}

static int compare(enum assert_op op, double x, double y)
{
	switch (op) {
	case OP_GT: return x > y;
	case OP_GE: return x >= y;
	case OP_LT: return x < y;
	case OP_LE: return x <= y;
	case OP_EQ: return x == y;
	case OP_NE: return x != y;
	}
	return 0;
}

/* --fail-if names the failure condition: the assertion holds (the run is
 * fine) when the expression is false. Returns 1 fine, 0 failed. */
int assertion_eval(const struct assertion *a, const struct metric_set *m, double *got)
{
	const struct metric_kv *kv = metric_find(m, a->metric);

	if (!kv)
		return -1;
	*got = kv->value;
	return !compare(a->op, kv->value, a->value);
}

int assertion_eval_delta(const struct assertion *a, const struct metric_set *base,
			 const struct metric_set *other, double *got)
{
	const struct metric_kv *b = metric_find(base, a->metric), *o = metric_find(other, a->metric);

	if (!b || !o)
		return -1;
	*got = o->value - b->value;
	if (a->percent)
		*got = b->value ? 100.0 * *got / fabs(b->value) : (*got ? INFINITY : 0);
	return !compare(a->op, *got, a->value);
}

int assertions_check(const struct assertion *a, int n, const struct metric_set *m,
		     const struct metric_set *base, const char *label)
{
	int ret = EXIT_OK;

	for (int i = 0; i < n; i++) {
		double got = 0;
		int r;

		if (a[i].delta && !base) {
			diag_error("--fail-if '%s': delta() needs compare", a[i].text);
			return EXIT_USAGE;
		}
		r = a[i].delta ? assertion_eval_delta(&a[i], base, m, &got)
			       : assertion_eval(&a[i], m, &got);
		if (r < 0) {
			diag_error("--fail-if '%s': unknown metric '%s' (see METRIC NAMES in idlescope(1))",
				  a[i].text, a[i].metric);
			return EXIT_USAGE;
		}
		if (!r) {
			fprintf(stderr, "idlescope: FAILED --fail-if '%s'%s%s: value %.6g\n", a[i].text,
				label ? " for " : "", label ? label : "", got);
			ret = EXIT_ASSERT;
		}
	}
	return ret;
}
