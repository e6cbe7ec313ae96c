/* Exit cost per CPU and state, and its total (docs/metrics.md#exit-cost). */
#include "render/render_exit.h"

#include <inttypes.h>

#include "util/units.h"

/* "1.23us  0.01%", or "-" in both columns where unknown. */
static void cost_cells(FILE *f, bool known, uint64_t ns, uint64_t window)
{
	if (known)
		fprintf(f, " %9s %7.3f%%", ns_text(ns), 100 * exit_cost_share(ns, window));
	else
		fprintf(f, " %9s %8s", "-", "-");
}

static void row(FILE *f, const char *who, const char *state, uint64_t entries,
		const struct exit_cost *e, uint64_t window)
{
	fprintf(f, "  %-4s %-16.16s %9" PRIu64, who, state, entries);
	cost_cells(f, e->declared_known, e->declared_ns, window);
	cost_cells(f, e->measured_known, e->measured_ns, window);
	fprintf(f, " %8" PRIu64, e->lateness_samples);
	if (e->early_known)
		fprintf(f, " %8" PRIu64, e->early);
	else
		fprintf(f, " %8s", "-");
	cost_cells(f, e->early_known, e->early_ns, window);
	fprintf(f, "\n");
}

static void cpu_rows(FILE *f, const char *who, const struct cpu_summary *cs, uint64_t window)
{
	for (int i = 0; i < cs->nr_states; i++)
		if (cs->states[i].entries)
			row(f, who, cs->states[i].name, cs->states[i].entries, &cs->states[i].exit,
			    window);
	row(f, who, "(all states)", cs->entries, &cs->exit, window);
}

void render_exit_table(FILE *f, const struct summary *s)
{
	const struct exit_cost *t = &s->totals.exit;
	uint64_t all = s->duration_ns * (uint64_t)s->nr_cpus;

	if (!s->totals.entries || !(t->declared_known || t->measured_known || t->early_known))
		return;
	fprintf(f, "\nExit cost: time spent leaving idle, share of the window (declared = entries x "
		   "exit latency; measured = entries x mean timer lateness, from the samples); early "
		   "= periods shorter than the target residency\n");
	fprintf(f, "  %-4s %-16s %9s %9s %8s %9s %8s %8s %8s %9s %8s\n", "cpu", "state", "entries",
		"declared", "share", "measured", "share", "samples", "early", "time", "share");
	for (int c = 0; c < s->nr_cpus; c++) {
		char who[16];

		snprintf(who, sizeof(who), "%d", s->cpus[c].cpu);
		cpu_rows(f, who, &s->cpus[c], s->duration_ns);
	}
	if (s->nr_cpus > 1)
		cpu_rows(f, "all", &s->totals, all);
	if (t->measured_known && t->measured_periods < s->totals.entries)
		fprintf(f, "  measured covers %.1f%% of the periods (the states with lateness "
			   "samples)\n", 100.0 * (double)t->measured_periods /
				       (double)s->totals.entries);
}
