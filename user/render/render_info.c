/* info's table and JSON (render_info.h), from the facts the command
 * gathered and, with --costs, the costs it measured. */
#include <stdint.h>
#include <math.h>
#include <stdio.h>

#include <jansson.h>

#include "render/render_info.h"

static json_t *costs_json(const struct info_costs *rep)
{
	json_t *configs = json_array(), *parts = json_array();

	for (int i = 0; i < rep->nr_configs; i++) {
		const struct info_cost_config *c = &rep->configs[i];

		json_array_append_new(configs, json_pack("{s:s,s:f,s:[f,f],s:f,s:f,s:f,s:f}", "name",
							 c->name, "round_trips_per_s", c->rounds_per_s,
							 "throughput_ratio_min_max", c->ratio_min,
							 c->ratio_max, "throughput_ratio", c->ratio,
							 "bpf_ns_per_round_trip", c->bpf_ns_per_round,
							 "cpu_idle_ns_per_event", c->idle_ns_per_event,
							 "cpu_idle_events_per_round_trip",
							 c->idle_events_per_round));
	}
	for (int i = 0; i < rep->nr_parts; i++) {
		const struct info_cost_part *p = &rep->parts[i];

		json_array_append_new(parts, json_pack("{s:s,s:f,s:f,s:f}", "part", p->part,
						       "bpf_ns_per_round_trip", p->bpf_ns_per_round,
						       "share_of_round_trip", p->share,
						       "cpu_idle_ns_per_event", p->idle_ns_per_event));
	}
	return json_pack("{s:[i,i],s:I,s:i,s:o,s:o}", "cpus", rep->cpu_a, rep->cpu_b,
			 "round_trips", (json_int_t)rep->rounds, "runs", rep->runs, "configurations",
			 configs, "parts", parts);
}

static void costs_table(FILE *out, const struct info_costs *rep)
{
	fprintf(out, "costs on this kernel: ping-pong between CPUs %d and %d, %ld round trips, "
		     "each configuration %d times interleaved (medians); BPF time from the "
		     "kernel's run-time statistics\n",
		rep->cpu_a, rep->cpu_b, rep->rounds, rep->runs);
	fprintf(out, "  %-18s %14s %20s %18s %18s\n", "configuration", "round trips/s",
		"vs none [min-max]", "BPF ns/round trip", "cpu_idle ns/event");
	for (int i = 0; i < rep->nr_configs; i++) {
		const struct info_cost_config *c = &rep->configs[i];
		char ratio[48];

		snprintf(ratio, sizeof(ratio), "%.3f [%.2f-%.2f]", c->ratio, c->ratio_min,
			 c->ratio_max);
		if (!c->observed)
			fprintf(out, "  %-18s %14.0f %20s %18s %18s\n", c->name, c->rounds_per_s,
				ratio, "-", "-");
		else
			fprintf(out, "  %-18s %14.0f %20s %18.0f %18.0f\n", c->name, c->rounds_per_s,
				ratio, c->bpf_ns_per_round, c->idle_ns_per_event);
	}
	fprintf(out, "  what each part adds (record --without PART saves it; packing is opt-in); "
		     "a throughput change within the spread above is noise:\n");
	fprintf(out, "  %-18s %18s %22s %18s\n", "part", "BPF ns/round trip",
		"of a round trip's time", "cpu_idle ns/event");
	for (int i = 0; i < rep->nr_parts; i++) {
		const struct info_cost_part *p = &rep->parts[i];

		fprintf(out, "  %-18s %18.0f %21.2f%% %18.0f\n", p->part, p->bpf_ns_per_round,
			100 * p->share, p->idle_ns_per_event);
	}
}

static json_t *wakeups_json(const struct info_wakeups *w)
{
	json_t *cmds = json_array();

	for (int i = 0; i < w->nr; i++) {
		const struct info_wake_cost *c = &w->c[i];

		json_array_append_new(
			cmds, json_pack("{s:s,s:b,s:f,s:f,s:o,s:[f,f],s:f,s:f}", "command", c->command,
					"reference", c->reference, "own_wakeups_per_s", c->own_per_s,
					"added_per_s_per_cpu", c->added,
					"added_beyond_ticks_per_s_per_cpu",
					isnan(c->beyond) ? json_null() : json_real(c->beyond),
					"added_min_max", c->added_min, c->added_max, "ticks_per_s",
					c->ticks_per_s, "tick_cost_per_s_per_cpu", c->tick_cost));
	}
	return json_pack("{s:s,s:i,s:i,s:f,s:f,s:f,s:o}", "oracle", w->oracle, "cpus", w->nr_cpus,
			 "repetitions", w->reps, "window_s", w->window_s, "settle_s", w->settle_s,
			 "unobserved_per_s_per_cpu", w->base_per_s_cpu, "commands", cmds);
}

