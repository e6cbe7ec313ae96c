/* The Prometheus text exposition (format 0.0.4) of the summary model, for
 * `idlescope serve` and `record --format prom`: a pure function of its input, so it is unit-tested
 * against hand-written text and its size per CPU is held to a budget. */
#ifndef IDLESCOPE_PROM_H
#define IDLESCOPE_PROM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "model/model.h"

#define PROM_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

/* Bucket bounds of the histograms: powers of 4 ns from 2^8 to 2^32, each an
 * exact boundary of the quarter-octave BPF histogram (include/hist.h). */
#define PROM_HIST_MIN_LOG2 8
#define PROM_HIST_MAX_LOG2 32

struct self_cost;

struct prom_scrape {
	const struct summary *s; /* counters since the attach: start_ns .. now */
	const char *version;
	bool wake;           /* wakeup attribution loaded: the wakeup families */
	bool no_timers;      /* --without timers: no timer lateness family */
	/* --per-cpu-histograms: the idle duration and timer lateness histograms
	 * per CPU and state; otherwise per state over the selected CPUs
	 * (s->totals), the same family names without the cpu label */
	bool cpu_hist;
	/* --per-cpu-detail: the wakeup counters per CPU (otherwise per cause over
	 * the selected CPUs) and the state parameters of each CPU */
	bool cpu_detail;
	/* --group-histograms: each group's all-idle duration histogram (16
	 * series per group); with every topology level on by default there is
	 * a group per SMT core, so they are opt-in */
	bool group_hist;
	uint64_t scrape_ns;  /* time taken to read the maps and build s */
	/* the observer's own cost (programs, maps, process), or NULL for none */
	const struct self_cost *self;
	/* for node_exporter's textfile collector (record --format prom): the
	 * process families as idlescope_process_*, since node_exporter serves
	 * its own process_* and drops a family of the same name from a file */
	bool textfile;
};

/* Writes every family with # HELP and # TYPE. By default the series per CPU
 * are the state counters and busy time only (4 per state + 1, the budget in
 * tests/unit/test_prom.c); both flags on give every family per CPU, as
 * before they existed. Counters come only from the cumulative BPF counters
 * (completed periods), so they never go backwards between two snapshots of
 * one session. The caller keeps busy_ns monotonic and leaves a
 * still-pending wakeup cause out of the unknown counts, the CPU's and the
 * totals' (the model counts it as unknown until its real cause arrives).
 * Returns 0 or -1 on a write error. */
int prom_write(FILE *f, const struct prom_scrape *p);

/* ns as seconds, exactly: "0", "1.5", "0.000000255". */
const char *prom_seconds(char *buf, size_t len, uint64_t ns);
/* A label value with \, " and newline escaped. */
const char *prom_label(char *buf, size_t len, const char *v);

#endif
