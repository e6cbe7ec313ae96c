/* JSON output (schema idlescope/1, docs/json-schema.md) built with jansson;
 * integers stay integers, in nanoseconds. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "model/kernel_check.h"
#include "model/wake_names.h"
#include "render/render.h"
#include "render/render_freq.h"
#include "render/render_haltpoll.h"
#include "render/render_pack.h"
#include "render/render_qos.h"
#include "render/render_wake.h"
#include "util/json_num.h"

static json_t *hist_json(const uint64_t *hist)
{
	json_t *a = json_array();

	for (int b = 0; b < IS_HIST_BUCKETS; b++) {
		if (!hist[b])
			continue;
		json_array_append_new(a, json_pack("{s:o,s:o,s:o}", "lo_ns", json_u64(is_hist_lower((__u32)b)),
						   "hi_ns", json_u64(is_hist_upper((__u32)b)), "count",
						   json_u64(hist[b])));
	}
	return a;
}

/* The exit cost's fields (docs/metrics.md#exit-cost), null where unknown;
 * a CPU's also say which of its periods the measured figure covers. */
static void exit_cost_json(json_t *o, const struct exit_cost *e, uint64_t window, bool cpu)
{
	json_object_set_new(o, "exit_cost_ns", e->declared_known ? json_u64(e->declared_ns) : json_null());
	json_object_set_new(o, "exit_cost_share",
			    e->declared_known ? json_real(exit_cost_share(e->declared_ns, window))
					      : json_null());
	json_object_set_new(o, "exit_cost_measured_ns",
			    e->measured_known ? json_u64(e->measured_ns) : json_null());
	json_object_set_new(o, "exit_cost_measured_share",
			    e->measured_known ? json_real(exit_cost_share(e->measured_ns, window))
					      : json_null());
	if (cpu)
		json_object_set_new(o, "exit_cost_measured_periods", json_u64(e->measured_periods));
	json_object_set_new(o, "exit_cost_lateness_samples", json_u64(e->lateness_samples));
	json_object_set_new(o, "early", e->early_known ? json_u64(e->early) : json_null());
	json_object_set_new(o, "early_ns", e->early_known ? json_u64(e->early_ns) : json_null());
	json_object_set_new(o, "early_share",
			    e->early_known ? json_real(exit_cost_share(e->early_ns, window))
					   : json_null());
}

/* What the wakes of the too-deep periods woken before their next timer
 * were, and the timers that ended periods against the next event the
 * governor was told of: only with wakeups on (null otherwise). */
static json_t *gov_wake_json(const struct gov_split *g, bool wake)
{
	json_t *causes;
	uint64_t on_time;

	if (!wake)
		return json_pack("{s:o,s:o}", "woken_before_timer_by_cause", json_null(),
				 "timer_ended", json_null());
	causes = json_object();
	for (int k = 0; k < WAKE_NR_KINDS; k++)
		json_object_set_new(causes, wake_kind_name(k), json_u64(g->above_cause[k]));
	on_time = g->timer_known - g->timer_later - g->timer_earlier - g->timer_tick_first;
	return json_pack("{s:o,s:{s:o,s:o,s:o,s:o,s:o,s:o,s:o}}", "woken_before_timer_by_cause",
			 causes, "timer_ended", "periods", json_u64(g->timer_known), "as_told",
			 json_u64(on_time), "tick_first", json_u64(g->timer_tick_first),
			 "later_than_told", json_u64(g->timer_later),
			 "earlier_than_told", json_u64(g->timer_earlier), "error_sum_ns",
			 json_u64(g->timer_err_sum_ns), "error_max_ns",
			 json_u64(g->timer_err_max_ns));
}

static json_t *governor_json(const struct state_summary *st, bool wake)
{
	json_t *o, *w;

	if (!st->have_gov || !st->classified)
		return json_null();
	o = json_pack("{s:o,s:o,s:o,s:o,s:o,s:o}", "known_periods", json_u64(st->gov.known),
		      "above_timer_near", json_u64(st->gov.above_near),
		      "above_woken_before_timer", json_u64(st->gov.above_unannounced),
		      "below_tick_kept", json_u64(st->gov.below_tick), "below_predicted_short",
		      json_u64(st->gov.below_history), "below_timer_moved",
		      json_u64(st->gov.below_timer));
	w = gov_wake_json(&st->gov, wake);
	json_object_update(o, w);
	json_decref(w);
	return o;
}

