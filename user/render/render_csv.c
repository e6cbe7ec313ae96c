/* CSV: one row per CPU and state (cpu "all" for totals), ns integers. */
#include <inttypes.h>

#include "render/render.h"

static void u64_field(FILE *f, bool known, uint64_t v)
{
	if (known)
		fprintf(f, "%" PRIu64, v);
	fputc(',', f);
}

/* Unknown or not applicable values are empty fields, never 0. */
static void row(FILE *f, const char *cpu, const struct state_summary *st)
{
	const struct kernel_delta *k = &st->kernel;

	/* state names never contain quotes in the kernel; quote for commas */
	fprintf(f, "%s,%d,\"%s\",", cpu, st->index, st->name);
	u64_field(f, st->classified, st->exit_latency_ns);
	u64_field(f, st->classified, st->target_residency_ns);
	fprintf(f, "%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
		   ",%" PRIu64 ",%" PRIu64 ",",
		st->entries, st->time_ns, st->min_ns, st->avg_ns, st->max_ns, st->p50_ns, st->p90_ns,
		st->p99_ns);
	u64_field(f, st->classified, st->above);
	u64_field(f, st->classified, st->below);
	u64_field(f, st->classified, st->below_qos);
	u64_field(f, st->poll_limit_known, st->poll_limit);
	u64_field(f, st->have_miss, st->miss_above);
	u64_field(f, st->have_miss, st->miss_below);
	u64_field(f, k->valid, k->usage);
	u64_field(f, k->valid, k->time_ns);
	u64_field(f, k->valid && k->has_miss_counters, k->above);
	u64_field(f, k->valid && k->has_miss_counters, k->below);
	if (k->valid && k->has_rejected)
		fprintf(f, "%" PRIu64, k->rejected);
	fputc(',', f);
	u64_field(f, st->have_fexit, st->fx_entered);
	u64_field(f, st->have_fexit, st->fx_rejected);
	if (st->have_fexit)
		fprintf(f, "%" PRIu64, st->fx_demoted);
	fputc('\n', f);
}

void render_csv(FILE *f, const struct summary *s)
{
	fprintf(f, "cpu,state,name,exit_latency_ns,target_residency_ns,entries,time_ns,min_ns,avg_ns,"
		   "max_ns,p50_ns,p90_ns,p99_ns,above,below,below_qos,poll_limit,miss_above,"
		   "miss_below,k_usage,k_time_ns,k_above,k_below,k_rejected,fx_entered,fx_rejected,fx_demoted\n");
	for (int c = 0; c < s->nr_cpus; c++) {
		char cpu[16];

		snprintf(cpu, sizeof(cpu), "%d", s->cpus[c].cpu);
		for (int i = 0; i < s->cpus[c].nr_states; i++)
			row(f, cpu, &s->cpus[c].states[i]);
	}
	for (int i = 0; i < s->totals.nr_states; i++)
		row(f, "all", &s->totals.states[i]);
	/* group rows: cpu column = the group's name, entries/time = its
	 * all-idle periods and time in that group state */
	for (int g = 0; g < s->nr_groups; g++) {
		const struct group_summary *gs = &s->groups[g];

		for (int i = 0; i < gs->nr_states; i++)
			fprintf(f, "%s,%d,\"%s\",,,%" PRIu64 ",%" PRIu64 ",,,,,,,,,,,,,,,,,,,,\n", gs->name,
				gs->states[i].index, gs->states[i].name, gs->states[i].periods,
				gs->states[i].time_ns);
	}
}
