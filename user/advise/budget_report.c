/* advise --latency-budget: lb_advise on a table's measured latencies, and
 * the cost of its proposal (budget_report.h). */
#include "advise/budget_report.h"

#include <string.h>

void budget_advise(const struct adv_table_in *t, uint64_t window_ns, uint64_t budget_ns,
		   double percentile, struct budget_report *b)
{
	uint64_t cpu_time = window_ns * (uint64_t)cpulist_count(&t->cpus), periods = 0;

	memset(b, 0, sizeof(*b));
	b->budget_ns = budget_ns;
	b->percentile = percentile;
	b->n = t->nr_states < LB_MAX_STATES ? t->nr_states : LB_MAX_STATES;
	for (int k = 0; k < b->n; k++) {
		const struct adv_state_in *s = &t->st[k];

		b->st[k] = (struct lb_state){
			.enabled = !s->disabled, .declared_ns = s->exit_ns,
			.measured = s->lat_count >= LB_MIN_SAMPLES,
			.measured_ns = adv_lat_quantile(s, percentile / 100),
			.entries = s->entries, .time_ns = s->time_ns };
		b->p50_ns[k] = adv_lat_median(s);
		b->slower[k] = s->lat_count >= LB_MIN_SAMPLES && s->exit_ns &&
			       b->p50_ns[k] > 2 * s->exit_ns;
	}
	lb_advise(b->st, b->n, budget_ns, &b->r);
	b->moved_share = cpu_time ? (double)b->r.moved_ns / (double)cpu_time : 0;
	/* the chosen x ideal matrix: periods whose ideal state goes */
	for (int k = 0; k < b->n; k++) {
		periods += t->st[k].entries;
		for (int j = 0; j < b->n; j++)
			if (b->r.disable >> j & 1)
				b->ideal_left_out += t->st[k].ideal[j];
	}
	b->ideal_left_out_share = periods ? (double)b->ideal_left_out / (double)periods : 0;
}
