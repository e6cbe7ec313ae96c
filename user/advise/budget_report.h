/* advise --latency-budget for one state table: the latencies the budget
 * sees, the states to leave out and what that costs (docs/advise.md); the
 * model render/render_budget.h writes. */
#ifndef IDLESCOPE_BUDGET_REPORT_H
#define IDLESCOPE_BUDGET_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "advise/advise_input.h"
#include "advise/latency_budget.h"

/* States with fewer timer lateness samples use their declared latency. */
#define LB_MIN_SAMPLES 10

struct budget_report {
	uint64_t budget_ns;
	double percentile;
	int n;                              /* the table's states, LB_MAX_STATES at most */
	struct lb_state st[LB_MAX_STATES];  /* each state's latency as the budget sees it */
	uint64_t p50_ns[LB_MAX_STATES];     /* its median timer lateness */
	bool slower[LB_MAX_STATES];         /* enough samples, p50 above twice the declared */
	struct lb_result r;                 /* lb_advise: what to leave out, its cost */
	double moved_share;                 /* r.moved_ns of the CPUs' time in the window */
	uint64_t ideal_left_out;            /* periods whose ideal state is left out */
	double ideal_left_out_share;        /* of all periods */
};

/* The advice for table t; window_ns is the summary's duration. */
void budget_advise(const struct adv_table_in *t, uint64_t window_ns, uint64_t budget_ns,
		   double percentile, struct budget_report *b);

#endif
