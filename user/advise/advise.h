/* The threshold and energy advisor's arithmetic, as pure functions over
 * residency distributions: no I/O, so unit tests check it by hand. */
#ifndef IDLESCOPE_ADVISE_H
#define IDLESCOPE_ADVISE_H

#include <stdbool.h>
#include <stdint.h>

#include "model/stats.h" /* struct hist_bin: one histogram bucket */

/* Ascending, non-overlapping buckets. */
struct adv_dist {
	int n;
	const struct hist_bin *bins;
};

#define ADV_MAX_STATES 10

struct adv_state {
	bool enabled;
	uint64_t exit_ns;   /* the exit latency the below rule subtracts */
	uint64_t target_ns; /* current target residency */
	struct adv_dist dist; /* residency of the periods entered in this state */
	/* energy model; have_power false: the state is not in the model */
	bool have_power, have_tr;
	double power;       /* the model's power unit */
	double tr_energy;   /* entry + exit energy, power unit x us */
};

enum adv_break_even { ADV_BE_UNKNOWN, ADV_BE_AT, ADV_BE_NEVER };

struct adv_result {
	int prev;              /* the next shallower enabled state, -1 none */
	double above, below;   /* model counts under the current thresholds */
	bool have_proposal;    /* a deeper state with a shallower enabled one */
	uint64_t proposed_ns;  /* target residency minimising misses(T) */
	double misses_current; /* misses(T): above(s) + below(prev), current T */
	double misses_proposed;
	enum adv_break_even be;
	double break_even_ns;  /* ADV_BE_AT: vs prev */
};

struct adv_energy {
	bool valid;             /* every state holding periods has a power */
	int missing_state;      /* !valid: the first such state */
	bool have_break_even;   /* every deeper enabled state has a break-even */
	/* power unit x seconds */
	double measured;        /* the states the governor chose */
	double current;         /* perfect prediction, current thresholds */
	double proposed;        /* perfect prediction, proposed thresholds */
	double break_even;      /* perfect prediction, thresholds at break-even */
};

/* Periods with a residency < x (interpolated inside a bucket). */
double adv_count_lt(const struct adv_dist *d, uint64_t x);
double adv_total(const struct adv_dist *d);

/* The kernel's rule on the distributions, with the thresholds targets[]:
 * above[k] = periods in k shorter than targets[k], when a shallower state
 * is enabled; below[k] = the other periods in k with r > exit(k) and
 * r - exit(k) >= targets[next enabled deeper state]. */
void adv_classify(const struct adv_state *st, int n, const uint64_t *targets, double *above,
		  double *below);

/* The target residency of state s in [lower, inf) minimising
 * above(s) + below(prev(s)), the other thresholds held at their current
 * values; ties go to the value closest to the current one, then the
 * smaller. Returns false when s has no enabled shallower state. */
bool adv_propose(const struct adv_state *st, int n, int s, uint64_t lower, uint64_t *best,
		 double *misses_best, double *misses_current);

/* Energy of the distributions when every period goes to the deepest
 * enabled state whose threshold (targets[]) it reaches, the shallowest
 * enabled state otherwise; power unit x s. */
double adv_energy_ideal(const struct adv_state *st, int n, const uint64_t *targets);

/* Everything for one state table: res[n], e. lower_ns[k] is the smallest
 * target residency the proposal may take for state k. */
void advise_table(const struct adv_state *st, int n, const uint64_t *lower_ns,
		  struct adv_result *res, struct adv_energy *e);

#endif
