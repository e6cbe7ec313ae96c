/* Human-readable tables: per CPU and in total, the state table, the
 * chosen x ideal matrix and the kernel cross-check. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "model/kernel_check.h"
#include "render/render.h"
#include "render/render_exit.h"
#include "render/render_freq.h"
#include "render/render_gov.h"
#include "render/render_qos.h"
#include "render/render_haltpoll.h"
#include "render/render_pack.h"
#include "render/render_wake.h"
#include "util/units.h"

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static void header(FILE *f, const struct summary *s)
{
	char dur[32];
	const struct topology *t = s->topo;

	fprintf(f, "idlescope %s: %s window, %d CPU%s, kernel %s\n",
		s->command ? s->command : "record", fmt_ns(dur, sizeof(dur), s->duration_ns), s->nr_cpus, s->nr_cpus == 1 ? "" : "s",
		s->kernel);
	fprintf(f, "cpuidle: driver %s, governor %s; events: cpu_idle via %s, cpu_idle_miss %s\n",
		s->sys.driver, s->sys.governor[0] ? s->sys.governor : "unknown", s->idle_attach,
		s->miss_attach ? s->miss_attach : "not available");
	if (s->idle_fexit_func)
		fprintf(f, "idle path: fexit on %s (entered and rejected counted as the kernel does)\n",
			s->idle_fexit_func);
	else
		fprintf(f, "idle path: tracepoints (fexit: %s)\n", s->idle_fexit_why ? s->idle_fexit_why : "-");
	if (t) {
		int shared = 0, packages = 0;

		for (int i = 0; i < t->nr_clusters; i++)
			shared += cpulist_count(&t->clusters[i]) > 1;
		for (int c = 0; c < t->nr_cpus; c++)
			if (t->cpus[c].package + 1 > packages)
				packages = t->cpus[c].package + 1;
		fprintf(f, "topology: %d package%s", packages, packages == 1 ? "" : "s");
		if (shared) {
			for (int i = 0; i < t->nr_clusters; i++) {
				char *l = cpulist_str(&t->clusters[i]);

				fprintf(f, "%s cluster%d=%s", i ? "," : ";", i, l ? l : "?");
				free(l);
			}
		} else {
			fprintf(f, "; no cluster groups more than one CPU");
		}
		fprintf(f, "\n");
	}
}

static void cpu_topo_line(FILE *f, const struct summary *s, int cpu)
{
	const struct cpu_topo *ct;

	if (!s->topo || cpu < 0 || cpu >= s->topo->nr_cpus)
		return;
	ct = &s->topo->cpus[cpu];
	fprintf(f, "  package %d, die %d, cluster %d, core %d, SMT siblings %s\n", ct->package,
		ct->die, ct->cluster, ct->core, ct->siblings[0] ? ct->siblings : "-");
}

static void state_table(FILE *f, const struct cpu_summary *cs, uint64_t window)
{
	fprintf(f, "  %-16s %7s %7s %9s %8s %6s %7s %7s %7s %7s %7s %7s %8s %8s %6s %6s\n",
		"state", "exit", "target", "entries", "time", "share", "min", "avg", "max", "p50",
		"p90", "p99", "above", "below", "qos", "plimit");
	for (int i = 0; i < cs->nr_states; i++) {
		const struct state_summary *st = &cs->states[i];
		char name[24];

		snprintf(name, sizeof(name), "%s%s", st->name, st->disabled ? "(off)" : "");
		fprintf(f, "  %-16s %7s %7s %9" PRIu64 " %8s %5.1f%%", name,
			st->classified ? ns_text(st->exit_latency_ns) : "-",
			st->classified ? ns_text(st->target_residency_ns) : "-", st->entries, ns_text(st->time_ns),
			pct(st->time_ns, window));
		if (st->entries)
			fprintf(f, " %7s %7s %7s %7s %7s %7s", ns_text(st->min_ns), ns_text(st->avg_ns),
				ns_text(st->max_ns), ns_text(st->p50_ns), ns_text(st->p90_ns), ns_text(st->p99_ns));
		else
			fprintf(f, " %7s %7s %7s %7s %7s %7s", "-", "-", "-", "-", "-", "-");
		if (st->classified) {
			char plimit[24] = "-";

			if (st->poll_limit_known)
				snprintf(plimit, sizeof(plimit), "%" PRIu64, st->poll_limit);
			fprintf(f, " %8" PRIu64 " %8" PRIu64 " %6" PRIu64 " %6s\n", st->above, st->below,
				st->below_qos, plimit);
		} else {
			fprintf(f, " %8s %8s %6s %6s\n", "-", "-", "-", "-");
		}
	}
}

/* Rows: the state the governor chose; columns: the ideal state. */
static void matrix(FILE *f, const struct cpu_summary *cs)
{
	if (!cs->nr_states || !cs->states[0].classified)
		return;
	fprintf(f, "  chosen \\ ideal  ");
	for (int j = 0; j < cs->nr_states; j++)
		fprintf(f, " %14.14s", cs->states[j].name);
	fprintf(f, "\n");
	for (int i = 0; i < cs->nr_states; i++) {
		fprintf(f, "  %-16.16s", cs->states[i].name);
		for (int j = 0; j < cs->nr_states; j++) {
			int k = cs->states[j].index;

			fprintf(f, " %14" PRIu64, k < IS_MAX_STATES ? cs->states[i].ideal[k] : 0);
		}
		fprintf(f, "\n");
	}
}