static json_t *state_json(const struct state_summary *st, int nr_states, uint64_t window,
			  bool wake)
{
	json_t *o = json_object(), *ideal;

	json_object_set_new(o, "index", json_integer(st->index));
	json_object_set_new(o, "name", json_string(st->name));
	json_object_set_new(o, "desc", json_string(st->desc));
	json_object_set_new(o, "disabled", json_boolean(st->disabled));
	json_object_set_new(o, "poll", json_boolean(st->poll));
	json_object_set_new(o, "exit_latency_ns", st->classified ? json_u64(st->exit_latency_ns) : json_null());
	json_object_set_new(o, "target_residency_ns",
			    st->classified ? json_u64(st->target_residency_ns) : json_null());
	json_object_set_new(o, "entries", json_u64(st->entries));
	json_object_set_new(o, "time_ns", json_u64(st->time_ns));
	json_object_set_new(o, "share", json_real(window ? (double)st->time_ns / (double)window : 0));
	json_object_set_new(o, "min_ns", json_u64(st->min_ns));
	json_object_set_new(o, "avg_ns", json_u64(st->avg_ns));
	json_object_set_new(o, "max_ns", json_u64(st->max_ns));
	json_object_set_new(o, "p50_ns", json_u64(st->p50_ns));
	json_object_set_new(o, "p90_ns", json_u64(st->p90_ns));
	json_object_set_new(o, "p99_ns", json_u64(st->p99_ns));
	if (st->classified) {
		json_object_set_new(o, "above", json_u64(st->above));
		json_object_set_new(o, "below", json_u64(st->below));
		json_object_set_new(o, "below_qos", json_u64(st->below_qos));
		json_object_set_new(o, "poll_limit",
				    st->poll_limit_known ? json_u64(st->poll_limit) : json_null());
		ideal = json_array();
		for (int i = 0; i < nr_states && i < IS_MAX_STATES; i++)
			json_array_append_new(ideal, json_u64(st->ideal[i]));
		json_object_set_new(o, "ideal", ideal);
	} else {
		json_object_set_new(o, "above", json_null());
		json_object_set_new(o, "below", json_null());
		json_object_set_new(o, "below_qos", json_null());
		json_object_set_new(o, "poll_limit", json_null());
		json_object_set_new(o, "ideal", json_null());
	}
	json_object_set_new(o, "rejected", st->kernel.valid && st->kernel.has_rejected
						   ? json_u64(st->kernel.rejected) : json_null());
	json_object_set_new(o, "miss_above", st->have_miss ? json_u64(st->miss_above) : json_null());
	json_object_set_new(o, "miss_below", st->have_miss ? json_u64(st->miss_below) : json_null());
	/* fexit on the cpuidle entry: what the kernel's usage/rejected count */
	json_object_set_new(o, "fx_entered", st->have_fexit ? json_u64(st->fx_entered) : json_null());
	json_object_set_new(o, "fx_rejected", st->have_fexit ? json_u64(st->fx_rejected) : json_null());
	json_object_set_new(o, "fx_demoted", st->have_fexit ? json_u64(st->fx_demoted) : json_null());
	exit_cost_json(o, &st->exit, window, false);
	/* why its misses missed, from what the governor was told */
	json_object_set_new(o, "governor", governor_json(st, wake));
	json_object_set_new(o, "hist", hist_json(st->hist));
	return o;
}

