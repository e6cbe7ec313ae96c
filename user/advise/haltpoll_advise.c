/* guest_halt_poll_ns for a CPU-time budget or a latency target
 * (advise/haltpoll_advise.h, docs/advise.md#halt-polling). */
#include "advise/haltpoll_advise.h"

#include <stdio.h>
#include <string.h>

static uint64_t u64_of(const json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	return json_is_integer(v) && json_integer_value(v) > 0 ? (uint64_t)json_integer_value(v) : 0;
}

int hp_advice_load(const json_t *doc, const struct cpulist *cpus, struct hp_advice_in *in,
		   char *err, size_t errlen)
{
	const json_t *hp = json_object_get(doc, "haltpoll"), *c, *p;
	size_t i;

	memset(in, 0, sizeof(*in));
	if (!hp || json_is_null(hp))
		return 0;
	if (!json_is_object(hp) || !json_is_array(json_object_get(hp, "cpus"))) {
		snprintf(err, errlen, "haltpoll: not an object with cpus[]");
		return -1;
	}
	in->known = true;
	p = json_object_get(hp, "guest_halt_poll_ns");
	in->have_param = json_is_integer(p);
	in->guest_halt_poll_ns = u64_of(hp, "guest_halt_poll_ns");
	json_array_foreach(json_object_get(hp, "cpus"), i, c) {
		json_t *cpu = json_object_get(c, "cpu");

		if (!json_is_integer(cpu)) {
			snprintf(err, errlen, "haltpoll.cpus[%zu]: no cpu", i);
			return -1;
		}
		if (cpus && !cpulist_has(cpus, (int)json_integer_value(cpu)))
			continue;
		in->nr_cpus++;
		in->polls += u64_of(c, "polls");
		in->poll_ns += u64_of(c, "poll_ns");
		in->woken += u64_of(c, "woken");
		in->timed_out += u64_of(c, "timed_out");
		in->saved_ns += u64_of(c, "saved_ns");
		in->grow += u64_of(c, "grow");
		in->shrink += u64_of(c, "shrink");
	}
	return 0;
}

int hp_waits(const struct hist_bin *poll, int n_poll, double timed_out,
	     const struct hist_bin *halt, int n_halt, struct hist_bin *out)
{
	double drop = timed_out;
	int n = 0;

	/* the timed-out polls are the longest: they ran to the limit */
	for (int i = n_poll - 1; i >= 0; i--) {
		struct hist_bin b = poll[i];
		double take = drop < b.count ? drop : b.count;

		drop -= take;
		b.count -= take;
		if (b.count > 0) {
			/* what is left of a partly taken bucket is its lower part */
			if (take > 0)
				b.hi = b.lo + (uint64_t)((double)(b.hi - b.lo) * b.count / (b.count + take));
			out[n++] = b;
		}
	}
	/* ascending again, then the halts */
	for (int i = 0; i < n / 2; i++) {
		struct hist_bin t = out[i];

		out[i] = out[n - 1 - i];
		out[n - 1 - i] = t;
	}
	for (int i = 0; i < n_halt; i++)
		if (halt[i].count > 0)
			out[n++] = halt[i];
	return n;
}

double hp_caught(const struct adv_dist *w, uint64_t limit_ns)
{
	/* the waits shorter than L (buckets spread uniformly) */
	return adv_count_lt(w, limit_ns);
}

double hp_poll_time(const struct adv_dist *w, uint64_t limit_ns)
{
	double t = 0;

	/* buckets spread uniformly: a part below L polls its mean, the rest L */
	for (int i = 0; i < w->n; i++) {
		const struct hist_bin *b = &w->bins[i];

		if (limit_ns >= b->hi) {
			t += b->count * ((double)b->lo + (double)b->hi) / 2;
		} else if (limit_ns > b->lo) {
			double part = (double)(limit_ns - b->lo) / (double)(b->hi - b->lo);

			t += b->count * part * ((double)b->lo + (double)limit_ns) / 2;
			t += b->count * (1 - part) * (double)limit_ns;
		} else {
			t += b->count * (double)limit_ns;
		}
	}
	return t;
}

static uint64_t top_of(const struct adv_dist *w)
{
	uint64_t top = 0;

	for (int i = 0; i < w->n; i++)
		if (w->bins[i].count > 0 && w->bins[i].hi > top)
			top = w->bins[i].hi;
	return top;
}

uint64_t hp_limit_for_budget(const struct adv_dist *w, double budget_ns)
{
	uint64_t lo = 0, hi = top_of(w);

	/* poll time grows with L up to the longest wait, then stays */
	if (hp_poll_time(w, hi) <= budget_ns)
		return hi;
	while (lo < hi) { /* the largest L with poll time <= budget: lo */
		uint64_t mid = lo + (hi - lo + 1) / 2;

		if (hp_poll_time(w, mid) <= budget_ns)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

uint64_t hp_limit_for_share(const struct adv_dist *w, double share)
{
	double want = share * adv_total(w);
	uint64_t lo = 0, hi = top_of(w);

	while (lo < hi) { /* the smallest L catching want: lo */
		uint64_t mid = lo + (hi - lo) / 2;

		if (hp_caught(w, mid) >= want - 1e-9)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

void hp_advise(const struct adv_dist *w, uint64_t halt_exit_ns, enum hp_goal goal, double target,
	       double share, const struct hp_advice_in *in, struct hp_advice *out)
{
	memset(out, 0, sizeof(*out));
	out->goal = goal;
	out->waits = adv_total(w);
	out->halt_exit_ns = halt_exit_ns;
	if (goal == HP_GOAL_BUDGET) {
		out->proposed_ns = hp_limit_for_budget(w, target);
	} else if ((double)halt_exit_ns <= target) {
		/* every wait meets it halted: polling buys nothing */
		out->halt_fits = true;
		out->proposed_ns = 0;
	} else {
		out->proposed_ns = hp_limit_for_share(w, share);
	}
	out->poll_ns = hp_poll_time(w, out->proposed_ns);
	out->caught = hp_caught(w, out->proposed_ns);
	out->saved_ns = out->caught * (double)halt_exit_ns;
	/* a latency goal wants the limit kept up; a budget is helped by shrinks */
	out->hold_limit = goal == HP_GOAL_LATENCY && out->proposed_ns && in && in->shrink &&
			  in->shrink >= in->grow;
	if (in && in->have_param) {
		out->have_current = true;
		out->cur_poll_ns = hp_poll_time(w, in->guest_halt_poll_ns);
		out->cur_caught = hp_caught(w, in->guest_halt_poll_ns);
	}
}