static void cpu_block(FILE *f, const struct summary *s, const struct cpu_summary *cs, int ncpus)
{
	uint64_t window = s->duration_ns * (uint64_t)ncpus;

	if (s->idle_unrecorded) {
		char who[32], task[48];

		if (cs->cpu >= 0)
			snprintf(who, sizeof(who), "CPU %d", cs->cpu);
		else
			snprintf(who, sizeof(who), "All %d CPUs", ncpus);
		if (cs->idle_task_ns >= 0)
			snprintf(task, sizeof(task), "idle task ran %.1f%%",
				 pct((uint64_t)cs->idle_task_ns, window));
		else
			snprintf(task, sizeof(task), "idle task n/a (no sched_switch)");
		/* not a state residency, and busy is not what is left of it */
		fprintf(f, "\n%s: idle states not recorded (no cpu_idle events); %s (sched_switch), "
			   "busy n/a\n", who, task);
		cpu_topo_line(f, s, cs->cpu);
		return;
	}
	if (cs->cpu >= 0)
		fprintf(f, "\nCPU %d: idle %.1f%% (%.1f%% at the edges), busy %.1f%%, %" PRIu64
			   " periods%s%s\n",
			cs->cpu, pct(cs->idle_ns, window), pct(cs->edge_idle_ns, window),
			pct(cs->busy_ns, window), cs->entries, strcmp(cs->status, "ok") ? ": " : "",
			strcmp(cs->status, "ok") ? cs->status : "");
	else
		fprintf(f, "\nAll %d CPUs: idle %.1f%% (%.1f%% at the edges), busy %.1f%%, %" PRIu64
			   " periods\n",
			ncpus, pct(cs->idle_ns, window), pct(cs->edge_idle_ns, window),
			pct(cs->busy_ns, window), cs->entries);
	cpu_topo_line(f, s, cs->cpu);
	state_table(f, cs, window);
	matrix(f, cs);
}

static void check_line(FILE *f, const struct summary *s, const char *who,
		       const struct state_summary *st, int ncpus)
{
	struct check_row r;
	check_state(s, st, ncpus, &r);
	if (!r.available)
		return;
	fprintf(f, "  %-4s %-16.16s %9" PRIu64 " %9" PRIu64 " %+6" PRId64 " %9s %9s %+8.0fns",
		who, st->name, st->entries, st->kernel.usage + st->kernel.rejected, r.entries_diff,
		ns_text(st->time_ns), ns_text(st->kernel.time_ns),
		r.bias_ns);
	if (st->kernel.has_miss_counters) {
		char a[40], b[40];

		if (r.miss_available) {
			snprintf(a, sizeof(a), "%" PRIu64 "/%" PRIu64 "/%" PRIu64, st->above,
				 st->miss_above, st->kernel.above);
			snprintf(b, sizeof(b), "%" PRIu64 "/%" PRIu64 "/%" PRIu64, st->below,
				 st->miss_below, st->kernel.below);
		} else {
			snprintf(a, sizeof(a), "%" PRIu64 "/-/%" PRIu64, st->above, st->kernel.above);
			snprintf(b, sizeof(b), "%" PRIu64 "/-/%" PRIu64, st->below, st->kernel.below);
		}
		fprintf(f, " %19s %19s", a, b);
	} else {
		fprintf(f, " %19s %19s", "-", "-");
	}
	fprintf(f, " %8" PRIu64 "%s%s\n", st->kernel.rejected,
		r.entries_ok && r.time_ok && (!r.miss_available || r.miss_ok) ? "" : "  <-- check",
		r.lower_bound_only ? "  (lower bound: hotplug)" : "");
}

/* fexit counts over every state of the totals: 0 entered, 1 rejected, 2 demoted. */
static uint64_t total_fx(const struct summary *s, int which)
{
	uint64_t n = 0;

	for (int i = 0; i < s->totals.nr_states; i++)
		n += which == 0 ? s->totals.states[i].fx_entered
		     : which == 1 ? s->totals.states[i].fx_rejected : s->totals.states[i].fx_demoted;
	return n;
}

