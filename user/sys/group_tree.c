/* The topology tree over levels of groups: order, nesting, parents, each
 * group's children, and each CPU's smallest group. Pure logic, shared by
 * live sessions (sysfs) and replay (profiles). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "group_stats.h" /* IS_MAX_GROUPS */
#include "sys/group_tree.h"

static int level_cpus(const struct group_level *l)
{
	int n = 0;

	for (int i = 0; i < l->nr; i++)
		n += cpulist_count(&l->cpus[i]);
	return n;
}

static bool level_single(const struct group_level *l)
{
	for (int i = 0; i < l->nr; i++)
		if (cpulist_count(&l->cpus[i]) > 1)
			return false;
	return true;
}

static bool level_equal(const struct group_level *a, const struct group_level *b)
{
	if (a->nr != b->nr)
		return false;
	for (int i = 0; i < a->nr; i++) {
		bool found = false;

		for (int j = 0; j < b->nr && !found; j++)
			found = cpulist_equal(&a->cpus[i], &b->cpus[j]);
		if (!found)
			return false;
	}
	return true;
}

static bool intersects(const struct cpulist *a, const struct cpulist *b)
{
	for (size_t i = 0; i < sizeof(a->bits) / sizeof(a->bits[0]); i++)
		if (a->bits[i] & b->bits[i])
			return true;
	return false;
}

static bool subset(const struct cpulist *a, const struct cpulist *b)
{
	for (size_t i = 0; i < sizeof(a->bits) / sizeof(a->bits[0]); i++)
		if (a->bits[i] & ~b->bits[i])
			return false;
	return true;
}

/* Which name stays when two levels hold the same groups: lower first. */
static int name_rank(const char *name)
{
	static const char *const rank[] = { "core", "package", "cluster", "die" };

	for (size_t i = 0; i < sizeof(rank) / sizeof(*rank); i++)
		if (!strcmp(name, rank[i]))
			return (int)i;
	return 4;
}

/* Every group of a inside the group of b it meets, if any. */
static bool level_nests(const struct group_level *a, const struct group_level *b)
{
	for (int i = 0; i < a->nr; i++)
		for (int j = 0; j < b->nr; j++)
			if (intersects(&a->cpus[i], &b->cpus[j]) && !subset(&a->cpus[i], &b->cpus[j]))
				return false;
	return true;
}

/* The level --packing counts: clusters where they group CPUs, else the
 * first of custom, freq-domain, package, die, else the largest. */
static int pick_pack_level(const struct groups *g)
{
	static const char *const pref[] = { "cluster", "custom", "freq-domain", "package", "die" };

	for (size_t p = 0; p < sizeof(pref) / sizeof(*pref); p++)
		for (int l = 0; l < g->nr_levels; l++)
			if (!strcmp(g->levels[l], pref[p]))
				return l;
	return g->nr_levels - 1;
}

/* Parents, children, each CPU's smallest and packing-level group. */
static int link_tree(struct groups *g, int nr_cpus, char *err, size_t errlen)
{
	char a[32], b[32];

	for (int i = 0; i < g->nr_groups; i++) {
		g->node[i].parent = -1;
		for (int j = i + 1; j < g->nr_groups && g->node[i].parent < 0; j++) {
			if (g->node[j].level == g->node[i].level ||
			    !intersects(&g->cpus[i], &g->cpus[j]))
				continue;
			if (!subset(&g->cpus[i], &g->cpus[j])) {
				groups_name(g, i, a, sizeof(a));
				groups_name(g, j, b, sizeof(b));
				snprintf(err, errlen, "topology levels do not nest: %s is split by %s", a, b);
				return -1;
			}
			g->node[i].parent = j;
		}
		if (g->node[i].parent >= 0)
			g->node[g->node[i].parent].nr_children++;
	}
	g->nr_cpus = nr_cpus;
	g->group_of = malloc(sizeof(*g->group_of) * (size_t)(nr_cpus ? nr_cpus : 1));
	g->pack_of = malloc(sizeof(*g->pack_of) * (size_t)(nr_cpus ? nr_cpus : 1));
	if (!g->group_of || !g->pack_of) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (int c = 0; c < nr_cpus; c++) {
		g->group_of[c] = g->pack_of[c] = -1;
		for (int i = g->nr_groups - 1; i >= 0; i--) {
			if (!cpulist_has(&g->cpus[i], c))
				continue;
			g->group_of[c] = i; /* the last found is the smallest */
			if (g->node[i].level == g->pack_level)
				g->pack_of[c] = i;
		}
		if (g->group_of[c] >= 0)
			g->node[g->group_of[c]].nr_children++;
	}
	for (int i = 0; i < g->nr_groups; i++)
		if (g->node[i].nr_children > 32767) {
			groups_name(g, i, a, sizeof(a));
			snprintf(err, errlen, "%s has %d members (at most 32767)", a,
				 g->node[i].nr_children);
			return -1;
		}
	return 0;
}

