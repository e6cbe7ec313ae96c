/* advise --latency-budget: its JSON, its text under a state table, and the
 * settings `ab --set-from` reads (render_budget.h). */
#include "render/render_budget.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/json_num.h"
#include "util/units.h"

/* One state's latencies, as the budget sees them. */
static json_t *state_json(const struct adv_state_in *s, const struct budget_report *b, int k)
{
	const struct lb_state *l = &b->st[k];

	return json_pack("{s:i,s:s,s:b,s:I,s:o,s:o,s:I,s:I,s:s,s:b,s:b,s:I,s:I}", "index", s->index,
			 "name", s->name, "enabled", !s->disabled, "declared_exit_latency_ns",
			 (json_int_t)s->exit_ns, "measured_ns",
			 s->lat_count ? json_u64(l->measured_ns) : json_null(), "measured_p50_ns",
			 s->lat_count ? json_u64(b->p50_ns[k]) : json_null(), "samples",
			 (json_int_t)s->lat_count, "latency_ns", (json_int_t)lb_latency(l), "source",
			 l->measured ? "measured" : "declared", "fits", lb_latency(l) <= b->budget_ns,
			 "slower_than_declared", b->slower[k], "entries", (json_int_t)s->entries,
			 "time_ns", (json_int_t)s->time_ns);
}

json_t *budget_json(const struct adv_table_in *t, const struct budget_report *b)
{
	const struct lb_result *r = &b->r;
	json_t *o = json_object(), *states = json_array(), *dis = json_array(),
	       *warn = json_array();

	for (int k = 0; k < b->n; k++) {
		const struct adv_state_in *s = &t->st[k];

		json_array_append_new(states, state_json(s, b, k));
		if (b->slower[k])
			json_array_append_new(warn, json_sprintf(
				"%s: measured median exit latency %s is %.1fx its declared %s",
				s->name, ns_text(b->p50_ns[k]), (double)b->p50_ns[k] / (double)s->exit_ns,
				ns_text(s->exit_ns)));
		if (r->disable >> k & 1)
			json_array_append_new(dis, json_pack("{s:i,s:s}", "index", s->index, "name",
							     s->name));
	}
	if (!r->feasible)
		json_array_append_new(warn, json_sprintf(
			"no state fits: even the shallowest enabled state's latency exceeds %s",
			ns_text(b->budget_ns)));
	json_object_set_new(o, "budget_ns", json_u64(b->budget_ns));
	json_object_set_new(o, "percentile", json_real(b->percentile));
	json_object_set_new(o, "states", states);
	json_object_set_new(o, "feasible", json_boolean(r->feasible));
	json_object_set_new(o, "disable", dis);
	json_object_set_new(o, "deepest_kept", r->deepest_kept >= 0
						       ? json_string(t->st[r->deepest_kept].name)
						       : json_null());
	json_object_set_new(o, "pm_qos_us", r->qos_ok ? json_u64(r->qos_us) : json_null());
	json_object_set_new(o, "pm_qos_blocker",
			    r->qos_blocker >= 0 ? json_string(t->st[r->qos_blocker].name) : json_null());
	json_object_set_new(o, "moved_entries", json_u64(r->moved_entries));
	json_object_set_new(o, "moved_ns", json_u64(r->moved_ns));
	json_object_set_new(o, "moved_share", json_real(b->moved_share));
	json_object_set_new(o, "predicted_ns", json_u64(r->predicted_ns));
	json_object_set_new(o, "predicted_declared",
			    r->predicted_declared >= 0 ? json_string(t->st[r->predicted_declared].name)
						       : json_null());
	if (r->predicted_declared >= 0 && (r->disable || !r->feasible))
		json_array_append_new(warn, json_sprintf(
			"%s will hold periods but had fewer than 10 ended by a timer: the bound "
			"afterwards takes its declared exit latency, unmeasured",
			t->st[r->predicted_declared].name));
	json_object_set_new(o, "ideal_left_out", json_u64(b->ideal_left_out));
	json_object_set_new(o, "ideal_left_out_share", json_real(b->ideal_left_out_share));
	json_object_set_new(o, "warnings", warn);
	return o;
}

static uint64_t u64of(const json_t *o, const char *k)
{
	return (uint64_t)json_integer_value(json_object_get(o, k));
}