static void kernel_check(FILE *f, const struct summary *s)
{
	const char *v = check_verdict(s);

	if (s->command && !strcmp(s->command, "replay"))
		return; /* a trace has no sysfs counters of its window */
	fprintf(f, "\nKernel cross-check: BPF vs /sys/devices/system/cpu/cpu*/cpuidle deltas, same window\n");
	if (!strcmp(v, "unavailable")) {
		fprintf(f, "  no sysfs cpuidle counters on this machine\n");
		return;
	}
	fprintf(f, "  %-4s %-16s %9s %9s %6s %9s %9s %10s %19s %19s %8s\n", "cpu", "state",
		"entries", "usage+rej", "diff", "time", "k.time", "bias/per", "above bpf/miss/k",
		"below bpf/miss/k", "rejected");
	for (int c = 0; c < s->nr_cpus; c++) {
		char who[16];

		snprintf(who, sizeof(who), "%d", s->cpus[c].cpu);
		for (int i = 0; i < s->cpus[c].nr_states; i++)
			check_line(f, s, who, &s->cpus[c].states[i], 1);
	}
	if (s->nr_cpus > 1)
		for (int i = 0; i < s->totals.nr_states; i++)
			check_line(f, s, "all", &s->totals.states[i], s->nr_cpus);
	if (s->idle_fexit_func) {
		struct check_row r;
		int bad = 0, rows = 0;

		for (int c = 0; c < s->nr_cpus; c++)
			for (int i = 0; i < s->cpus[c].nr_states; i++) {
				check_state(s, &s->cpus[c].states[i], 1, &r);
				rows += r.fx_available;
				bad += r.fx_available && !r.fx_ok;
			}
		fprintf(f, "  fexit on %s: entered/rejected vs usage/rejected: %d of %d rows within the "
			   "edges; all CPUs entered %" PRIu64 " rejected %" PRIu64 " demoted %" PRIu64 "\n",
			s->idle_fexit_func, rows - bad, rows, total_fx(s, 0), total_fx(s, 1), total_fx(s, 2));
	}
	fprintf(f, "  verdict: %s", v);
	if (!strcmp(v, "ok"))
		fprintf(f, " (entries within the periods in flight at the edges; time within %.0f%% + %dns "
			   "per period;%s)\n",
			IS_CHECK_TIME_PCT, IS_CHECK_BIAS_NS,
			s->miss_attach ? " cpu_idle_miss equals the kernel's above/below"
				       : " no cpu_idle_miss on this kernel");
	else
		fprintf(f, " (rows marked '<-- check' disagree beyond edge effects and timing bias)\n");
}

/* A group's row block: all-idle time, by group state (the shallowest). */
static void group_block(FILE *f, const struct summary *s, const struct group_summary *g)
{
	fprintf(f, "\n%s (CPUs %s): all idle %.1f%%%s, %" PRIu64 " periods", g->name, g->cpus,
		pct(g->time_ns, s->duration_ns), g->idle_at_end ? " (+ in flight at the end)" : "",
		g->periods);
	if (g->periods)
		fprintf(f, ", min %s avg %s max %s, p50 %s p90 %s p99 %s", ns_text(g->min_ns),
			ns_text(g->avg_ns), ns_text(g->max_ns), ns_text(g->p50_ns), ns_text(g->p90_ns), ns_text(g->p99_ns));
	if (g->races)
		fprintf(f, "\n  %" PRIu64 " interval ends found no valid start (races, not counted)",
			g->races);
	fprintf(f, "\n  by group state:");
	for (int i = 0; i < g->nr_states; i++)
		fprintf(f, " %s %.1f%% (%" PRIu64 ")", g->states[i].name,
			pct(g->states[i].time_ns, s->duration_ns), g->states[i].periods);
	fprintf(f, "\n");
}

/* The last selected CPU of group g, so its block follows its CPUs. */
static int group_anchor(const struct summary *s, const struct group_summary *g)
{
	struct cpulist l;
	char err[64];
	int last = -1;

	if (cpulist_parse(g->cpus, &l, err, sizeof(err)))
		return -1;
	for (int c = 0; c < s->nr_cpus; c++)
		if (cpulist_has(&l, s->cpus[c].cpu))
			last = s->cpus[c].cpu;
	return last;
}

void render_table(FILE *f, const struct summary *s)
{
	header(f, s);
	render_eas_line(f, s);
	for (int c = 0; c < s->nr_cpus; c++) {
		cpu_block(f, s, &s->cpus[c], 1);
		for (int g = 0; g < s->nr_groups; g++)
			if (group_anchor(s, &s->groups[g]) == s->cpus[c].cpu)
				group_block(f, s, &s->groups[g]);
	}
	if (s->nr_cpus > 1)
		cpu_block(f, s, &s->totals, s->nr_cpus);
	render_pack_table(f, s);
	render_eas_pack(f, s);
	render_freq_table(f, s);
	render_qos_table(f, s);
	render_gov_table(f, s);
	render_haltpoll_table(f, s);
	render_wake_table(f, s);
	render_exit_table(f, s);
	kernel_check(f, s);
	if (s->nr_warnings) {
		fprintf(f, "\nWarnings:\n");
		for (int i = 0; i < s->nr_warnings; i++)
			fprintf(f, "  %s\n", s->warnings[i]);
	}
	fprintf(f, "\nabove = too deep (shorter than the state's target residency), below = too "
		   "shallow (a deeper enabled state would have paid off);\nqos = of below, the deeper "
		   "state was barred by PM QoS; plimit = of below, a poll that ran to its limit.\n");
}
