/* idlestat's energy model file format, parsed strictly from a buffer (every
 * malformed line is an error naming its line), and the kernel's energy model
 * read from debugfs. */
#include "advise/energy_model.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EM_MAX_LINE 512
#define EM_MAX_ROWS 256 /* P- or C-states a cluster may declare */

enum section { SEC_NONE, SEC_P, SEC_C };

struct parser {
	struct energy_model *em;
	int line;
	int cur;          /* current cluster, -1 none */
	enum section sec;
	char *err;
	size_t errlen;
};

static int fail(struct parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct parser *p, const char *fmt, ...)
{
	va_list ap;
	int n = p->line ? snprintf(p->err, p->errlen, "line %d: ", p->line)
			: snprintf(p->err, p->errlen, "end of file: ");

	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < p->errlen)
		vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

/* Splits s at blanks into at most max tokens; returns the count, or max + 1
 * when there are more. */
static int split(char *s, char **tok, int max)
{
	int n = 0;

	for (char *t = strtok(s, " \t\r\v\f"); t; t = strtok(NULL, " \t\r\v\f")) {
		if (n == max)
			return max + 1;
		tok[n++] = t;
	}
	return n;
}

/* A finite number >= 0 (idlestat writes integers; decimals are accepted). */
static int number(struct parser *p, const char *s, const char *what, double *v)
{
	char *end;

	/* digits and a point only: no sign, exponent, hex, inf or nan */
	if (strspn(s, "0123456789.") != strlen(s))
		return fail(p, "%s '%s' is not a number >= 0", what, s);
	errno = 0;
	*v = strtod(s, &end);
	if (end == s || *end || errno || !isfinite(*v))
		return fail(p, "%s '%s' is not a number >= 0", what, s);
	return 0;
}

static int count(struct parser *p, const char *s, const char *what, int *v)
{
	double d;

	if (number(p, s, what, &d))
		return -1;
	if (d != floor(d) || d > EM_MAX_ROWS)
		return fail(p, "%s '%s' must be a whole number up to %d", what, s, EM_MAX_ROWS);
	*v = (int)d;
	return 0;
}

static struct em_cluster *need_cluster(struct parser *p, const char *what)
{
	if (p->cur < 0) {
		fail(p, "%s before any 'clusterX:' line", what);
		return NULL;
	}
	return &p->em->clusters[p->cur];
}

/* "clusterA: 16 cap states 5 C states" */
static int cluster_line(struct parser *p, char **tok, int n)
{
	struct em_cluster *c;
	const char *name = tok[0];
	int idx;

	if (n != 7 || strlen(name) != 9 || name[8] != ':' || strcmp(tok[2], "cap") ||
	    strcmp(tok[3], "states") || strcmp(tok[5], "C") || strcmp(tok[6], "states"))
		return fail(p, "expected 'clusterX: N cap states M C states'");
	if (!p->em->nr_clusters)
		return fail(p, "'%.*s' before the 'clusters N' line", 8, name);
	if (name[7] < 'A' || name[7] > 'Z')
		return fail(p, "cluster name '%.*s' is not clusterA..clusterZ", 8, name);
	idx = name[7] - 'A';
	if (idx >= p->em->nr_clusters)
		return fail(p, "cluster%c out of range (the file declares %d clusters)", name[7],
			    p->em->nr_clusters);
	c = &p->em->clusters[idx];
	if (c->pstates || c->cstates)
		return fail(p, "cluster%c declared twice", name[7]);
	if (count(p, tok[1], "cap state count", &c->nr_pstates) ||
	    count(p, tok[4], "C state count", &c->nr_cstates))
		return -1;
	/* calloc(0) may return NULL: keep one spare element */
	c->pstates = calloc((size_t)c->nr_pstates + 1, sizeof(*c->pstates));
	c->cstates = calloc((size_t)c->nr_cstates + 1, sizeof(*c->cstates));
	if (!c->pstates || !c->cstates)
		return fail(p, "out of memory");
	p->cur = idx;
	p->sec = SEC_NONE;
	return 0;
}

static int pstate_line(struct parser *p, struct em_cluster *c, char **tok, int n)
{
	struct em_pstate *ps;

	if (n != 3)
		return fail(p, "expected a P-state 'speed cluster-power core-power' in cluster%c",
			    'A' + p->cur);
	if (c->got_pstates == c->nr_pstates)
		return fail(p, "more P-states than the %d declared for cluster%c", c->nr_pstates,
			    'A' + p->cur);
	ps = &c->pstates[c->got_pstates];
	if (number(p, tok[0], "speed", &ps->speed) ||
	    number(p, tok[1], "cluster power", &ps->cluster_power) ||
	    number(p, tok[2], "core power", &ps->core_power))
		return -1;
	c->got_pstates++;
	return 0;
}

