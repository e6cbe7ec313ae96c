/* The halt-polling advice of advise: JSON, text, ab line. */
#include "render/render_poll_advice.h"

#include <inttypes.h>
#include <string.h>

#include "util/json_num.h"
#include "util/units.h"

json_t *poll_advice_json(const struct hp_advice *hp, const struct hp_advice_in *in,
			 double target, double share)
{
	json_t *o = json_object();
	bool budget = hp->goal == HP_GOAL_BUDGET;

	json_object_set_new(o, "goal", json_string(budget ? "cpu_time_budget" : "latency_target"));
	json_object_set_new(o, "budget_ns", budget ? json_real(target) : json_null());
	json_object_set_new(o, "latency_target_ns", budget ? json_null() : json_real(target));
	json_object_set_new(o, "percentile", budget ? json_null() : json_real(100 * share));
	json_object_set_new(o, "cpus", json_integer(in->nr_cpus));
	json_object_set_new(o, "measured", json_pack("{s:o,s:o,s:o,s:o}", "polls", json_u64(in->polls),
						      "poll_ns", json_u64(in->poll_ns), "woken",
						      json_u64(in->woken), "timed_out",
						      json_u64(in->timed_out)));
	json_object_set_new(o, "waits", json_real(hp->waits));
	json_object_set_new(o, "halt_exit_ns", json_u64(hp->halt_exit_ns));
	json_object_set_new(o, "halt_meets_target", json_boolean(hp->halt_fits));
	json_object_set_new(o, "current_guest_halt_poll_ns",
			    in->have_param ? json_u64(in->guest_halt_poll_ns) : json_null());
	json_object_set_new(o, "current", hp->have_current
			    ? json_pack("{s:o,s:o}", "poll_ns", json_real(hp->cur_poll_ns), "caught",
					json_real(hp->cur_caught))
			    : json_null());
	json_object_set_new(o, "limit_moves", json_pack("{s:o,s:o}", "grow", json_u64(in->grow),
							 "shrink", json_u64(in->shrink)));
	json_object_set_new(o, "hold_limit", json_boolean(hp->hold_limit));
	json_object_set_new(o, "proposed_guest_halt_poll_ns", json_u64(hp->proposed_ns));
	json_object_set_new(o, "proposed", json_pack("{s:o,s:o,s:o}", "poll_ns", json_real(hp->poll_ns),
						      "caught", json_real(hp->caught), "saved_ns",
						      json_real(hp->saved_ns)));
	return o;
}

static double num(const json_t *o, const char *k)
{
	return json_number_value(json_object_get(o, k));
}

void poll_advice_print(FILE *f, const json_t *p)
{
	const json_t *m = json_object_get(p, "measured"), *cur = json_object_get(p, "current"),
		     *pr = json_object_get(p, "proposed"),
		     *c = json_object_get(p, "current_guest_halt_poll_ns");
	double waits = num(p, "waits");

	if (!strcmp(json_string_value(json_object_get(p, "goal")), "cpu_time_budget"))
		fprintf(f, "  halt-polling, for a poll-time budget of %s over the window and %lld CPUs:\n",
			ns_text((uint64_t)num(p, "budget_ns")),
			(long long)json_integer_value(json_object_get(p, "cpus")));
	else
		fprintf(f, "  halt-polling, for a wake latency of %s at p%g (a halt's wake costs %s):\n",
			ns_text((uint64_t)num(p, "latency_target_ns")), num(p, "percentile"),
			ns_text((uint64_t)num(p, "halt_exit_ns")));
	fprintf(f, "    measured: %lld polls, %s polling, %lld woken, %lld timed out; %.0f waits\n",
		(long long)json_integer_value(json_object_get(m, "polls")),
		ns_text((uint64_t)num(m, "poll_ns")),
		(long long)json_integer_value(json_object_get(m, "woken")),
		(long long)json_integer_value(json_object_get(m, "timed_out")), waits);
	if (json_is_true(json_object_get(p, "halt_meets_target")))
		fprintf(f, "    a halt already meets the target: no polling needed\n");
	if (json_is_object(cur))
		fprintf(f, "    now guest_halt_poll_ns %s: model %s polling, %.0f waits caught (%.1f%%)\n",
			ns_text((uint64_t)json_integer_value(c)), ns_text((uint64_t)num(cur, "poll_ns")),
			num(cur, "caught"), waits > 0 ? 100 * num(cur, "caught") / waits : 0);
	fprintf(f, "    proposed guest_halt_poll_ns %" PRIu64 " (%s): %s polling, %.0f waits caught "
		   "(%.1f%%), %s of wake latency saved\n",
		(uint64_t)json_integer_value(json_object_get(p, "proposed_guest_halt_poll_ns")),
		ns_text((uint64_t)json_integer_value(json_object_get(p, "proposed_guest_halt_poll_ns"))),
		ns_text((uint64_t)num(pr, "poll_ns")), num(pr, "caught"),
		waits > 0 ? 100 * num(pr, "caught") / waits : 0, ns_text((uint64_t)num(pr, "saved_ns")));
	if (json_is_true(json_object_get(p, "hold_limit"))) {
		const json_t *mv = json_object_get(p, "limit_moves");

		fprintf(f, "    the limit shrank %lld times against %lld grows: it did not stay at its "
			   "ceiling, as the model takes it; guest_halt_poll_allow_shrink=N keeps it there "
			   "(ab --set guest_halt_poll_allow_shrink=Y,N)\n",
			(long long)json_integer_value(json_object_get(mv, "shrink")),
			(long long)json_integer_value(json_object_get(mv, "grow")));
	}
	if (json_is_integer(c))
		fprintf(f, "    verify: idlescope ab --set guest_halt_poll_ns=%lld,%lld -- WORKLOAD\n",
			(long long)json_integer_value(c),
			(long long)json_integer_value(json_object_get(p, "proposed_guest_halt_poll_ns")));
}

int poll_advice_write_ab(FILE *f, const json_t *tables)
{
	const json_t *t;
	size_t i;

	json_array_foreach(tables, i, t) {
		const json_t *p = json_object_get(t, "halt_polling"),
			     *c = json_object_get(p, "current_guest_halt_poll_ns"),
			     *n = json_object_get(p, "proposed_guest_halt_poll_ns");

		if (!json_is_integer(c) || !json_is_integer(n))
			continue;
		fprintf(f, "# idlescope advise: the haltpoll ceiling as it is, and as proposed\n");
		if (json_integer_value(c) == json_integer_value(n))
			return 0;
		fprintf(f, "guest_halt_poll_ns=%lld,%lld\n", (long long)json_integer_value(c),
			(long long)json_integer_value(n));
		return 1;
	}
	return 0;
}
