/* Exit cost per state, summed per CPU (exit_cost.h). */
#include "model/exit_cost.h"

#include <math.h>

struct exit_cost exit_cost_of(const struct exit_cost_input *in)
{
	struct exit_cost e = { .declared_known = in->table || !in->entries,
			       .early_known = in->table || !in->entries };

	if (in->table) {
		e.declared_ns = in->entries * in->exit_latency_ns;
		e.early = in->early;
		e.early_ns = in->early_ns;
	}
	/* the periods a timer did not end are assumed to leave as slowly as
	 * those it did: the mean lateness stands for every entry */
	if (in->lateness_samples) {
		e.measured_known = true;
		e.measured_ns = (uint64_t)llround((double)in->entries * (double)in->lateness_sum_ns /
						  (double)in->lateness_samples);
		e.measured_periods = in->entries;
		e.lateness_samples = in->lateness_samples;
	}
	return e;
}

struct exit_cost exit_cost_none(void)
{
	return (struct exit_cost){ .declared_known = true, .early_known = true };
}

void exit_cost_add(struct exit_cost *t, const struct exit_cost *s)
{
	t->declared_known = t->declared_known && s->declared_known;
	t->declared_ns += s->declared_ns;
	t->measured_known = t->measured_known || s->measured_known;
	t->measured_ns += s->measured_ns;
	t->measured_periods += s->measured_periods;
	t->lateness_samples += s->lateness_samples;
	t->early_known = t->early_known && s->early_known;
	t->early += s->early;
	t->early_ns += s->early_ns;
}

double exit_cost_share(uint64_t part_ns, uint64_t window_ns)
{
	return window_ns ? (double)part_ns / (double)window_ns : 0;
}