/* idle_known false: a trace without idle events; busy is unknown, not 100% */
static json_t *cpu_json(const struct cpu_summary *cs, uint64_t window, bool wake, bool idle_known)
{
	json_t *o = json_object(), *states = json_array();

	if (cs->cpu >= 0)
		json_object_set_new(o, "cpu", json_integer(cs->cpu));
	json_object_set_new(o, "online", json_boolean(cs->online));
	json_object_set_new(o, "status", json_string(cs->status));
	json_object_set_new(o, "entries", json_u64(cs->entries));
	json_object_set_new(o, "idle_ns", json_u64(cs->idle_ns));
	json_object_set_new(o, "edge_idle_ns", json_u64(cs->edge_idle_ns));
	json_object_set_new(o, "busy_ns", idle_known ? json_u64(cs->busy_ns) : json_null());
	json_object_set_new(o, "idle_task_ns",
			    cs->idle_task_ns >= 0 ? json_integer(cs->idle_task_ns) : json_null());
	json_object_set_new(o, "offline_ns", json_u64(cs->offline_ns));
	json_object_set_new(o, "hotplug_events", json_integer(cs->hotplug_events));
	json_object_set_new(o, "unmatched_exits", json_u64(cs->unmatched_exits));
	json_object_set_new(o, "orphan_exits", json_u64(cs->orphan_exits));
	json_object_set_new(o, "lost_exits", json_u64(cs->lost_exits));
	json_object_set_new(o, "idle_at_end", json_boolean(cs->idle_at_end));
	for (int i = 0; i < cs->nr_states; i++)
		json_array_append_new(states, state_json(&cs->states[i], cs->nr_states, window, wake));
	json_object_set_new(o, "states", states);
	exit_cost_json(o, &cs->exit, window, true);
	json_object_set_new(o, "wakeups", wake ? wake_cpu_json(cs) : json_null());
	return o;
}

static json_t *topology_json(const struct topology *t)
{
	json_t *o = json_object(), *cpus = json_array(), *clusters = json_array();

	if (!t)
		return o;
	for (int c = 0; c < t->nr_cpus; c++) {
		const struct cpu_topo *ct = &t->cpus[c];

		json_array_append_new(cpus, json_pack("{s:i,s:b,s:i,s:i,s:i,s:i,s:s,s:s}", "cpu", ct->cpu,
						      "online", ct->online, "package", ct->package, "die",
						      ct->die, "cluster", ct->cluster, "core", ct->core,
						      "siblings", ct->siblings, "cluster_cpus",
						      ct->cluster_cpus));
	}
	for (int i = 0; i < t->nr_clusters; i++) {
		char *l = cpulist_str(&t->clusters[i]);

		json_array_append_new(clusters, json_pack("{s:i,s:s?}", "id", i, "cpus", l));
		free(l);
	}
	json_object_set_new(o, "cpus", cpus);
	json_object_set_new(o, "clusters", clusters);
	return o;
}

static json_t *check_row_json(const struct summary *s, int cpu, const struct state_summary *st,
			      int ncpus)
{
	struct check_row r;
	json_t *o;

	check_state(s, st, ncpus, &r);
	if (!r.available)
		return NULL;
	o = json_object();
	if (cpu >= 0)
		json_object_set_new(o, "cpu", json_integer(cpu));
	else
		json_object_set_new(o, "cpu", json_string("all"));
	json_object_set_new(o, "state", json_integer(st->index));
	json_object_set_new(o, "name", json_string(st->name));
	json_object_set_new(o, "bpf", json_pack("{s:o,s:o,s:o,s:o}", "entries", json_u64(st->entries),
						"time_ns", json_u64(st->time_ns), "above", json_u64(st->above),
						"below", json_u64(st->below)));
	json_object_set_new(o, "kernel",
			    json_pack("{s:o,s:o,s:o,s:o,s:o}", "usage", json_u64(st->kernel.usage), "time_ns",
				      json_u64(st->kernel.time_ns), "above",
				      st->kernel.has_miss_counters ? json_u64(st->kernel.above) : json_null(),
				      "below",
				      st->kernel.has_miss_counters ? json_u64(st->kernel.below) : json_null(),
				      "rejected",
				      st->kernel.has_rejected ? json_u64(st->kernel.rejected) : json_null()));
	json_object_set_new(o, "miss", st->have_miss ? json_pack("{s:o,s:o}", "above", json_u64(st->miss_above),
								   "below", json_u64(st->miss_below))
						     : json_null());
	json_object_set_new(o, "entries_diff", json_integer(r.entries_diff));
	json_object_set_new(o, "entries_allowed", json_u64(r.entries_allowed));
	json_object_set_new(o, "edge_exits", json_u64(st->edge_exits));
	json_object_set_new(o, "lower_bound_only", json_boolean(r.lower_bound_only));
	json_object_set_new(o, "time_diff_ns", json_integer(r.time_diff_ns));
	json_object_set_new(o, "bias_ns_per_period", json_real(r.bias_ns));
	json_object_set_new(o, "fexit",
			    r.fx_available ? json_pack("{s:I,s:I}", "entered_diff",
						       (json_int_t)r.fx_entered_diff, "rejected_diff",
						       (json_int_t)r.fx_rejected_diff)
					   : json_null());
	/* the same conditions as check_verdict(), so a mismatch names its rows */
	json_object_set_new(o, "ok", json_boolean(r.entries_ok && r.time_ok &&
						  (!r.miss_available || r.miss_ok) &&
						  (!r.fx_available || r.fx_ok)));
	return o;
}

