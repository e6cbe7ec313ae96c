/* The governor-miss section (render_gov.h). */
#include "render/render_gov.h"

#include <inttypes.h>

#include "model/wake_names.h"
#include "util/units.h"

/* "123 (45%)" of n, "-" when there is nothing to share */
static const char *share(char *buf, size_t len, uint64_t v, uint64_t n)
{
	if (!n)
		snprintf(buf, len, "%" PRIu64, v);
	else
		snprintf(buf, len, "%" PRIu64 " (%.0f%%)", v, 100.0 * (double)v / (double)n);
	return buf;
}

static void state_row(FILE *f, const char *cpu, const struct state_summary *st)
{
	const struct gov_split *g = &st->gov;
	uint64_t above = g->above_near + g->above_unannounced;
	uint64_t below = g->below_tick + g->below_history + g->below_timer;
	char a[32], b[32], c[32], d[32], e[32];

	fprintf(f, "  %-4s %-14s %8" PRIu64 " %8" PRIu64 " %12s %12s %8" PRIu64 " %12s %12s %12s\n",
		cpu, st->name, g->known, above, share(a, sizeof(a), g->above_near, above),
		share(b, sizeof(b), g->above_unannounced, above), below,
		share(c, sizeof(c), g->below_tick, below), share(d, sizeof(d), g->below_history, below),
		share(e, sizeof(e), g->below_timer, below));
}

/* row() for each CPU's and, with several CPUs, the totals' states that
 * have known periods. */
static void known_rows(FILE *f, const struct summary *s,
		       void (*row)(FILE *, const char *, const struct state_summary *))
{
	for (int c = 0; c < s->nr_cpus; c++) {
		char cpu[16];

		snprintf(cpu, sizeof(cpu), "%d", s->cpus[c].cpu);
		for (int i = 0; i < s->cpus[c].nr_states; i++)
			if (s->cpus[c].states[i].gov.known)
				row(f, cpu, &s->cpus[c].states[i]);
	}
	if (s->nr_cpus > 1)
		for (int i = 0; i < s->totals.nr_states; i++)
			if (s->totals.states[i].gov.known)
				row(f, "all", &s->totals.states[i]);
}

/* The causes of the woken-early periods, "ipi-resched 12, irq 3", and the
 * timers that ended periods against what the governor was told. */
static void wake_row(FILE *f, const char *cpu, const struct state_summary *st)
{
	const struct gov_split *g = &st->gov;
	uint64_t compared = g->timer_known - g->timer_tick_first;
	uint64_t as_told = compared - g->timer_later - g->timer_earlier;
	char causes[256] = "", mean[32] = "-";
	size_t n = 0;

	for (int k = 0; k < WAKE_NR_KINDS && n < sizeof(causes); k++)
		if (g->above_cause[k])
			n += (size_t)snprintf(causes + n, sizeof(causes) - n, "%s%s %" PRIu64,
					      n ? ", " : "", wake_kind_name(k), g->above_cause[k]);
	if (compared)
		fmt_ns(mean, sizeof(mean), g->timer_err_sum_ns / compared);
	fprintf(f, "  %-4s %-14s %8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %8" PRIu64
		   " %10s  %s\n",
		cpu, st->name, g->timer_known, as_told, g->timer_tick_first, g->timer_later,
		g->timer_earlier, mean, causes[0] ? causes : "-");
}

static void render_gov_wakes(FILE *f, const struct summary *s)
{
	fprintf(f, "\nWhat ended them: timers against the next event the governor was told of, "
		   "and the woken-early periods' causes\n");
	fprintf(f, "  %-4s %-14s %8s %8s %8s %8s %8s %10s  %s\n", "cpu", "state", "by-timer",
		"as-told", "tick", "later", "earlier", "mean-err", "woken-early by cause");
	known_rows(f, s, wake_row);
	fprintf(f, "  by-timer = periods an hrtimer ended: as-told, at the next event the governor "
		   "was told of (within 1 us); tick, the tick kept on came first (the sleep length "
		   "leaves it out); later or earlier than it; mean-err, the mean |difference| of "
		   "the others.\n");
}

void render_gov_table(FILE *f, const struct summary *s)
{
	if (!summary_classified(s))
		return;
	if (!s->gov_inputs) {
		fprintf(f, "\nWhy the governor missed: not known here (%s)\n",
			s->gov_why ? s->gov_why : "not asked");
		return;
	}
	fprintf(f, "\nWhy the governor missed (periods whose inputs were seen; too shallow "
		   "for PM QoS is qos above)\n");
	fprintf(f, "  %-4s %-14s %8s %8s %12s %12s %8s %12s %12s %12s\n", "cpu", "state", "known",
		"deep", "timer-near", "woken-early", "shallow", "tick-kept", "pred-short",
		"timer-moved");
	known_rows(f, s, state_row);
	fprintf(f, "  deep = too deep: timer-near, the next timer was due before the state paid off "
		   "(the governor knew); woken-early, a wakeup came before it.\n  shallow = too "
		   "shallow, not for PM QoS: tick-kept, the tick stayed on; pred-short, the next timer "
		   "was far enough, the governor predicted short; timer-moved, it was near but did not "
		   "end the period.\n");
	if (s->wake_enabled)
		render_gov_wakes(f, s);
}