void budget_print(FILE *f, const json_t *b)
{
	const json_t *s, *d, *q = json_object_get(b, "pm_qos_us");
	double pct = json_number_value(json_object_get(b, "percentile"));
	size_t i;

	fprintf(f, "  latency budget %s at p%g of the measured exit latency (timer lateness; "
		   "declared where a state has fewer than %d samples):\n",
		ns_text(u64of(b, "budget_ns")), pct, LB_MIN_SAMPLES);
	char pcol[16];

	snprintf(pcol, sizeof(pcol), "p%g", pct);
	fprintf(f, "    %-16s %9s %9s %9s %8s %9s\n", "state", "declared", "p50", pcol, "samples",
		"periods");
	json_array_foreach(json_object_get(b, "states"), i, s) {
		const json_t *m = json_object_get(s, "measured_ns"), *m50 = json_object_get(s, "measured_p50_ns");

		fprintf(f, "    %-16.16s %9s %9s %9s %8" PRIu64 " %9" PRIu64 "  %s%s%s\n",
			json_string_value(json_object_get(s, "name")),
			ns_text(u64of(s, "declared_exit_latency_ns")),
			json_is_null(m50) ? "-" : ns_text((uint64_t)json_integer_value(m50)),
			json_is_null(m) ? "-" : ns_text((uint64_t)json_integer_value(m)), u64of(s, "samples"),
			u64of(s, "entries"),
			!json_is_true(json_object_get(s, "enabled")) ? "(disabled)"
			: json_is_true(json_object_get(s, "fits"))   ? "fits"
								     : "over budget",
			strcmp(json_string_value(json_object_get(s, "source")), "declared") ? ""
											   : " (declared)",
			json_is_true(json_object_get(s, "slower_than_declared")) ? " SLOWER than declared (>2x)" : "");
	}
	if (!json_array_size(json_object_get(b, "disable"))) {
		fprintf(f, "    proposal: nothing to leave out: every enabled state fits\n");
	} else {
		fprintf(f, "    proposal: leave out");
		json_array_foreach(json_object_get(b, "disable"), i, d)
			fprintf(f, "%s %s (state%lld)", i ? "," : "",
				json_string_value(json_object_get(d, "name")),
				(long long)json_integer_value(json_object_get(d, "index")));
		if (json_is_integer(q))
			fprintf(f, ": disable them, or hold /dev/cpu_dma_latency at %lld us\n",
				(long long)json_integer_value(q));
		else
			fprintf(f, ": disable them (PM QoS cannot: %s's declared exit latency does not "
				   "rank it out)\n",
				json_string_value(json_object_get(b, "pm_qos_blocker")));
		fprintf(f, "    cost: %" PRIu64 " periods, %s (%.2f%% of these CPUs' time) go to "
			   "shallower states; %" PRIu64 " periods (%.1f%%) had a left-out state as their "
			   "ideal; p%g afterwards at most %s%s\n",
			u64of(b, "moved_entries"), ns_text(u64of(b, "moved_ns")),
			100 * json_number_value(json_object_get(b, "moved_share")),
			u64of(b, "ideal_left_out"),
			100 * json_number_value(json_object_get(b, "ideal_left_out_share")), pct,
			ns_text(u64of(b, "predicted_ns")),
			json_is_string(json_object_get(b, "predicted_declared")) ? " (declared, see the warning)" : "");
	}
	json_array_foreach(json_object_get(b, "warnings"), i, s)
		fprintf(f, "    warning: %s\n", json_string_value(s));
}

int budget_write_ab(FILE *f, const json_t *tables, uint64_t budget_ns, double percentile)
{
	const json_t *t, *d;
	json_int_t qos = -1;
	bool all_qos = true;
	uint64_t mask = 0;
	size_t i, j;
	int lines = 0;

	json_array_foreach(tables, i, t) {
		const json_t *b = json_object_get(t, "latency_budget"),
			     *q = json_object_get(b, "pm_qos_us");

		if (!json_array_size(json_object_get(b, "disable")))
			continue;
		json_array_foreach(json_object_get(b, "disable"), j, d)
			mask |= 1ull << (json_integer_value(json_object_get(d, "index")) & 63);
		if (!json_is_integer(q))
			all_qos = false;
		else if (qos < 0 || json_integer_value(q) < qos)
			qos = json_integer_value(q);
	}
	fprintf(f, "# idlescope advise --latency-budget %s (p%g): `idlescope ab --set-from FILE "
		   "...` compares the machine as it is with the proposal\n",
		ns_text(budget_ns), percentile);
	if (!mask)
		return 0;
	if (all_qos) {
		fprintf(f, "cpu_dma_latency=none,%lld\n", (long long)qos);
		return 1;
	}
	for (int k = 0; k < 64; k++)
		if (mask >> k & 1) {
			fprintf(f, "state%d.disable=0,1\n", k);
			lines++;
		}
	return lines;
}