static void wakeups_table(FILE *out, const struct info_wakeups *w)
{
	fprintf(out, "added wakeups on this machine: idle periods/s/CPU (%s, %d CPUs) with each "
		     "command running for %.0f s (after %.1f s of start-up) minus an un-observed "
		     "window beside it, %d times (medians); un-observed %.2f/s/CPU; own: its "
		     "threads' voluntary context switches/s; ticks: what the reference ticker "
		     "added in the same repetition, per tick/s\n",
		w->oracle, w->nr_cpus, w->window_s, w->settle_s, w->reps, w->base_per_s_cpu);
	fprintf(out, "  %-24s %8s %24s %14s %14s\n", "command", "own/s", "added /s/CPU [min-max]",
		"ticks /s/CPU", "beyond ticks");
	for (int i = 0; i < w->nr; i++) {
		const struct info_wake_cost *c = &w->c[i];
		char added[48], beyond[24];

		snprintf(added, sizeof(added), "%+.2f [%+.2f, %+.2f]", c->added, c->added_min,
			 c->added_max);
		if (isnan(c->beyond))
			snprintf(beyond, sizeof(beyond), "-");
		else
			snprintf(beyond, sizeof(beyond), "%+.2f", c->beyond);
		fprintf(out, "  %-24s %8.1f %24s %14.2f %14s\n", c->command, c->own_per_s, added,
			c->tick_cost, beyond);
	}
}

static json_t *qos_json(const struct info_qos *q)
{
	json_t *holders = json_array(), *cpus = json_object();
	char key[16];

	for (int i = 0; i < q->nr_holders; i++)
		json_array_append_new(holders, json_pack("{s:i,s:s,s:i}", "pid", q->holders[i].pid,
							 "comm", q->holders[i].comm, "requests",
							 q->holders[i].requests));
	for (int i = 0; i < q->nr_cpus; i++) {
		snprintf(key, sizeof(key), "%d", q->cpus[i].cpu);
		json_object_set_new(cpus, key, json_real((double)q->cpus[i].limit_ns / 1000));
	}
	return json_pack("{s:o,s:s?,s:o,s:i,s:o,s:o,s:b}", "cpu_dma_latency_us",
			 q->limit_ns == UINT64_MAX ? json_null() :
						     json_real((double)q->limit_ns / 1000),
			 "deepest_reachable_state", q->deepest[0] ? q->deepest : NULL, "holders",
			 holders, "unlisted_processes", q->unlisted, "resume_latency_us", cpus,
			 "haltpoll",
			 q->haltpoll ? json_pack("{s:I,s:I,s:I,s:I,s:b}", "guest_halt_poll_ns",
						 (json_int_t)q->poll_ns, "guest_halt_poll_grow",
						 (json_int_t)q->grow, "guest_halt_poll_grow_start",
						 (json_int_t)q->grow_start, "guest_halt_poll_shrink",
						 (json_int_t)q->shrink, "guest_halt_poll_allow_shrink",
						 q->allow_shrink) :
				       json_null(),
			 "haltpoll_in_use", q->haltpoll_in_use);
}

/* Microseconds as the QoS interfaces take them. */
static void us_text(uint64_t ns, char *buf, size_t len)
{
	snprintf(buf, len, "%g us", (double)ns / 1000);
}

static void qos_table(FILE *out, const struct info_qos *q)
{
	char v[32];

	if (q->limit_ns == UINT64_MAX) {
		fprintf(out, "PM QoS CPU latency: no limit");
	} else {
		us_text(q->limit_ns, v, sizeof(v));
		fprintf(out, "PM QoS CPU latency: limit %s", v);
		if (q->deepest[0])
			fprintf(out, ", deepest state left: %s", q->deepest);
	}
	fprintf(out, "; /dev/cpu_dma_latency held by %s", q->nr_holders ? "" : "no process");
	for (int i = 0; i < q->nr_holders; i++)
		fprintf(out, "%s%s[%d]%s", i ? ", " : "", q->holders[i].comm, q->holders[i].pid,
			q->holders[i].requests > 1 ? " (several requests)" : "");
	if (q->unlisted)
		fprintf(out, " (%d processes not listed: no access)", q->unlisted);
	fprintf(out, "\nresume latency limits: %s", q->nr_cpus ? "" : "none");
	for (int i = 0; i < q->nr_cpus; i++) {
		if (q->cpus[i].limit_ns)
			us_text(q->cpus[i].limit_ns, v, sizeof(v));
		else
			snprintf(v, sizeof(v), "n/a (no latency allowed)");
		fprintf(out, "%scpu%d %s", i ? ", " : "", q->cpus[i].cpu, v);
	}
	fputc('\n', out);
	if (q->haltpoll)
		fprintf(out, "haltpoll governor (%s): guest_halt_poll_ns %llu, grow %llu from %llu ns, "
			     "shrink %llu%s\n", q->haltpoll_in_use ? "in use" : "not in use",
			(unsigned long long)q->poll_ns, (unsigned long long)q->grow,
			(unsigned long long)q->grow_start, (unsigned long long)q->shrink,
			q->allow_shrink ? "" : " (not allowed)");
}

