/* Snapshots of a live session as Prometheus text (cmd/live_prom.h): the
 * maps read, the summary built and held monotonic, the observer's cost
 * added, and render/prom.c writes the families. */
#include "cmd/live_prom.h"

#include <errno.h>
#include <stdlib.h>

#include "session/self_cost.h"
#include "session/snapshot.h"
#include "util/clock.h"

int live_prom_init(struct live_prom *p, struct live *l, const struct cpulist *sel, uint64_t start,
		   const struct prom_scrape *how)
{
	size_t n = (size_t)l->topo->nr_possible;

	p->live = l;
	p->sel = sel;
	p->start = start;
	p->how = *how;
	p->no_counters = calloc(n * IS_MAX_STATES, sizeof(*p->no_counters));
	p->busy_prev = calloc(n, sizeof(*p->busy_prev));
	return p->no_counters && p->busy_prev ? 0 : -ENOMEM;
}

void live_prom_free(struct live_prom *p)
{
	free(p->no_counters);
	free(p->busy_prev);
	p->no_counters = NULL;
	p->busy_prev = NULL;
}

/* What the model holds for a report, adjusted for counters that must not go
 * back: a cause still pending at this instant is left out of its cause (it
 * gets its real cause later), in the CPU's counts and in the totals, and
 * busy time is held at its last value when the in-flight estimate of this
 * instant reads lower. */
static void keep_monotonic(struct live_prom *p, struct summary *s, const struct idle_raw *raw)
{
	for (int i = 0; i < s->nr_cpus; i++) {
		struct cpu_summary *cs = &s->cpus[i];
		const struct idle_cpu_slot *slot = &raw->slots[cs->cpu];

		if (cs->wake.in_flight) {
			int k = wake_pending_kind(slot);

			cs->wake.count[k]--;
			cs->wake.early[k] -= slot->wake_early;
			cs->wake.in_flight = 0;
			s->totals.wake.count[k]--;
			s->totals.wake.early[k] -= slot->wake_early;
			s->totals.wake.in_flight--;
		}
		if (cs->busy_ns < p->busy_prev[cs->cpu])
			cs->busy_ns = p->busy_prev[cs->cpu];
		p->busy_prev[cs->cpu] = cs->busy_ns;
	}
}

int live_prom_write(struct live_prom *p, struct summary *s, const struct idle_raw *raw,
		    uint64_t t0, FILE *f)
{
	static struct self_cost self;
	struct prom_scrape how = p->how;

	keep_monotonic(p, s, raw);
	self_cost_read(&p->live->sess, &self);
	how.s = s;
	how.self = &self;
	how.version = IDLESCOPE_VERSION;
	how.scrape_ns = idle_now_ns() - t0;
	return prom_write(f, &how) ? -EIO : 0;
}

/* The counted window ends when the CPUs' and groups' counters had been read
 * (raw.read_ns): every period it counts ended before that. */
int live_prom_snapshot(struct live_prom *p, FILE *f)
{
	struct live *l = p->live;
	uint64_t t0 = idle_now_ns();
	struct idle_raw raw;
	struct summary s = { .topo = l->topo, .idle_attach = l->sess.idle_attach,
			     .miss_attach = l->sess.have_idle_miss ? l->sess.miss_attach : NULL,
			     /* no detail rows: they need /proc/kallsyms on every snapshot */
			     .wake_enabled = false, .missing_events = l->sess.missing,
			     .gov_inputs = l->sess.gov, .gov_why = l->sess.gov_why };
	struct window_capture w = { .start_ns = p->start, .info = l->info,
				    .groups = l->groups.nr_groups ? &l->groups : NULL,
				    /* record follows hotplug: offline time is not busy */
				    .hotplug = l->o.track_hotplug ? &l->hotplug : NULL,
				    .k_start = p->no_counters, .k_end = p->no_counters };
	int err;

	cpuidle_read_system(&l->sys); /* the governor may change meanwhile */
	s.sys = l->sys;
	if ((err = idle_session_read(&l->sess, &raw)))
		return err;
	w.stop_ns = raw.read_ns;
	w.raw = &raw;
	w.ledger = l->sess.ledger;
	w.qos_lost = idle_session_qos_lost(&l->sess);
	err = summary_build(&s, &w, p->sel) ? -ENOMEM : live_prom_write(p, &s, &raw, t0, f);
	summary_free(&s);
	idle_raw_free(&raw);
	return err;
}
