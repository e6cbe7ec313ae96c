/* The PM QoS ledger of a window as rows (qos_summary.h). */
#include "model/qos_summary.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* cpuidle_select's rule: a state whose exit latency exceeds the limit is
 * never chosen. The deepest enabled one within value_us on cpu's table. */
static void deepest_reachable(struct qos_row *r, const struct cpuidle_cpu_info *info,
			      const struct cpulist *sel, int nr_cpus)
{
	const struct cpuidle_cpu_info *t = NULL;

	r->deepest = -1;
	if (r->value_us < 0 || !info)
		return;
	if (r->scope == QOS_SCOPE_RESUME) {
		if (r->cpu >= 0 && r->cpu < nr_cpus && info[r->cpu].nr_states)
			t = &info[r->cpu];
	} else {
		for (int c = 0; c < nr_cpus && !t; c++)
			if ((!sel || cpulist_has(sel, c)) && info[c].nr_states)
				t = &info[c];
	}
	if (!t || t->nr_states > IS_MAX_STATES)
		return;
	for (int i = 0; i < t->nr_states; i++) {
		const struct cpuidle_state_info *st = &t->states[i];

		if (!st->disabled && st->exit_latency_ns <= (uint64_t)r->value_us * 1000) {
			r->deepest = i;
			snprintf(r->deepest_name, sizeof(r->deepest_name), "%s", st->name);
		}
	}
}

static int64_t rel(uint64_t t, uint64_t start)
{
	return (int64_t)(t - start);
}

int qos_summary_build(struct summary_qos *q, const struct qos_ledger *ledger,
		      const struct idle_raw *raw, const struct cpuidle_cpu_info *info,
		      const struct cpulist *sel, uint64_t start_ns, uint64_t stop_ns, uint64_t lost)
{
	int nr_cpus = raw ? raw->nr_cpus : 0;

	memset(q, 0, sizeof(*q));
	q->lost = lost;
	if (raw && raw->nr_qos_slots > 0) {
		q->other_periods = raw->qos_cost[0].periods;
		q->other_idle_ns = raw->qos_cost[0].idle_ns;
	}
	if (!ledger)
		return 0;
	q->kept = true;
	q->dropped = ledger->dropped;
	q->unslotted = ledger->unslotted;
	q->unmatched = ledger->unmatched;
	q->rows = calloc((size_t)ledger->nr + 1, sizeof(*q->rows));
	if (!q->rows)
		return -ENOMEM;
	for (int i = 0; i < ledger->nr; i++) {
		const struct qos_entry *e = &ledger->e[i];
		struct qos_row *r;

		/* what never limited, ended before the window or began after it */
		if (!e->limited || (!e->open && e->until_ns < start_ns) || e->since_ns > stop_ns)
			continue;
		r = &q->rows[q->nr++];
		r->scope = e->scope;
		r->cpu = e->cpu;
		r->pid = e->pid;
		memcpy(r->comm, e->comm, sizeof(r->comm));
		r->requests = e->requests;
		r->value_us = e->value_us;
		r->before = e->before;
		/* closed after the stop: open as the window saw it */
		r->open = e->open || e->until_ns > stop_ns;
		r->since_known = e->first_ns != 0;
		r->since_ns = r->since_known ? rel(e->first_ns, start_ns) : 0;
		r->value_since_known = e->since_ns != 0;
		r->value_since_ns = r->value_since_known ? rel(e->since_ns, start_ns) : 0;
		r->until_ns = r->open ? -1 : rel(e->until_ns, start_ns);
		r->changes = e->changes;
		/* never behind a CPU's limit: nothing forced (known); past the
		 * slots: its periods are in other's (unknown) */
		r->charged = e->slot != UINT32_MAX;
		if (e->slot && e->slot < QOS_SLOTS && raw && (int)e->slot < raw->nr_qos_slots) {
			r->forced_periods = raw->qos_cost[e->slot].periods;
			r->forced_idle_ns = raw->qos_cost[e->slot].idle_ns;
		}
		deepest_reachable(r, info, sel, nr_cpus);
	}
	return 0;
}

void qos_summary_free(struct summary_qos *q)
{
	free(q->rows);
	memset(q, 0, sizeof(*q));
}