static int cstate_line(struct parser *p, struct em_cluster *c, char **tok, int n)
{
	struct em_cstate *cs;

	if (n != 3 && n != 4)
		return fail(p, "expected a C-state 'name cluster-power core-power [entry+exit energy]' "
			    "in cluster%c", 'A' + p->cur);
	if (c->got_cstates == c->nr_cstates)
		return fail(p, "more C-states than the %d declared for cluster%c", c->nr_cstates,
			    'A' + p->cur);
	if (strlen(tok[0]) >= EM_NAME_LEN)
		return fail(p, "C-state name longer than %d characters", EM_NAME_LEN - 1);
	for (int i = 0; i < c->got_cstates; i++)
		if (!strcmp(c->cstates[i].name, tok[0]))
			return fail(p, "C-state '%s' twice in cluster%c", tok[0], 'A' + p->cur);
	cs = &c->cstates[c->got_cstates];
	snprintf(cs->name, sizeof(cs->name), "%s", tok[0]);
	if (number(p, tok[1], "cluster power", &cs->cluster_power) ||
	    number(p, tok[2], "core power", &cs->core_power))
		return -1;
	if (n == 4) {
		if (number(p, tok[3], "entry+exit energy", &cs->tr_energy))
			return -1;
		cs->have_tr = true;
	}
	c->got_cstates++;
	return 0;
}

static int parse_line(struct parser *p, char *s)
{
	char *tok[8] = { 0 };
	int n;
	struct em_cluster *c;

	while (isspace((unsigned char)*s))
		s++;
	if (!*s || *s == '#')
		return 0;
	n = split(s, tok, 7);
	if (!strcmp(tok[0], "clusters")) {
		if (n != 2)
			return fail(p, "expected 'clusters N'");
		if (p->em->nr_clusters)
			return fail(p, "'clusters' given twice");
		if (count(p, tok[1], "cluster count", &p->em->nr_clusters))
			return -1;
		if (p->em->nr_clusters < 1 || p->em->nr_clusters > EM_MAX_CLUSTERS)
			return fail(p, "cluster count %d out of range (1..%d)", p->em->nr_clusters,
				    EM_MAX_CLUSTERS);
		return 0;
	}
	/* "clusterA:" (C-state names such as cluster-sleep-b are data) */
	if (!strncmp(tok[0], "cluster", 7) && tok[0][strlen(tok[0]) - 1] == ':')
		return cluster_line(p, tok, n);
	if (!strcmp(tok[0], "P-states:") || !strcmp(tok[0], "C-states:")) {
		if (n != 1)
			return fail(p, "unexpected text after '%s'", tok[0]);
		if (!need_cluster(p, tok[0]))
			return -1;
		p->sec = tok[0][0] == 'P' ? SEC_P : SEC_C;
		return 0;
	}
	if (!strcmp(tok[0], "wakeup")) {
		if (!(c = need_cluster(p, "'wakeup'")))
			return -1;
		if (n != 3)
			return fail(p, "expected 'wakeup cluster-energy core-energy'");
		if (c->have_wakeup)
			return fail(p, "'wakeup' given twice for cluster%c", 'A' + p->cur);
		if (number(p, tok[1], "cluster wakeup energy", &c->wakeup_cluster) ||
		    number(p, tok[2], "core wakeup energy", &c->wakeup_core))
			return -1;
		c->have_wakeup = true;
		return 0;
	}
	if (p->sec == SEC_NONE)
		return fail(p, "unexpected '%s' (not in a P-states: or C-states: section)", tok[0]);
	c = &p->em->clusters[p->cur];
	return p->sec == SEC_P ? pstate_line(p, c, tok, n) : cstate_line(p, c, tok, n);
}

static int check_complete(struct parser *p)
{
	p->line = 0; /* errors name the end of the file */
	if (!p->em->nr_clusters)
		return fail(p, "no 'clusters N' line");
	for (int i = 0; i < p->em->nr_clusters; i++) {
		const struct em_cluster *c = &p->em->clusters[i];

		if (!c->pstates)
			return fail(p, "cluster%c is declared but never described", 'A' + i);
		if (c->got_pstates != c->nr_pstates)
			return fail(p, "cluster%c has %d P-states, %d declared", 'A' + i, c->got_pstates,
				    c->nr_pstates);
		if (c->got_cstates != c->nr_cstates)
			return fail(p, "cluster%c has %d C-states, %d declared", 'A' + i, c->got_cstates,
				    c->nr_cstates);
	}
	return 0;
}

