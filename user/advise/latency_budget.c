/* The latency-budget advisor's arithmetic (latency_budget.h). */
#include "advise/latency_budget.h"

uint64_t lb_latency(const struct lb_state *s)
{
	return s->measured ? s->measured_ns : s->declared_ns;
}

/* The PM QoS value that keeps the kept states and leaves out the others,
 * in whole microseconds as /dev/cpu_dma_latency takes it. */
static void qos(const struct lb_state *st, int n, struct lb_result *r)
{
	uint64_t kept_max = 0;
	int deepest_kept = -1;

	for (int k = 0; k < n; k++)
		if (st[k].enabled && !(r->disable >> k & 1)) {
			if (st[k].declared_ns > kept_max)
				kept_max = st[k].declared_ns;
			deepest_kept = k;
		}
	r->qos_us = (kept_max + 999) / 1000;
	r->qos_ok = true;
	r->qos_blocker = -1;
	for (int k = 0; k < n; k++) {
		if (!(r->disable >> k & 1))
			continue;
		if (k < deepest_kept || st[k].declared_ns <= r->qos_us * 1000) {
			r->qos_ok = false;
			r->qos_blocker = k;
			return;
		}
	}
}

void lb_advise(const struct lb_state *st, int n, uint64_t budget_ns, struct lb_result *r)
{
	int shallowest = -1;

	*r = (struct lb_result){ .deepest_kept = -1, .qos_blocker = -1, .predicted_declared = -1 };
	if (n > LB_MAX_STATES)
		n = LB_MAX_STATES;
	for (int k = 0; k < n && shallowest < 0; k++)
		if (st[k].enabled)
			shallowest = k;
	if (shallowest < 0)
		return;
	r->feasible = lb_latency(&st[shallowest]) <= budget_ns;
	for (int k = shallowest + 1; k < n; k++) {
		if (!st[k].enabled)
			continue;
		if (lb_latency(&st[k]) > budget_ns) {
			r->disable |= 1u << k;
			r->moved_entries += st[k].entries;
			r->moved_ns += st[k].time_ns;
		} else {
			r->deepest_kept = k;
		}
	}
	if (r->deepest_kept < 0)
		r->deepest_kept = shallowest;
	for (int k = 0; k < n; k++) {
		int to = k; /* where the state's periods go: itself, if kept */

		if (!st[k].enabled || !st[k].entries)
			continue;
		while (to > shallowest && (!st[to].enabled || (r->disable >> to & 1)))
			to--;
		if (lb_latency(&st[to]) > r->predicted_ns)
			r->predicted_ns = lb_latency(&st[to]);
		if (!st[to].measured && r->predicted_declared < 0)
			r->predicted_declared = to;
	}
	qos(st, n, r);
}
