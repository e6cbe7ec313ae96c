/* Kernel addresses to symbol names through /proc/kallsyms, for the wakeup
 * report's hrtimer functions (the caller hands it to summary_build). */
#include "sys/kallsyms.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Names found before: `top` resolves at every interval, and a scan of
 * /proc/kallsyms costs tens of milliseconds of CPU. */
#define KSYM_CACHE 256
static struct {
	uint64_t addr;
	char name[64];
} ksym_cache[KSYM_CACHE];
static int ksym_cached;

void kallsyms_resolve(const uint64_t *addr, int n, char (*names)[64])
{
	char line[512];
	unsigned long long a;
	FILE *f;
	int left = n;

	for (int i = 0; i < n; i++) {
		snprintf(names[i], 64, "0x%llx", (unsigned long long)addr[i]);
		for (int j = 0; j < ksym_cached; j++)
			if (ksym_cache[j].addr == addr[i]) {
				snprintf(names[i], 64, "%s", ksym_cache[j].name);
				left--;
				break;
			}
	}
	if (!left)
		return;
	f = fopen("/proc/kallsyms", "re");
	if (!f)
		return;
	/* procfs says 1 KiB blocks: a scan would be thousands of reads */
	setvbuf(f, NULL, _IOFBF, 64 * 1024);
	while (left > 0 && fgets(line, sizeof(line), f)) {
		char *end, *name;
		size_t len;

		/* "ADDR T NAME\t[module]\n": the name is parsed only for a wanted address */
		a = strtoull(line, &end, 16);
		if (!a || end == line || end[0] != ' ' || !end[1] || end[2] != ' ')
			continue;
		for (int i = 0; i < n; i++)
			if (addr[i] == a && names[i][0] == '0') {
				name = end + 3;
				len = strcspn(name, "\t\n ");
				snprintf(names[i], 64, "%.*s", (int)(len < 63 ? len : 63), name);
				left--;
			}
	}
	fclose(f);
	/* remembered found or not (an address not in kallsyms stays a number) */
	for (int i = 0; i < n && ksym_cached < KSYM_CACHE; i++) {
		bool known = false;

		for (int j = 0; j < ksym_cached && !known; j++)
			known = ksym_cache[j].addr == addr[i];
		if (!known) {
			ksym_cache[ksym_cached].addr = addr[i];
			snprintf(ksym_cache[ksym_cached++].name, 64, "%s", names[i]);
		}
	}
}
