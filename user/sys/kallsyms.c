/* Kernel addresses to symbol names through /proc/kallsyms, for the wakeup
 * report's hrtimer functions (the caller hands it to summary_build). */
#include "sys/kallsyms.h"

#include <stdbool.h>
#include <stdio.h>

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
	char line[512], sym[256];
	unsigned long long a;
	char type;
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
	while (left > 0 && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &a, &type, sym) != 3 || !a)
			continue;
		for (int i = 0; i < n; i++)
			if (addr[i] == a && names[i][0] == '0') {
				snprintf(names[i], 64, "%.63s", sym);
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
