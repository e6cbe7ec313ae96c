/* The latency-budget advisor (advise --latency-budget): which idle states
 * to leave out, or which PM QoS CPU latency to hold, so that the exit
 * latency of the states left stays within a budget, and what that costs in
 * time spent shallower. Pure arithmetic over one state table, unit-tested
 * by hand (tests/unit/test_latency_budget.c). */
#ifndef IDLESCOPE_LATENCY_BUDGET_H
#define IDLESCOPE_LATENCY_BUDGET_H

#include <stdbool.h>
#include <stdint.h>

#define LB_MAX_STATES 10

struct lb_state {
	bool enabled;
	uint64_t declared_ns;  /* exit latency from the table (sysfs: whole us) */
	bool measured;         /* enough timer lateness samples for the quantile */
	uint64_t measured_ns;  /* the chosen quantile of the state's timer lateness */
	uint64_t entries, time_ns;
};

struct lb_result {
	bool feasible;         /* the shallowest enabled state fits the budget */
	uint32_t disable;      /* bit k: leave state k out (enabled states only) */
	int deepest_kept;      /* the deepest enabled state kept, -1 none */
	/* the same with /dev/cpu_dma_latency: governors skip states whose
	 * declared exit latency exceeds it (menu stops at the first one), so it
	 * works when every left-out state is deeper than every kept one and
	 * declares more than all of them */
	bool qos_ok;
	uint64_t qos_us;
	int qos_blocker;       /* !qos_ok: the left-out state QoS cannot leave out */
	/* the periods and time of the left-out states: under the proposal
	 * they go to shallower states */
	uint64_t moved_entries, moved_ns;
	/* the largest latency of the kept states that will have periods
	 * (their own, or a left-out deeper state's, which go to the deepest
	 * kept state shallower than it): a bound of the quantile afterwards (a
	 * mixture's quantile is at most its parts' largest) */
	uint64_t predicted_ns;
	/* a state that will hold periods whose latency is only declared (too
	 * few timer-ended periods to measure): then predicted_ns is the
	 * table's promise for it, not a measurement; -1 none */
	int predicted_declared;
};

/* A state's latency for the budget: measured where it is, else declared. */
uint64_t lb_latency(const struct lb_state *s);

void lb_advise(const struct lb_state *st, int n, uint64_t budget_ns, struct lb_result *r);

#endif
