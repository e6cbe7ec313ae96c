/* The halt-polling advisor (advise --poll-budget, --poll-latency): the
 * haltpoll governor's ceiling guest_halt_poll_ns for a CPU-time budget or a
 * wake-latency target, from the waits a recording saw. Pure arithmetic over
 * histograms (docs/advise.md#halt-polling), unit-tested by hand
 * (tests/unit/test_haltpoll_advise.c), and its inputs from the summary. */
#ifndef IDLESCOPE_HALTPOLL_ADVISE_H
#define IDLESCOPE_HALTPOLL_ADVISE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "advise/advise.h"
#include "util/cpulist.h"

/* What a summary's "haltpoll" object gives for a set of CPUs. */
struct hp_advice_in {
	bool known;                  /* halt-polling was counted */
	bool have_param;             /* guest_halt_poll_ns was read (not a replay) */
	uint64_t guest_halt_poll_ns;
	int nr_cpus;                 /* of the set, with halt-polling figures */
	uint64_t polls, poll_ns, woken, timed_out, saved_ns;
	uint64_t grow, shrink;       /* the limit's moves */
};

/* Sums the "haltpoll" object's CPUs that are in cpus. Returns 0 (known
 * false when the object is null), or -1 with a reason in err. */
int hp_advice_load(const json_t *doc, const struct cpulist *cpus, struct hp_advice_in *in,
		   char *err, size_t errlen);

/* The waits: each a time from an idle entry to its wakeup. A woken poll is
 * one; a timed-out poll is not (its wait goes on in the halt after it), so
 * the POLL histogram loses its timed_out longest periods; each halt is one,
 * its residency taken as the wait (short of the poll before it, at most the
 * limit then). out has room for n_poll + n_halt bins; returns its bins. */
int hp_waits(const struct hist_bin *poll, int n_poll, double timed_out,
	     const struct hist_bin *halt, int n_halt, struct hist_bin *out);

/* With the ceiling L and the limit held there: a wait w < L is caught
 * after polling w, a longer one polls L then halts. */
double hp_poll_time(const struct adv_dist *w, uint64_t limit_ns);
double hp_caught(const struct adv_dist *w, uint64_t limit_ns);

/* The largest ceiling whose poll time is at most budget_ns (the smallest
 * one catching every wait when all fit). */
uint64_t hp_limit_for_budget(const struct adv_dist *w, double budget_ns);
/* The smallest ceiling catching share (0..1] of the waits. */
uint64_t hp_limit_for_share(const struct adv_dist *w, double share);

enum hp_goal { HP_GOAL_BUDGET, HP_GOAL_LATENCY };

struct hp_advice {
	enum hp_goal goal;
	double waits;                /* the waits' count */
	uint64_t halt_exit_ns;       /* a halt's wake cost, per wait it ends */
	bool halt_fits;              /* latency: that cost meets the target: no polling needed */
	uint64_t proposed_ns;        /* guest_halt_poll_ns */
	double poll_ns, caught, saved_ns; /* predicted at the proposal */
	bool have_current;           /* and at the current guest_halt_poll_ns */
	double cur_poll_ns, cur_caught;
	/* latency: the recording's limit shrank at least as often as it grew,
	 * so it did not stay at its ceiling as the model takes it; with
	 * guest_halt_poll_allow_shrink=N it would */
	bool hold_limit;
};

/* goal BUDGET: target is the poll time allowed (ns, over the window and the
 * CPUs); LATENCY: target is the wake latency (ns) that share of the waits
 * must meet: a caught wait costs nothing, a halted one halt_exit_ns. */
void hp_advise(const struct adv_dist *w, uint64_t halt_exit_ns, enum hp_goal goal, double target,
	       double share, const struct hp_advice_in *in, struct hp_advice *out);

#endif
