/* CPU list parsing and formatting (the kernel's cpulist syntax), used for -C
 * and for sysfs topology files. */
#include "util/cpulist.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BITS_PER_WORD (8 * sizeof(unsigned long))

bool cpulist_has(const struct cpulist *l, int cpu)
{
	if (cpu < 0 || cpu >= IS_CPULIST_MAX)
		return false;
	return (l->bits[cpu / BITS_PER_WORD] >> (cpu % BITS_PER_WORD)) & 1;
}

void cpulist_set(struct cpulist *l, int cpu)
{
	if (cpu >= 0 && cpu < IS_CPULIST_MAX)
		l->bits[cpu / BITS_PER_WORD] |= 1UL << (cpu % BITS_PER_WORD);
}

int cpulist_count(const struct cpulist *l)
{
	int n = 0;

	for (size_t i = 0; i < sizeof(l->bits) / sizeof(l->bits[0]); i++)
		n += __builtin_popcountl(l->bits[i]);
	return n;
}

int cpulist_first(const struct cpulist *l)
{
	for (int cpu = 0; cpu < IS_CPULIST_MAX; cpu++)
		if (cpulist_has(l, cpu))
			return cpu;
	return -1;
}

bool cpulist_equal(const struct cpulist *a, const struct cpulist *b)
{
	return memcmp(a->bits, b->bits, sizeof(a->bits)) == 0;
}

static int parse_cpu(const char **p, long *out, char *err, size_t errlen)
{
	char *end;

	if (!isdigit((unsigned char)**p)) {
		snprintf(err, errlen, "expected a CPU number at '%s'", *p);
		return -1;
	}
	errno = 0;
	*out = strtol(*p, &end, 10);
	if (errno || *out >= IS_CPULIST_MAX) {
		snprintf(err, errlen, "CPU number too large at '%s' (max %d)", *p,
			 IS_CPULIST_MAX - 1);
		return -1;
	}
	*p = end;
	return 0;
}

int cpulist_parse(const char *s, struct cpulist *out, char *err, size_t errlen)
{
	const char *p = s;

	memset(out, 0, sizeof(*out));
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '\n' || *p == '\0')
		return 0; /* empty list is valid (the kernel writes it) */
	for (;;) {
		long lo, hi, used = 1, group = 1;

		if (parse_cpu(&p, &lo, err, errlen))
			return -1;
		hi = lo;
		if (*p == '-') {
			p++;
			if (parse_cpu(&p, &hi, err, errlen))
				return -1;
			if (hi < lo) {
				snprintf(err, errlen, "range %ld-%ld is backwards", lo, hi);
				return -1;
			}
			/* the kernel's group form (lib/bitmap-str.c): "0-7:2/4" takes
			 * the first 2 of every 4 CPUs: 0,1,4,5 */
			if (*p == ':') {
				p++;
				if (parse_cpu(&p, &used, err, errlen))
					return -1;
				if (*p != '/') {
					snprintf(err, errlen, "expected '/' in group form 'A-B:USED/GROUP'");
					return -1;
				}
				p++;
				if (parse_cpu(&p, &group, err, errlen))
					return -1;
				if (used == 0 || group == 0 || used > group) {
					snprintf(err, errlen, "bad group %ld/%ld in CPU list", used, group);
					return -1;
				}
			}
		}
		for (long c = lo; c <= hi; c++)
			if ((c - lo) % group < used)
				cpulist_set(out, (int)c);
		if (*p == ',') {
			p++;
			continue;
		}
		if (*p == '\n')
			p++;
		if (*p != '\0') {
			snprintf(err, errlen, "unexpected '%c' in CPU list '%s'", *p, s);
			return -1;
		}
		return 0;
	}
}

int cpulist_format(const struct cpulist *l, char *buf, size_t len)
{
	size_t n = 0;
	int cpu = 0;

	if (len)
		buf[0] = '\0';
	while (cpu < IS_CPULIST_MAX) {
		int lo, hi;

		if (!cpulist_has(l, cpu)) {
			cpu++;
			continue;
		}
		lo = hi = cpu;
		while (hi + 1 < IS_CPULIST_MAX && cpulist_has(l, hi + 1))
			hi++;
		if (n < len) {
			int w = lo == hi ? snprintf(buf + n, len - n, "%s%d", n ? "," : "", lo)
					 : snprintf(buf + n, len - n, "%s%d-%d", n ? "," : "", lo, hi);
			n += (size_t)w;
		}
		cpu = hi + 1;
	}
	return (int)(n < len ? n : (len ? len - 1 : 0));
}

char *cpulist_str(const struct cpulist *l)
{
	char *buf = malloc(CPULIST_STR_MAX), *small;
	int n;

	if (!buf)
		return NULL;
	n = cpulist_format(l, buf, CPULIST_STR_MAX);
	small = realloc(buf, (size_t)n + 1);
	return small ? small : buf;
}
