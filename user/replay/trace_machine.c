/* Builds the traced machine for `replay`: the profile wins over an idlestat
 * header; without either, states by index up to the deepest the trace enters. */
#include "replay/trace_machine.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/diag.h"
#include "sys/group_levels.h"

/* The deepest state index each CPU enters in the trace, -1 for none. */
static int *deepest_states(const struct trace_data *td, int nr_cpus)
{
	int *hi = malloc(sizeof(*hi) * (size_t)nr_cpus);

	if (!hi)
		return NULL;
	for (int c = 0; c < nr_cpus; c++)
		hi[c] = -1;
	for (size_t i = 0; i < td->nr_ev; i++) {
		const struct trace_event *e = &td->ev[i];
		uint64_t state = e->re.idle.state;
		int st = state >= IS_MAX_STATES ? IS_MAX_STATES : (int)state;

		if (e->re.kind == RE_IDLE && state != IS_PWR_EVENT_EXIT && (int)e->re.cpu < nr_cpus &&
		    st > hi[e->re.cpu])
			hi[e->re.cpu] = st;
	}
	return hi;
}

/* States named by index only: no target residency, no classification. */
static void index_table(struct cpuidle_cpu_info *in, int n)
{
	in->nr_states = n;
	in->unclassified = true;
	for (int i = 0; i < n; i++)
		snprintf(in->states[i].name, sizeof(in->states[i].name), "state%d", i);
}

/* Periods in a state the table lacks would vanish: refused by name. A
 * --profile that does not fit the trace is a usage error (2); a trace that
 * contradicts itself or its own header is bad input (1), as a damaged one. */
static int check_states(const struct trace_machine *m, int cpu, int deepest, const char *from)
{
	const struct cpuidle_cpu_info *in = &m->info[cpu];
	int n = in->nr_states;
	int bad = !strcmp(from, "profile") ? EXIT_USAGE : EXIT_RUNTIME;

	if (deepest >= IS_MAX_STATES) {
		diag_error("%s: CPU %d has state %d or deeper events; replay keeps at most %d states",
			  m->file, cpu, IS_MAX_STATES, IS_MAX_STATES);
		return EXIT_RUNTIME;
	}
	if (n && deepest >= n) {
		diag_error("%s: CPU %d has state %d events; the %s has %d state%s", m->file, cpu,
			  deepest, from, n, n == 1 ? "" : "s");
		return bad;
	}
	/* no driver: default_idle_call() reports 1, cpu_idle_poll() 0 */
	if (!n && deepest >= 2) {
		diag_error("%s: CPU %d has state %d events; the %s has no idle states for it "
			  "(a host without a cpuidle driver has only 0 and 1)", m->file, cpu, deepest,
			  from);
		return bad;
	}
	return 0;
}

/* The traced machine's tables: the profile wins over an idlestat header;
 * without either, states by index. */
static int build_tables(struct trace_machine *m)
{
	const struct trace_data *td = m->td;
	int need = td->max_cpu + 1, *hi = NULL, ret = EXIT_RUNTIME, deepest = 0;
	const char *from;

	if (m->prof && need > m->prof->nr_cpus) {
		diag_error("%s: CPU %d has events but the profile describes %d CPU%s", m->file,
			  td->max_cpu, m->prof->nr_cpus, m->prof->nr_cpus == 1 ? "" : "s");
		return EXIT_USAGE;
	}
	if (m->prof)
		m->nr_cpus = m->prof->nr_cpus;
	else if (td->have_states)
		m->nr_cpus = td->nr_state_cpus > need ? td->nr_state_cpus : need;
	else
		m->nr_cpus = td->header_cpus > need ? td->header_cpus : need;
	if (m->nr_cpus < 1)
		m->nr_cpus = 1;
	m->info = calloc((size_t)m->nr_cpus, sizeof(*m->info));
	hi = deepest_states(td, m->nr_cpus);
	if (!m->info || !hi) {
		diag_error("out of memory");
		goto out;
	}
	for (int c = 0; c < m->nr_cpus; c++)
		if (hi[c] > deepest)
			deepest = hi[c];
	m->no_driver = !m->prof && td->have_states;
	for (int c = 0; c < m->nr_cpus; c++) {
		struct cpuidle_cpu_info *in = &m->info[c];
		int n = c < td->nr_state_cpus ? td->nr_states[c] : 0;

		if (m->prof) {
			*in = m->prof->info[c];
			from = "profile";
		} else if (td->have_states && n) {
			in->nr_states = n;
			for (int i = 0; i < n; i++) {
				const struct trace_state *ts = &td->states[c * IS_MAX_STATES + i];

				snprintf(in->states[i].name, sizeof(in->states[i].name), "%s", ts->name);
				in->states[i].target_residency_ns = ts->target_residency_ns;
				in->states[i].poll = !strcmp(ts->name, "POLL");
			}
			m->no_driver = false;
			from = "idlestat header";
		} else if (td->have_states && ((c < td->nr_state_cpus && td->described[c]) || hi[c] < 0)) {
			/* no driver (record's default-idle), or offline */
			from = "idlestat header";
		} else {
			/* an ftrace or trace-cmd capture, an idlestat 0.4 file, or a
			 * CPU the header does not describe: the states it enters */
			index_table(in, deepest + 1);
			m->index_tables++;
			if (hi[c] >= 0)
				m->no_driver = false;
			from = "trace";
		}
		in->qos_limit_ns = UINT64_MAX;
		in->dev_qos_ns = UINT64_MAX;
		if ((ret = check_states(m, c, hi[c], from)))
			goto out;
	}
	m->tables_from = m->prof ? "profile" : td->have_states ? "idlestat header" : "none";
	m->exit_latency_known = m->prof != NULL;
	ret = 0;
out:
	free(hi);
	return ret;
}

