/* CSV: one row per CPU and state (cpu "all" for totals), ns integers. */
#include <inttypes.h>

#include "render.h"

static void row(FILE *f, const char *cpu, const struct state_summary *st)
{
	/* state names never contain commas or quotes in the kernel; quote anyway */
	fprintf(f, "%s,%d,\"%s\",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
		   ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
		   ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",",
		cpu, st->index, st->name, st->exit_latency_ns, st->target_residency_ns, st->entries,
		st->time_ns, st->min_ns, st->avg_ns, st->max_ns, st->p50_ns, st->p90_ns, st->p99_ns,
		st->above, st->below, st->below_qos, st->poll_limit);
	if (st->have_miss)
		fprintf(f, "%" PRIu64 ",%" PRIu64 ",", st->miss_above, st->miss_below);
	else
		fprintf(f, ",,");
	if (st->kernel.valid)
		fprintf(f, "%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n",
			st->kernel.usage, st->kernel.time_ns, st->kernel.above, st->kernel.below,
			st->kernel.rejected);
	else
		fprintf(f, ",,,,\n");
}

void render_csv(FILE *f, const struct summary *s)
{
	fprintf(f, "cpu,state,name,exit_latency_ns,target_residency_ns,entries,time_ns,min_ns,avg_ns,"
		   "max_ns,p50_ns,p90_ns,p99_ns,above,below,below_qos,poll_limit,miss_above,"
		   "miss_below,k_usage,k_time_ns,k_above,k_below,k_rejected\n");
	for (int c = 0; c < s->nr_cpus; c++) {
		char cpu[16];

		snprintf(cpu, sizeof(cpu), "%d", s->cpus[c].cpu);
		for (int i = 0; i < s->cpus[c].nr_states; i++)
			row(f, cpu, &s->cpus[c].states[i]);
	}
	for (int i = 0; i < s->totals.nr_states; i++)
		row(f, "all", &s->totals.states[i]);
}
