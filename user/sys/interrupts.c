/* IRQ action names from /proc/interrupts, for the wakeup report's IRQ rows
 * (the caller hands irq_name to summary_build). */
#include "sys/interrupts.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

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
