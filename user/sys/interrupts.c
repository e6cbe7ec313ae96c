/* IRQ action names from /proc/interrupts, for the wakeup report's IRQ rows
 * (the caller hands irq_name to summary_build), and each CPU's interrupt
 * count (info --costs, where no cpuidle driver counts idle periods). */
#include "sys/interrupts.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A trigger-type column: x86 "IO-APIC 1-edge", "PCI-MSI 49152-edge",
 * arm64 GIC "27 Level", "Edge". */
static bool is_trigger(const char *tok)
{
	return strcasestr(tok, "edge") || strcasestr(tok, "level") || strcasestr(tok, "fasteoi");
}

/* Names found before: `top` names its IRQ rows at every interval, and each
 * open of /proc/interrupts costs the machine an RCU callback (the path's
 * dentries), whose grace period wakes an idle CPU and keeps this one's tick
 * on (seen in the haltpoll guest: rcu_preempt woken on the other CPU every
 * interval). An IRQ /proc/interrupts does not list is asked again after
 * IRQ_NAME_RETRY_S. */
#define IRQ_NAME_CACHE 64
#define IRQ_NAME_RETRY_S 30
static struct {
	unsigned int irq;
	char name[64];
	time_t asked;
} irq_cache[IRQ_NAME_CACHE];
static int irq_cached;

void irq_name(unsigned int irq, char *buf, size_t len)
{
	struct timespec now;
	int i;

	clock_gettime(CLOCK_MONOTONIC, &now);
	for (i = 0; i < irq_cached && irq_cache[i].irq != irq; i++)
		;
	if (i < irq_cached &&
	    (irq_cache[i].name[0] || now.tv_sec - irq_cache[i].asked < IRQ_NAME_RETRY_S)) {
		snprintf(buf, len, "%s", irq_cache[i].name);
		return;
	}
	irq_name_in("/proc/interrupts", irq, buf, len);
	if (i == irq_cached && irq_cached < IRQ_NAME_CACHE)
		irq_cached++;
	if (i < irq_cached) {
		irq_cache[i].irq = irq;
		irq_cache[i].asked = now.tv_sec;
		snprintf(irq_cache[i].name, sizeof(irq_cache[i].name), "%s", buf);
	}
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

/* The header's CPU numbers ("CPU0 CPU1 ... CPU7"): count, or -1. */
static int header_cpus(char *line, int *col, int max_cols)
{
	int n = 0;

	for (char *tok = strtok(line, " \t\n"); tok; tok = strtok(NULL, " \t\n")) {
		if (strncmp(tok, "CPU", 3) || n >= max_cols)
			return -1;
		col[n++] = atoi(tok + 3);
	}
	return n;
}

int interrupts_per_cpu_in(const char *path, uint64_t *out, int max_cpus)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0;
	int ncol = -1, *col = calloc((size_t)max_cpus, sizeof(*col));
	uint64_t *row = calloc((size_t)max_cpus, sizeof(*row));

	if (!f || !col || !row)
		goto out;
	memset(out, 0, (size_t)max_cpus * sizeof(*out));
	if (getline(&line, &cap, f) < 0 || (ncol = header_cpus(line, col, max_cpus)) <= 0) {
		ncol = -1;
		goto out;
	}
	while (getline(&line, &cap, f) >= 0) {
		char *p = strchr(line, ':'), *end;
		int i;

		if (!p)
			continue;
		p++;
		/* a row counts only with a number in every CPU column (ERR and
		 * MIS have one total) */
		for (i = 0; i < ncol; i++) {
			row[i] = strtoull(p, &end, 10);
			if (end == p || (*end != ' ' && *end != '\n' && *end != '\0'))
				break;
			p = end;
		}
		if (i < ncol)
			continue;
		for (i = 0; i < ncol; i++)
			if (col[i] >= 0 && col[i] < max_cpus)
				out[col[i]] += row[i];
	}
out:
	free(line);
	free(col);
	free(row);
	if (f)
		fclose(f);
	return ncol;
}
