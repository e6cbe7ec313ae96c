/* Builds the CPU groups that --topology names, from sysfs or a custom list. */
#include "sys/group_levels.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/sysfs.h"

static int add_group(struct group_level *g, const struct cpulist *l)
{
	struct cpulist *n;

	for (int i = 0; i < g->nr; i++)
		if (cpulist_equal(&g->cpus[i], l))
			return i;
	n = realloc(g->cpus, sizeof(*n) * (size_t)(g->nr + 1));
	if (!n)
		return -1;
	g->cpus = n;
	g->cpus[g->nr] = *l;
	return g->nr++;
}

/* Groups CPUs with equal key(cpu) (>= 0). */
static int by_key(const struct topology *t, struct group_level *g, int (*key)(const struct cpu_topo *))
{
	for (int c = 0; c < t->nr_cpus; c++) {
		struct cpulist l = { 0 };
		int k = key(&t->cpus[c]);

		if (k < 0)
			continue;
		for (int d = 0; d < t->nr_cpus; d++)
			if (key(&t->cpus[d]) == k)
				cpulist_set(&l, d);
		if (add_group(g, &l) < 0)
			return -1;
	}
	return 0;
}

static int key_package(const struct cpu_topo *c) { return c->package; }
static int key_die(const struct cpu_topo *c) { return c->package < 0 || c->die < 0 ? -1 : c->package * 4096 + c->die; }

static int from_lists(const struct topology *t, struct group_level *g, int which, char *err,
		      size_t errlen)
{
	for (int c = 0; c < t->nr_cpus; c++) {
		const char *s = which ? t->cpus[c].siblings : t->cpus[c].cluster_cpus;
		struct cpulist l;
		char e[128];

		if (!s || !*s)
			continue;
		if (cpulist_parse(s, &l, e, sizeof(e))) {
			snprintf(err, errlen, "cannot parse CPU %d's topology list '%s': %s", c, s, e);
			return -1;
		}
		if (cpulist_count(&l) && add_group(g, &l) < 0)
			return -1;
	}
	return 0;
}

static int freq_domains(struct group_level *g, char *err, size_t errlen)
{
	char path[512], buf[4096], e[128];
	struct dirent *d;
	DIR *dir;

	snprintf(path, sizeof(path), "%s/devices/system/cpu/cpufreq", sysfs_root());
	dir = opendir(path);
	if (!dir) {
		snprintf(err, errlen, "no cpufreq policies on this machine (--topology freq-domain)");
		return -1;
	}
	while ((d = readdir(dir))) {
		struct cpulist l;

		if (strncmp(d->d_name, "policy", 6))
			continue;
		if (sysfs_read_str(buf, sizeof(buf), "devices/system/cpu/cpufreq/%s/related_cpus",
				   d->d_name) ||
		    cpulist_parse(buf, &l, e, sizeof(e)))
			continue;
		if (add_group(g, &l) < 0) {
			closedir(dir);
			return -1;
		}
	}
	closedir(dir);
	if (!g->nr) {
		snprintf(err, errlen, "no cpufreq policies on this machine (--topology freq-domain)");
		return -1;
	}
	return 0;
}

static int custom(const struct topology *t, const char *spec, struct group_level *g, char *err,
		  size_t errlen)
{
	char *copy = strdup(spec), *save = NULL, *grp;
	struct cpulist seen = { 0 };
	int ret = 0;

	if (!copy)
		return -1;
	for (grp = strtok_r(copy, ",", &save); grp; grp = strtok_r(NULL, ",", &save)) {
		struct cpulist l = { 0 }, part;
		char *psave = NULL, *p, e[128];

		for (p = strtok_r(grp, "+", &psave); p; p = strtok_r(NULL, "+", &psave)) {
			int bad = cpulist_parse(p, &part, e, sizeof(e));

			if (bad || !cpulist_count(&part)) {
				snprintf(err, errlen, "bad custom group '%s': %s", p, bad ? e : "empty");
				ret = -1;
				goto out;
			}
			for (int c = 0; c < IS_CPULIST_MAX; c++)
				if (cpulist_has(&part, c))
					cpulist_set(&l, c);
		}
		for (int c = 0; c < IS_CPULIST_MAX; c++) {
			if (!cpulist_has(&l, c))
				continue;
			if (!cpulist_has(&t->possible, c)) {
				snprintf(err, errlen, "custom group: CPU %d does not exist", c);
				ret = -1;
				goto out;
			}
			if (cpulist_has(&seen, c)) {
				snprintf(err, errlen, "custom groups overlap at CPU %d", c);
				ret = -1;
				goto out;
			}
			cpulist_set(&seen, c);
		}
		if (add_group(g, &l) < 0) {
			ret = -1;
			goto out;
		}
	}
	if (!g->nr) {
		snprintf(err, errlen, "custom topology needs at least one group (custom:0-3,4-7)");
		ret = -1;
	}
out:
	free(copy);
	return ret;
}