static json_t *kernel_check_json(const struct summary *s)
{
	json_t *o = json_object(), *rows = json_array(), *r;

	json_object_set_new(o, "verdict", json_string(check_verdict(s)));
	json_object_set_new(o, "bias_allowance_ns", json_integer(IS_CHECK_BIAS_NS));
	for (int c = 0; c < s->nr_cpus; c++)
		for (int i = 0; i < s->cpus[c].nr_states; i++)
			if ((r = check_row_json(s, s->cpus[c].cpu, &s->cpus[c].states[i], 1)))
				json_array_append_new(rows, r);
	for (int i = 0; i < s->totals.nr_states; i++)
		if ((r = check_row_json(s, -1, &s->totals.states[i], s->nr_cpus)))
			json_array_append_new(rows, r);
	json_object_set_new(o, "rows", rows);
	return o;
}

static json_t *groups_json(const struct summary *s)
{
	json_t *arr = json_array(), *levels = json_array();

	for (int i = 0; i < s->nr_groups; i++) {
		const struct group_summary *g = &s->groups[i];
		json_t *states = json_array();

		for (int j = 0; j < g->nr_states; j++)
			json_array_append_new(states, json_pack("{s:i,s:s,s:o,s:o}", "index",
								g->states[j].index, "name",
								g->states[j].name, "periods",
								json_u64(g->states[j].periods), "time_ns",
								json_u64(g->states[j].time_ns)));
		json_t *o =
			json_pack("{s:i,s:s,s:s,s:s,s:s,s:o,s:o,s:f,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:b,s:o,s:o}",
				  "id", g->id, "name", g->name, "level", g->level, "parent", g->parent,
				  "cpus", g->cpus, "periods",
				  json_u64(g->periods), "time_ns", json_u64(g->time_ns), "share",
				  s->duration_ns ? (double)g->time_ns / (double)s->duration_ns : 0.0,
				  "min_ns", json_u64(g->min_ns), "avg_ns", json_u64(g->avg_ns), "max_ns",
				  json_u64(g->max_ns), "p50_ns", json_u64(g->p50_ns), "p90_ns", json_u64(g->p90_ns),
				  "p99_ns", json_u64(g->p99_ns), "states", states, "edge_idle_ns",
				  json_u64(g->edge_idle_ns), "idle_at_end", g->idle_at_end, "races",
				  json_u64(g->races), "hist", hist_json(g->hist));

		json_object_set_new(o, "state_folded_periods", json_u64(g->folded));
		json_array_append_new(arr, o);
	}
	for (int l = 0; l < s->nr_levels; l++)
		json_array_append_new(levels, json_pack("{s:s,s:i,s:o}", "name", s->levels[l].name,
							"groups", s->levels[l].groups, "node_updates",
							json_u64(s->levels[l].node_updates)));
	return json_pack("{s:s,s:o,s:o}", "level", s->group_level, "levels", levels, "groups", arr);
}

