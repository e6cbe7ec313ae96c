/* The packing section (record --packing): busy groups, spread time, cross-group
 * wakeups and migrations, top tasks; and the EAS context lines; table and JSON. */
#include <inttypes.h>
#include <jansson.h>
#include <string.h>

#include "render/render_pack.h"
#include "util/units.h"

void render_pack_table(FILE *f, const struct summary *s)
{
	const struct pack_summary *p = &s->pack;

	if (!p->enabled)
		return;
	fprintf(f, "\nPacking over %d %s groups (busy = at least one CPU not idle)\n  groups busy:",
		p->nr_groups, p->level);
	for (int k = 0; k < p->nr_slots; k++)
		fprintf(f, "  %d: %.1f%%", k,
			s->duration_ns ? 100.0 * (double)p->busy_ns[k] / (double)s->duration_ns : 0);
	fprintf(f, "\n  spread (2+ groups busy while the busy CPUs fit in one group of %u): %.1f%% "
		   "(%s)\n",
		p->max_group_cpus,
		s->duration_ns ? 100.0 * (double)p->spread_ns / (double)s->duration_ns : 0,
		ns_text(p->spread_ns));
	fprintf(f, "  busy time per group:");
	for (int g = 0; g < s->nr_groups; g++) {
		const struct group_summary *gs = &s->groups[g];
		uint64_t idle = gs->time_ns + gs->edge_idle_ns;

		if (strcmp(gs->level, p->level))
			continue;
		fprintf(f, "  %s %.1f%%", gs->name,
			s->duration_ns && idle < s->duration_ns
				? 100.0 * (double)(s->duration_ns - idle) / (double)s->duration_ns
				: 0.0);
	}
	fprintf(f, "\n  across groups: %" PRIu64 " wakeups (waker and wakee in different groups), "
		   "%" PRIu64 " migrations\n",
		p->cross_wakeups, p->cross_migrations);
	if (!p->nr_tasks)
		return;
	fprintf(f, "  top tasks by runtime:\n  %8s %-16s %10s", "pid", "comm", "total");
	for (int g = 0; g < s->nr_groups; g++)
		if (!strcmp(s->groups[g].level, p->level) && s->groups[g].index < 8)
			fprintf(f, " %10s", s->groups[g].name);
	fprintf(f, "\n");
	for (int i = 0; i < p->nr_tasks; i++) {
		fprintf(f, "  %8u %-16s %10s", p->tasks[i].pid, p->tasks[i].comm,
			ns_text(p->tasks[i].total_ns));
		for (int g = 0; g < s->nr_groups; g++)
			if (!strcmp(s->groups[g].level, p->level) && s->groups[g].index < 8)
				fprintf(f, " %10s", ns_text(p->tasks[i].group_ns[s->groups[g].index]));
		fprintf(f, "\n");
	}
}

json_t *pack_json(const struct summary *s)
{
	const struct pack_summary *p = &s->pack;
	json_t *busy, *tasks;

	if (!p->enabled)
		return json_null();
	busy = json_array();
	tasks = json_array();
	for (int k = 0; k < p->nr_slots; k++)
		json_array_append_new(busy, json_integer((json_int_t)p->busy_ns[k]));
	for (int i = 0; i < p->nr_tasks; i++) {
		json_t *per = json_array();

		for (int g = 0; g < p->nr_groups && g < 8; g++)
			json_array_append_new(per, json_integer((json_int_t)p->tasks[i].group_ns[g]));
		json_array_append_new(tasks, json_pack("{s:i,s:s,s:I,s:o}", "pid", (int)p->tasks[i].pid,
						       "comm", p->tasks[i].comm, "runtime_ns",
						       (json_int_t)p->tasks[i].total_ns,
						       "group_runtime_ns", per));
	}
	return json_pack("{s:s,s:o,s:I,s:i,s:I,s:I,s:I,s:o}", "level", p->level, "busy_groups_ns", busy, "spread_ns",
			 (json_int_t)p->spread_ns, "max_group_cpus", (int)p->max_group_cpus,
			 "cross_group_wakeups", (json_int_t)p->cross_wakeups, "cross_group_migrations",
			 (json_int_t)p->cross_migrations, "lost_updates", (json_int_t)p->lost_updates,
			 "top_tasks", tasks);
}

void render_eas_line(FILE *f, const struct summary *s)
{
	fprintf(f, "EAS: sched_energy_aware ");
	if (s->sched_energy_aware < 0)
		fprintf(f, "n/a");
	else
		fprintf(f, "%d", s->sched_energy_aware);
	fprintf(f, ", energy model %s", s->energy_model ? s->energy_model : "unknown");
	if (s->have_capacity) {
		fprintf(f, ", cpu_capacity");
		for (int c = 0; c < s->nr_cpus && c < 16; c++)
			fprintf(f, "%s%" PRId64, c ? "," : " ", s->cpus[c].capacity);
		if (s->nr_cpus > 16)
			fprintf(f, ",...");
	}
	fprintf(f, "\n");
}

void render_eas_pack(FILE *f, const struct summary *s)
{
	if (!s->pack.enabled)
		return;
	if (s->have_ou)
		fprintf(f, "  overutilized: %.1f%% of the window%s\n",
			s->duration_ns ? 100.0 * (double)s->overutilized_ns / (double)s->duration_ns : 0,
			s->sched_energy_aware <= 0 ? " (the tracepoint fires only with EAS on)" : "");
	if (s->have_util) {
		fprintf(f, "  utilization (root cfs_rq util_avg, time-weighted avg/max):");
		for (int c = 0; c < s->nr_cpus; c++)
			fprintf(f, " cpu%d %" PRIu64 "/%" PRIu64, s->cpus[c].cpu, s->cpus[c].util_avg,
				s->cpus[c].util_max);
		fprintf(f, "\n");
	}
}

json_t *eas_json(const struct summary *s)
{
	json_t *cap = json_array(), *util = json_array();

	for (int c = 0; c < s->nr_cpus; c++) {
		json_array_append_new(cap, s->cpus[c].capacity >= 0
						   ? json_integer((json_int_t)s->cpus[c].capacity)
						   : json_null());
		if (s->have_util)
			json_array_append_new(util, json_pack("{s:i,s:I,s:I}", "cpu", s->cpus[c].cpu,
							      "avg", (json_int_t)s->cpus[c].util_avg,
							      "max", (json_int_t)s->cpus[c].util_max));
	}
	return json_pack("{s:o,s:s,s:o,s:o,s:o}", "sched_energy_aware",
			 s->sched_energy_aware < 0 ? json_null() : json_integer(s->sched_energy_aware),
			 "energy_model", s->energy_model ? s->energy_model : "unknown", "cpu_capacity",
			 s->have_capacity ? cap : (json_decref(cap), json_null()), "overutilized_ns",
			 s->have_ou ? json_integer((json_int_t)s->overutilized_ns) : json_null(), "util",
			 s->have_util ? util : (json_decref(util), json_null()));
}
