/* The Prometheus text of a live session, one implementation for `serve`
 * (each scrape, or each -i snapshot) and `record --format prom` (the
 * textfile, rewritten each -i interval and at the end): counters since the
 * window's start that never go back between two snapshots. */
#ifndef IDLESCOPE_LIVE_PROM_H
#define IDLESCOPE_LIVE_PROM_H

#include <stdint.h>
#include <stdio.h>

#include "render/prom.h"
#include "session/live.h"

struct live_prom {
	struct live *live;
	const struct cpulist *sel;
	uint64_t start;           /* the window's start: counters run from here */
	struct prom_scrape how;   /* the flags; s, version, scrape_ns and self set per write */
	struct cpuidle_counters *no_counters; /* all invalid: no sysfs cross-check */
	uint64_t *busy_prev;      /* [nr_possible]: busy seconds never go back */
};

/* Tables for l's possible CPUs. Returns 0 or -ENOMEM. */
int live_prom_init(struct live_prom *p, struct live *l, const struct cpulist *sel, uint64_t start,
		   const struct prom_scrape *how);
/* Reads the maps now and writes every family to f. Returns 0 or -errno. */
int live_prom_snapshot(struct live_prom *p, FILE *f);
/* Writes an already built summary s of the maps raw (record's own, at the
 * end), made monotonic against the earlier snapshots; t0 is when the read
 * began. Returns 0 or -EIO. */
int live_prom_write(struct live_prom *p, struct summary *s, const struct idle_raw *raw,
		    uint64_t t0, FILE *f);
void live_prom_free(struct live_prom *p);

#endif