json_t *summary_json(const struct summary *s)
{
	json_t *root = json_object(), *cpus = json_array(), *warnings = json_array();

	json_object_set_new(root, "schema", json_string(IS_SCHEMA));
	json_object_set_new(root, "tool", json_pack("{s:s}", "version", IDLESCOPE_VERSION));
	json_object_set_new(root, "kernel", json_string(s->kernel));
	json_object_set_new(root, "duration_ns", json_u64(s->duration_ns));
	json_object_set_new(root, "snapshot_ns", json_u64(s->snapshot_ns));
	json_object_set_new(root, "cpuidle",
			    json_pack("{s:s,s:s}", "driver", s->sys.driver, "governor", s->sys.governor));
	json_object_set_new(root, "events",
			    json_pack("{s:s,s:o}", "cpu_idle", s->idle_attach, "cpu_idle_miss",
				      s->miss_attach ? json_string(s->miss_attach) : json_null()));
	json_object_set_new(root, "idle_path",
			    s->idle_fexit_func
				    ? json_pack("{s:s,s:s}", "source", "fexit", "function", s->idle_fexit_func)
				    : json_pack("{s:s,s:s}", "source", "tracepoint", "fallback_reason",
						s->idle_fexit_why ? s->idle_fexit_why : ""));
	json_object_set_new(root, "governor_inputs",
			    s->gov_inputs ? json_pack("{s:b,s:s}", "watched", 1, "reason", "")
					  : json_pack("{s:b,s:s}", "watched", 0, "reason",
						      s->gov_why ? s->gov_why : "not asked"));
	json_object_set_new(root, "start_state",
			    s->start_state.live
				    ? json_pack("{s:i,s:i,s:i,s:i,s:o,s:s}", "unknown_cpus",
						s->start_state.unknown_cpus, "poked_cpus", s->start_state.poked,
						"poked_busy", s->start_state.poked_busy, "poked_woken",
						s->start_state.poked_woken, "poke_ns",
						json_u64(s->start_state.poke_ns), "poke_reason",
						s->start_state.poke_why ? s->start_state.poke_why : "")
				    : json_null());
	json_object_set_new(root, "topology", topology_json(s->topo));
	for (int c = 0; c < s->nr_cpus; c++)
		json_array_append_new(cpus, cpu_json(&s->cpus[c], s->duration_ns, s->wake_enabled,
						       !s->idle_unrecorded));
	json_object_set_new(root, "cpus", cpus);
	json_object_set_new(root, "totals", cpu_json(&s->totals, s->duration_ns * (uint64_t)s->nr_cpus,
						     s->wake_enabled, !s->idle_unrecorded));
	json_object_set_new(root, "wakeup_details", s->wake_enabled ? wake_rows_json(s) : json_null());
	json_object_set_new(root, "missing_events",
			    json_string(s->missing_events ? s->missing_events : ""));
	json_object_set_new(root, "without", json_string(s->without ? s->without : ""));
	json_object_set_new(root, "kernel_check", kernel_check_json(s));
	json_object_set_new(root, "groups", s->group_level[0] ? groups_json(s) : json_null());
	json_object_set_new(root, "packing", pack_json(s));
	json_object_set_new(root, "frequency", freq_json(s));
	json_object_set_new(root, "haltpoll", haltpoll_json(s));
	json_object_set_new(root, "eas", eas_json(s));
	json_object_set_new(root, "pm_qos", qos_json(s));
	json_object_set_new(root, "dropped_events",
			    json_pack("{s:o,s:o}", "cpu_out_of_range", json_u64(s->cpu_out_of_range),
				      "bad_state", json_u64(s->totals.bad_state)));
	for (int i = 0; i < s->nr_warnings; i++)
		json_array_append_new(warnings, json_string(s->warnings[i]));
	json_object_set_new(root, "warnings", warnings);
	return root;
}

int render_json(FILE *f, const struct summary *s, bool compact)
{
	json_t *root = summary_json(s);
	int err;

	if (!root)
		return -1;
	err = json_dumpf(root, f, compact ? JSON_COMPACT : JSON_INDENT(2));
	fputc('\n', f);
	json_decref(root);
	return err ? -1 : 0;
}