/* A topology for the traced machine: every CPU online, groups as clusters. */
static int build_topology(struct trace_machine *m)
{
	struct topology *t = &m->topo;
	const struct trace_data *td = m->td;
	/* clusters: the profile's level named so, or its only level */
	const struct group_level *pl = NULL;
	int ng;

	for (int i = 0; m->prof && i < m->prof->nr_levels; i++)
		if (!strcmp(m->prof->levels[i].name, "cluster") || m->prof->nr_levels == 1)
			pl = &m->prof->levels[i];
	ng = m->prof ? (pl ? pl->nr : 0) : td->nr_clusters;

	memset(t, 0, sizeof(*t));
	t->nr_possible = t->nr_cpus = m->nr_cpus;
	t->cpus = calloc((size_t)m->nr_cpus, sizeof(*t->cpus));
	t->clusters = calloc((size_t)ng + 1, sizeof(*t->clusters));
	if (!t->cpus || !t->clusters)
		return -1;
	for (int g = 0; g < ng; g++) {
		if (m->prof)
			t->clusters[g] = pl->cpus[g];
		else
			for (int c = 0; c < td->nr_state_cpus; c++)
				if (td->cluster_of[c] == g)
					cpulist_set(&t->clusters[g], c);
	}
	t->nr_clusters = ng;
	for (int c = 0; c < m->nr_cpus; c++) {
		struct cpu_topo *ct = &t->cpus[c];

		cpulist_set(&t->possible, c);
		cpulist_set(&t->online, c);
		ct->cpu = c;
		ct->online = 1;
		ct->package = 0;
		ct->die = ct->core = ct->cluster = -1;
		ct->cluster_cpus = NULL;
		for (int g = 0; g < ng; g++)
			if (cpulist_has(&t->clusters[g], c)) {
				ct->cluster = g;
				free(ct->cluster_cpus);
				if (!(ct->cluster_cpus = cpulist_str(&t->clusters[g])))
					return -1;
			}
		ct->siblings = strdup("");
		if (!ct->cluster_cpus)
			ct->cluster_cpus = strdup("");
		if (!ct->siblings || !ct->cluster_cpus)
			return -1;
	}
	return 0;
}

/* The groups: --topology custom:, else the profile's levels, else the
 * clusters of an idlestat header. */
static int build_groups(struct trace_machine *m)
{
	struct group_level lv[IS_MAX_LEVELS];
	char err[256] = "";
	int nr = 0;

	memset(lv, 0, sizeof(lv));
	if (m->topology && !strcmp(m->topology, "none"))
		return 0;
	if (m->topology) {
		if (strncmp(m->topology, "custom:", 7)) {
			diag_error("--topology: replay takes custom:LIST or none (the groups of the traced "
				  "machine come from its header or --profile)");
			return EXIT_USAGE;
		}
		if (groups_build(&m->topo, m->topology, &m->groups, err, sizeof(err))) {
			diag_error("--topology: %s", err);
			return EXIT_USAGE;
		}
		return 0;
	}
	if (m->prof) {
		for (; nr < m->prof->nr_levels; nr++) {
			const struct group_level *p = &m->prof->levels[nr];

			lv[nr] = *p;
			lv[nr].cpus = malloc(sizeof(*p->cpus) * (size_t)(p->nr ? p->nr : 1));
			if (!lv[nr].cpus)
				goto nomem;
			memcpy(lv[nr].cpus, p->cpus, sizeof(*p->cpus) * (size_t)p->nr);
		}
	} else if (m->topo.nr_clusters) {
		snprintf(lv[0].name, sizeof(lv[0].name), "cluster");
		lv[0].cpus = calloc((size_t)m->topo.nr_clusters, sizeof(*lv[0].cpus));
		if (!lv[0].cpus)
			goto nomem;
		for (int i = 0; i < m->topo.nr_clusters; i++)
			if (cpulist_count(&m->topo.clusters[i]))
				lv[0].cpus[lv[0].nr++] = m->topo.clusters[i];
		nr = 1;
	}
	if (!nr)
		return 0;
	if (groups_assemble(lv, nr, false, m->nr_cpus, &m->groups, err, sizeof(err))) {
		diag_error("%s: %s", m->prof ? "--profile" : "trace", err);
		return EXIT_USAGE;
	}
	return 0;
nomem:
	for (int i = 0; i < IS_MAX_LEVELS; i++)
		free(lv[i].cpus);
	return EXIT_RUNTIME;
}

int trace_machine_build(struct trace_machine *m)
{
	int ret;

	if ((ret = build_tables(m)))
		return ret;
	if (build_topology(m)) {
		diag_error("out of memory");
		return EXIT_RUNTIME;
	}
	return build_groups(m);
}

void trace_machine_free(struct trace_machine *m)
{
	free(m->info);
	m->info = NULL;
	groups_free(&m->groups);
	topology_free(&m->topo);
}