/* One level's groups from sysfs (or the custom list). */
static int build_level(const struct topology *t, const char *spec, struct group_level *g,
		       char *err, size_t errlen)
{
	int r;

	memset(g, 0, sizeof(*g));
	if (!strncmp(spec, "custom:", 7)) {
		snprintf(g->name, sizeof(g->name), "custom");
		r = custom(t, spec + 7, g, err, errlen);
	} else if (!strcmp(spec, "cluster")) {
		snprintf(g->name, sizeof(g->name), "cluster");
		r = from_lists(t, g, 0, err, errlen);
	} else if (!strcmp(spec, "core")) {
		snprintf(g->name, sizeof(g->name), "core");
		r = from_lists(t, g, 1, err, errlen);
	} else if (!strcmp(spec, "package")) {
		snprintf(g->name, sizeof(g->name), "package");
		r = by_key(t, g, key_package);
	} else if (!strcmp(spec, "die")) {
		snprintf(g->name, sizeof(g->name), "die");
		r = by_key(t, g, key_die);
	} else if (!strcmp(spec, "freq-domain")) {
		snprintf(g->name, sizeof(g->name), "freq-domain");
		r = freq_domains(g, err, errlen);
	} else {
		snprintf(err, errlen,
			 "unknown topology '%s' (sysfs, cluster, core, die, package, freq-domain, "
			 "custom:0-3,4-7, or several joined by ',')", spec);
		return -1;
	}
	if (!r && !g->nr) {
		snprintf(err, errlen, "no %s groups on this machine", g->name);
		r = -1;
	}
	if (r && !err[0])
		snprintf(err, errlen, "out of memory");
	return r;
}

int groups_build(const struct topology *t, const char *spec, struct groups *g, char *err,
		 size_t errlen)
{
	static const char *const sysfs_levels[] = { "core", "cluster", "die", "package" };
	struct group_level lv[IS_MAX_LEVELS];
	char *copy = NULL, *p, *save = NULL;
	int nr = 0, ret = -1;
	bool drop = !spec || !strcmp(spec, "sysfs");

	memset(g, 0, sizeof(*g));
	memset(lv, 0, sizeof(lv));
	err[0] = '\0';
	if (drop) {
		for (size_t i = 0; i < sizeof(sysfs_levels) / sizeof(*sysfs_levels); i++) {
			char e[256] = "";

			/* a level this machine does not describe is no error here */
			if (build_level(t, sysfs_levels[i], &lv[nr], e, sizeof(e)))
				free(lv[nr].cpus);
			else
				nr++;
		}
		if (!nr) {
			snprintf(err, errlen, "no topology levels in sysfs on this machine");
			return -1;
		}
		return groups_assemble(lv, nr, true, t->nr_possible, g, err, errlen);
	}
	if (!(copy = strdup(spec)))
		goto out;
	for (p = strtok_r(copy, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		char *level = p;

		if (nr == IS_MAX_LEVELS) {
			snprintf(err, errlen, "at most %d topology levels", IS_MAX_LEVELS);
			goto out;
		}
		/* custom: takes the rest, commas and all */
		if (!strncmp(p, "custom:", 7) && save && *save) {
			save[-1] = ',';
			save = NULL;
		}
		for (int i = 0; i < nr; i++)
			if (!strcmp(lv[i].name, !strncmp(level, "custom:", 7) ? "custom" : level)) {
				snprintf(err, errlen, "topology level '%s' given twice", lv[i].name);
				goto out;
			}
		if (build_level(t, level, &lv[nr], err, errlen)) {
			free(lv[nr].cpus);
			goto out;
		}
		nr++;
		if (!save)
			break;
	}
	if (!nr) {
		snprintf(err, errlen, "no topology level given");
		goto out;
	}
	free(copy);
	return groups_assemble(lv, nr, false, t->nr_possible, g, err, errlen);
out:
	if (!err[0])
		snprintf(err, errlen, "out of memory");
	for (int i = 0; i < nr; i++)
		free(lv[i].cpus);
	free(copy);
	return ret;
}
