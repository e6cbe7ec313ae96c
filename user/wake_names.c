/* Name lookups for the wakeup report. */
#include "wake_names.h"

#include <ctype.h>
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

void irq_name(unsigned int irq, char *buf, size_t len)
{
	char line[1024], want[16];
	FILE *f = fopen("/proc/interrupts", "re");

	snprintf(buf, len, "%s", "");
	if (!f)
		return;
	snprintf(want, sizeof(want), "%u:", irq);
	while (fgets(line, sizeof(line), f)) {
		char *p = line, *tok, *save, *last_type = NULL;

		while (*p == ' ')
			p++;
		if (strncmp(p, want, strlen(want)))
			continue;
		/* "N: counts... chip hwirq-type name[, name]": the names follow
		 * the first token with a trigger type */
		line[strcspn(line, "\n")] = '\0';
		for (tok = strtok_r(p, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
			if (strstr(tok, "-edge") || strstr(tok, "-level") || strstr(tok, "-fasteoi")) {
				last_type = tok;
				break;
			}
		if (last_type && save) {
			while (*save == ' ')
				save++;
			snprintf(buf, len, "%s", save);
		} else if (tok == NULL) {
			/* no trigger column: the last token */
			char *end = line + strlen(line);

			while (end > line && end[-1] != ' ')
				end--;
			snprintf(buf, len, "%s", end);
		}
		break;
	}
	fclose(f);
}

void kallsyms_resolve(const uint64_t *addr, int n, char (*names)[64])
{
	char line[512], sym[256];
	unsigned long long a;
	char type;
	FILE *f;
	int left = n;

	for (int i = 0; i < n; i++)
		snprintf(names[i], 64, "0x%llx", (unsigned long long)addr[i]);
	f = fopen("/proc/kallsyms", "re");
	if (!f)
		return;
	while (left && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &a, &type, sym) != 3 || !a)
			continue;
		for (int i = 0; i < n; i++)
			if (addr[i] == a && names[i][0] == '0') {
				snprintf(names[i], 64, "%.63s", sym);
				left--;
			}
	}
	fclose(f);
}