static int json(FILE *out, const struct info_report *r)
{
	json_t *root = json_object(), *feats = json_object();
	int ret = 0;

	json_object_set_new(root, "schema", json_string("idlescope-info/1"));
	json_object_set_new(root, "kernel", json_pack("{s:s,s:s,s:s}", "release", r->release,
						      "version", r->version, "arch", r->machine));
	for (int i = 0; i < r->nr_features; i++) {
		const struct info_feature *ft = &r->features[i];

		json_object_set_new(feats, ft->key,
				    json_pack("{s:s,s:b,s:s,s:s}", "label", ft->label, "available",
					      ft->available, "detail", ft->detail, "cost", ft->cost));
	}
	json_object_set_new(root, "features", feats);
	json_object_set_new(root, "build",
			    json_pack("{s:s,s:s,s:s,s:b,s:s?}", "version", r->build_version,
				      "linkage", r->linkage, "trace_dat", r->trace_dat,
				      "serve_https", r->https, "lacks",
				      r->lacks[0] ? r->lacks : NULL));
	json_object_set_new(root, "record_idle_path",
			    json_pack("{s:s,s:s?,s:s?}", "source",
				      r->idle_fexit ? "fexit" : "tracepoint", "function",
				      r->idle_fexit ? r->idle_func : NULL, "fallback_reason",
				      r->idle_fexit ? NULL : r->idle_why));
	json_object_set_new(root, "cpuidle",
			    json_pack("{s:s,s:s,s:i,s:s}", "driver", r->driver, "governor",
				      r->governor, "states", r->nr_states, "table", r->states));
	json_object_set_new(root, "cpufreq", json_pack("{s:b,s:s?}", "present", r->cpufreq[0] != 0,
						      "driver", r->cpufreq[0] ? r->cpufreq : NULL));
	json_object_set_new(root, "topology",
			    json_pack("{s:i,s:s,s:i,s:i,s:i,s:s}", "possible_cpus",
				      r->have_topo ? r->possible_cpus : 0, "online", r->online,
				      "packages", r->packages, "dies", r->dies, "clusters",
				      r->clusters, "levels", r->levels));
	if (r->qos)
		json_object_set_new(root, "pm_qos", qos_json(r->qos));
	if (r->costs)
		json_object_set_new(root, "costs", costs_json(r->costs));
	if (r->wakeups)
		json_object_set_new(root, "wakeups", wakeups_json(r->wakeups));
	if (json_dumpf(root, out, JSON_INDENT(2)) || fputc('\n', out) == EOF)
		ret = -1;
	json_decref(root);
	return ret;
}

static void table(FILE *out, const struct info_report *r)
{
	fprintf(out, "idlescope info: kernel %s %s\n", r->release, r->machine);
	fprintf(out, "build: %s %s; replay reads trace.dat %s; serve HTTPS %s\n", r->build_version,
		r->linkage, r->trace_dat, r->https ? "yes" : "no");
	if (r->lacks[0])
		fprintf(out, "this build lacks %s\n", r->lacks);
	fprintf(out, "  %-32s %-4s %-34s %s\n", "feature", "have", "found", "without it");
	for (int i = 0; i < r->nr_features; i++) {
		const struct info_feature *ft = &r->features[i];

		fprintf(out, "  %-32s %-4s %-34s %s\n", ft->label, ft->available ? "yes" : "no",
			ft->detail, ft->available ? "-" : ft->cost);
	}
	if (r->idle_fexit)
		fprintf(out, "record idle path: fexit on %s\n", r->idle_func);
	else
		fprintf(out, "record idle path: tracepoints (%s)\n", r->idle_why);
	fprintf(out, "cpuidle: driver %s, governor %s, %d states%s%s\n", r->driver,
		r->governor[0] ? r->governor : "unknown", r->nr_states, r->nr_states ? ": " : "",
		r->states);
	if (r->qos)
		qos_table(out, r->qos);
	fprintf(out, "cpufreq: %s\n", r->cpufreq[0] ? r->cpufreq : "absent");
	if (r->have_topo) {
		fprintf(out, "topology: %d possible CPUs (online %s), %d package%s, %d die%s, "
			     "%d cluster%s of several CPUs\n",
			r->possible_cpus, r->online, r->packages, r->packages == 1 ? "" : "s", r->dies,
			r->dies == 1 ? "" : "s", r->clusters, r->clusters == 1 ? "" : "s");
		fprintf(out, "topology groups (record's default): %s\n",
			r->levels[0] ? r->levels : "none");
	}
	if (r->costs)
		costs_table(out, r->costs);
	if (r->wakeups)
		wakeups_table(out, r->wakeups);
}

int render_info(FILE *f, enum out_format fmt, const struct info_report *r)
{
	if (fmt == FMT_JSON)
		return json(f, r);
	table(f, r);
	return 0;
}