int groups_assemble(struct group_level *lv, int nr, bool drop, int nr_cpus, struct groups *g,
		    char *err, size_t errlen)
{
	bool keep[IS_MAX_LEVELS] = { 0 };
	int order[IS_MAX_LEVELS], kept = 0, total = 0, ret = -1;

	memset(g, 0, sizeof(*g));
	if (nr > IS_MAX_LEVELS)
		nr = IS_MAX_LEVELS;
	/* smallest groups first (stable): CPUs per group, compared crosswise */
	for (int i = 0; i < nr; i++)
		order[i] = i;
	for (int i = 1; i < nr; i++)
		for (int j = i; j > 0; j--) {
			const struct group_level *x = &lv[order[j - 1]], *y = &lv[order[j]];

			if ((long)level_cpus(x) * y->nr <= (long)level_cpus(y) * x->nr)
				break;
			int t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	/* of two equal levels the better-known name stays (a die that is its
	 * package shows as the package, an x86 cluster that is its core as the
	 * core) */
	for (int k = 0; k < nr; k++) {
		int i = order[k];

		keep[i] = lv[i].nr > 0 && !(drop && level_single(&lv[i]));
		kept += keep[i];
	}
	for (int k = 0; k < nr && drop; k++)
		for (int m = 0; m < nr; m++) {
			int i = order[k], j = order[m];

			if (i != j && keep[i] && keep[j] && level_equal(&lv[i], &lv[j]) &&
			    name_rank(lv[i].name) > name_rank(lv[j].name)) {
				keep[i] = false;
				kept--;
			}
		}
	/* sysfs levels that do not nest in a larger one (a cluster across two
	 * packages) cannot be a tree: the smaller drops out */
	for (int k = 0; k < nr && drop; k++)
		for (int m = k + 1; m < nr && keep[order[k]]; m++)
			if (keep[order[m]] && !level_nests(&lv[order[k]], &lv[order[m]])) {
				keep[order[k]] = false;
				kept--;
			}
	if (!kept && nr) /* one CPU, or no shared level: the largest, as it is */
		keep[order[nr - 1]] = lv[order[nr - 1]].nr > 0;
	for (int k = 0; k < nr; k++)
		if (keep[order[k]])
			total += lv[order[k]].nr;
	if (!total) {
		snprintf(err, errlen, "no topology groups");
		goto out;
	}
	if (total > IS_MAX_GROUPS) {
		snprintf(err, errlen, "%d topology groups (at most %d): give fewer levels", total,
			 IS_MAX_GROUPS);
		goto out;
	}
	g->cpus = calloc((size_t)total, sizeof(*g->cpus));
	g->node = calloc((size_t)total, sizeof(*g->node));
	if (!g->cpus || !g->node) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	for (int k = 0; k < nr; k++) {
		const struct group_level *l = &lv[order[k]];

		if (!keep[order[k]])
			continue;
		snprintf(g->levels[g->nr_levels], sizeof(g->levels[0]), "%s", l->name);
		snprintf(g->level + strlen(g->level), sizeof(g->level) - strlen(g->level), "%s%s",
			 g->nr_levels ? "," : "", l->name);
		for (int i = 0; i < l->nr; i++) {
			g->cpus[g->nr_groups] = l->cpus[i];
			g->node[g->nr_groups].level = g->nr_levels;
			g->node[g->nr_groups].index = i;
			g->nr_groups++;
		}
		g->nr_levels++;
	}
	g->pack_level = pick_pack_level(g);
	ret = link_tree(g, nr_cpus, err, errlen);
out:
	for (int i = 0; i < nr; i++) {
		free(lv[i].cpus);
		lv[i].cpus = NULL;
	}
	if (ret)
		groups_free(g);
	return ret;
}

void groups_name(const struct groups *g, int i, char *buf, size_t len)
{
	snprintf(buf, len, "%s%d", g->levels[g->node[i].level], g->node[i].index);
}

void groups_free(struct groups *g)
{
	free(g->cpus);
	free(g->node);
	free(g->group_of);
	free(g->pack_of);
	memset(g, 0, sizeof(*g));
}
