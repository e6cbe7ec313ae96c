/* Name lookups for the wakeup report. */
#include "model/wake_names.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *wake_kind_name(int kind)
{
	static const char *const names[WAKE_NR_KINDS] = {
		[WAKE_UNKNOWN] = "unknown",
		[WAKE_TIMER] = "timer",
		[WAKE_IRQ] = "irq",
		[WAKE_IPI_RESCHED] = "ipi-resched",
		[WAKE_IPI_CALL] = "ipi-call",
		[WAKE_IPI_CALL_SINGLE] = "ipi-call-single",
		[WAKE_IPI_IRQ_WORK] = "ipi-irq-work",
		[WAKE_IPI_OTHER] = "ipi-other",
		[WAKE_SOFTIRQ] = "softirq",
		[WAKE_NO_IPI] = "poll-resched",
	};

	return kind >= 0 && kind < WAKE_NR_KINDS ? names[kind] : "?";
}

const char *softirq_name(uint64_t vec)
{
	/* include/linux/interrupt.h, stable since 2.6 */
	static const char *const names[] = { "HI", "TIMER", "NET_TX", "NET_RX", "BLOCK",
					     "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU" };

	return vec < sizeof(names) / sizeof(names[0]) ? names[vec] : "?";
}

/* A trigger-type column: x86 "IO-APIC 1-edge", "PCI-MSI 49152-edge",
 * arm64 GIC "27 Level", "Edge". */
static bool is_trigger(const char *tok)
{
	return strcasestr(tok, "edge") || strcasestr(tok, "level") || strcasestr(tok, "fasteoi");
}

void irq_name(unsigned int irq, char *buf, size_t len)
{
	irq_name_in("/proc/interrupts", irq, buf, len);
}

void irq_name_in(const char *path, unsigned int irq, char *buf, size_t len)
{
	char line[1024], want[16];
	FILE *f = fopen(path, "re");

	snprintf(buf, len, "%s", "");
	if (!f)
		return;
	snprintf(want, sizeof(want), "%u:", irq);
	while (fgets(line, sizeof(line), f)) {
		char *p = line, *end, *names = NULL;

		while (*p == ' ')
			p++;
		if (strncmp(p, want, strlen(want)))
			continue;
		/* "N: counts... chip hwirq trigger name[, name]": the names
		 * follow the trigger column, else the last token */
		line[strcspn(line, "\n")] = '\0';
		for (char *tok = p; *tok;) {
			size_t n = strcspn(tok, " ");
			char saved = tok[n];

			tok[n] = '\0';
			if (is_trigger(tok))
				names = tok + n + (saved ? 1 : 0);
			tok[n] = saved;
			tok += n;
			while (*tok == ' ')
				tok++;
			if (names)
				break;
		}
		if (names) {
			while (*names == ' ')
				names++;
			snprintf(buf, len, "%s", names);
		} else {
			end = line + strlen(line);
			while (end > line && end[-1] != ' ')
				end--;
			snprintf(buf, len, "%s", end);
		}
		break;
	}
	fclose(f);
}

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
