/* advise's output: the model the command fills (per state table, the
 * advisor's results) and its JSON document, table and `ab` settings. */
#ifndef IDLESCOPE_RENDER_ADVISE_H
#define IDLESCOPE_RENDER_ADVISE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "advise/advise.h"
#include "advise/advise_input.h"
#include "advise/budget_report.h"
#include "advise/energy_model.h"
#include "advise/haltpoll_advise.h"
#include "render/render.h"

#define ADVISE_SCHEMA "idlescope-advise/1"

/* One state table: its input and what advise_table made of it. */
struct advise_table_report {
	const struct adv_table_in *in;
	/* per state: the energy model's have_power, power, have_tr, tr_energy */
	struct adv_state st[ADV_MAX_STATES];
	struct adv_result res[ADV_MAX_STATES];
	struct adv_energy e;
	double periods;                  /* the histograms' periods, all states */
	double misses_current;           /* model above + below, all states */
	double misses_proposed;          /* the same under every proposal */
	int cluster;                     /* the energy model's cluster, -1 none */
	char energy_note[160];           /* why there is no energy: "" when e is shown */
	struct budget_report budget;     /* with --latency-budget */
	/* with --poll-budget or --poll-latency, where halt-polling was counted */
	bool have_hp;
	struct hp_advice hp;
	struct hp_advice_in hp_in;
};

struct advise_report {
	const char *source;              /* the file, or "live, 2s window" */
	const struct adv_input *in;      /* kernel, cpuidle, duration, skipped CPUs */
	bool measured_exit;              /* --exit-latency measured */
	bool have_em;                    /* --energy-model */
	const char *em_path;
	int em_clusters;
	const struct kernel_em *kem;     /* the kernel's (debugfs), or NULL */
	bool have_budget;                /* --latency-budget */
	uint64_t budget_ns;
	double percentile;
	bool have_poll;                  /* --poll-budget or --poll-latency */
	enum hp_goal poll_goal;
	double poll_target;              /* budget share (0..1] or latency target ns */
	int nr_tables;
	const struct advise_table_report *tables;
};

/* The "idlescope-advise/1" document (caller json_decref's), NULL without
 * memory. */
json_t *advise_report_json(const struct advise_report *r);

/* The report in fmt (FMT_JSON, else the table). Returns 0, or -1 when its
 * JSON could not be made. */
int render_advise(FILE *f, enum out_format fmt, const struct advise_report *r);

/* The --latency-budget proposal as `ab --set-from` lines (budget_write_ab),
 * or with --poll-budget/--poll-latency the guest_halt_poll_ns line.
 * Returns the number of lines (0: nothing to change), -1 without memory. */
int render_advise_ab(FILE *f, const struct advise_report *r);

#endif
