/* CPU lists as the kernel writes them ("0-3,6", "" for none): parse and
 * format, over a bitmap of at most IS_CPULIST_MAX CPUs. */
#ifndef IDLESCOPE_CPULIST_H
#define IDLESCOPE_CPULIST_H

#include <stdbool.h>
#include <stddef.h>

#define IS_CPULIST_MAX 4096

struct cpulist {
	unsigned long bits[IS_CPULIST_MAX / (8 * sizeof(unsigned long))];
};

/* Parses s into out. Returns 0, or -1 with a one-line reason in err. */
int cpulist_parse(const char *s, struct cpulist *out, char *err, size_t errlen);
bool cpulist_has(const struct cpulist *l, int cpu);
void cpulist_set(struct cpulist *l, int cpu);
int cpulist_count(const struct cpulist *l);
/* Lowest CPU of l, or -1 when empty. */
int cpulist_first(const struct cpulist *l);
/* Writes l in canonical form ("0-3,6"); returns the length, truncating. */
int cpulist_format(const struct cpulist *l, char *buf, size_t len);
/* The longest canonical form of any list, with its NUL: every third CPU
 * left out ("1000-1001,1003-1004,...") costs at most 10 characters per 3
 * CPUs, every other CPU ("1000,1002,...") 5 per 2 (test_cpulist checks it). */
#define CPULIST_STR_MAX (4 * IS_CPULIST_MAX + 1)
/* l in canonical form as a new string, never cut (free() it); NULL when out
 * of memory. For names in reports, where a list of any length must survive. */
char *cpulist_str(const struct cpulist *l);
bool cpulist_equal(const struct cpulist *a, const struct cpulist *b);

#endif