int energy_model_parse(const char *buf, size_t len, struct energy_model *em, char *err,
		       size_t errlen)
{
	struct parser p = { .em = em, .cur = -1, .err = err, .errlen = errlen };
	char line[EM_MAX_LINE];
	size_t i = 0;

	memset(em, 0, sizeof(*em));
	while (i < len) {
		size_t n = 0;

		p.line++;
		while (i < len && buf[i] != '\n') {
			if (!buf[i]) {
				fail(&p, "NUL byte (not a text file)");
				goto bad;
			}
			if (n == sizeof(line) - 1) {
				fail(&p, "longer than %d characters", EM_MAX_LINE - 1);
				goto bad;
			}
			line[n++] = buf[i++];
		}
		i++; /* the newline */
		line[n] = '\0';
		if (parse_line(&p, line))
			goto bad;
	}
	if (!check_complete(&p))
		return 0;
bad:
	energy_model_free(em);
	return -1;
}

void energy_model_free(struct energy_model *em)
{
	for (int i = 0; i < EM_MAX_CLUSTERS; i++) {
		free(em->clusters[i].pstates);
		free(em->clusters[i].cstates);
	}
	memset(em, 0, sizeof(*em));
}

static bool same_name(const char *a, const char *b)
{
	for (;; a++, b++) {
		char x = (char)tolower((unsigned char)*a), y = (char)tolower((unsigned char)*b);

		if (x == ' ' || x == '_')
			x = '-';
		if (y == ' ' || y == '_')
			y = '-';
		if (x != y)
			return false;
		if (!x)
			return true;
	}
}

const struct em_cstate *energy_model_cstate(const struct energy_model *em, int c,
					    const char *name)
{
	if (c < 0 || c >= em->nr_clusters)
		return NULL;
	for (int i = 0; i < em->clusters[c].got_cstates; i++)
		if (same_name(em->clusters[c].cstates[i].name, name))
			return &em->clusters[c].cstates[i];
	return NULL;
}

static int read_line(const char *dir, const char *name, char *buf, size_t len)
{
	char path[1100];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%.1000s/%.64s", dir, name);
	if (!(f = fopen(path, "re")))
		return -1;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static int by_khz(const void *a, const void *b)
{
	const unsigned long long *x = a, *y = b;

	return (*x > *y) - (*x < *y);
}

/* One performance domain: "cpus" and one ps:<kHz> (cs:<kHz> before 5.x)
 * directory per performance state with "frequency" and "power". */
static void read_domain(const char *dir, struct kernel_em_domain *d)
{
	DIR *dp = opendir(dir);
	struct dirent *e;
	char buf[64], sub[1024];

	if (read_line(dir, "cpus", d->cpus, sizeof(d->cpus)))
		d->cpus[0] = '\0';
	if (!dp)
		return;
	while ((e = readdir(dp)) && d->nr_pstates < 64) {
		unsigned long long khz, power;

		if (strncmp(e->d_name, "ps:", 3) && strncmp(e->d_name, "cs:", 3))
			continue;
		snprintf(sub, sizeof(sub), "%.700s/%.255s", dir, e->d_name);
		if (read_line(sub, "frequency", buf, sizeof(buf)) || sscanf(buf, "%llu", &khz) != 1 ||
		    read_line(sub, "power", buf, sizeof(buf)) || sscanf(buf, "%llu", &power) != 1)
			continue;
		d->pstates[d->nr_pstates].khz = khz;
		d->pstates[d->nr_pstates].power = power;
		d->nr_pstates++;
	}
	closedir(dp);
	qsort(d->pstates, (size_t)d->nr_pstates, sizeof(d->pstates[0]), by_khz);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct kernel_em_domain *)a)->name,
		      ((const struct kernel_em_domain *)b)->name);
}

int kernel_em_read(const char *root, struct kernel_em *k)
{
	DIR *dp = opendir(root);
	struct dirent *e;

	memset(k, 0, sizeof(*k));
	if (!dp)
		return 0;
	while ((e = readdir(dp)) && k->nr_domains < 16) {
		struct kernel_em_domain *d = &k->domains[k->nr_domains];
		char dir[768];

		if (e->d_name[0] == '.')
			continue;
		snprintf(d->name, sizeof(d->name), "%.63s", e->d_name);
		snprintf(dir, sizeof(dir), "%.500s/%.255s", root, e->d_name);
		read_domain(dir, d);
		if (d->nr_pstates)
			k->nr_domains++;
		else
			memset(d, 0, sizeof(*d));
	}
	closedir(dp);
	qsort(k->domains, (size_t)k->nr_domains, sizeof(k->domains[0]), by_name);
	return 1;
}
