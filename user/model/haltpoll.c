/* Guest halt-polling per CPU and over CPUs (model/haltpoll.h): what the BPF
 * table and the POLL and halt states' figures give, nothing read here. */
#include "model/haltpoll.h"

#include <stddef.h>

struct haltpoll_summary haltpoll_of(const struct haltpoll_input *in)
{
	const struct haltpoll_cpu *r = in->raw;
	struct haltpoll_summary h = { .known = true };

	h.polls = in->polls;
	h.poll_ns = in->poll_ns;
	h.woken = r->woken;
	h.timed_out = r->timed_out;
	/* every told end is of a counted poll: the rest are untold */
	h.unresolved = h.polls > h.woken + h.timed_out ? h.polls - h.woken - h.timed_out : 0;
	h.grow = r->grow;
	h.shrink = r->shrink;
	h.limit_known = r->grow + r->shrink > 0;
	if (h.limit_known) {
		h.limit_ns = r->limit_ns;
		h.limit_first_ns = r->limit_first_ns;
		h.limit_min_ns = r->limit_min_ns;
		h.limit_max_ns = r->limit_max_ns;
	}
	/* a caught poll spared the halt it would have entered: the wake from
	 * it, measured where timers ended some of this CPU's halts (their mean
	 * lateness), else as the driver declares it */
	if (in->lateness_samples) {
		h.basis = HP_BASIS_MEASURED;
		h.halt_exit_ns = in->lateness_sum_ns / in->lateness_samples;
	} else if (in->halt_declared) {
		h.basis = HP_BASIS_DECLARED;
		h.halt_exit_ns = in->halt_exit_latency_ns;
	}
	h.saved_ns = h.woken * h.halt_exit_ns;
	return h;
}

void haltpoll_add(struct haltpoll_summary *t, const struct haltpoll_summary *s)
{
	bool first = !t->limit_known;

	if (!s->known)
		return;
	t->polls += s->polls;
	t->poll_ns += s->poll_ns;
	t->woken += s->woken;
	t->timed_out += s->timed_out;
	t->unresolved += s->unresolved;
	t->grow += s->grow;
	t->shrink += s->shrink;
	t->saved_ns += s->saved_ns;
	if (s->limit_known) {
		if (first || s->limit_min_ns < t->limit_min_ns)
			t->limit_min_ns = s->limit_min_ns;
		if (first || s->limit_max_ns > t->limit_max_ns)
			t->limit_max_ns = s->limit_max_ns;
		t->limit_known = true;
	}
	if (t->basis == HP_BASIS_NONE)
		t->basis = s->basis;
	else if (s->basis != HP_BASIS_NONE && s->basis != t->basis)
		t->basis = HP_BASIS_MIXED;
}

const char *haltpoll_basis_name(enum haltpoll_basis b)
{
	switch (b) {
	case HP_BASIS_MEASURED:
		return "measured";
	case HP_BASIS_DECLARED:
		return "declared";
	case HP_BASIS_MIXED:
		return "mixed";
	default:
		return NULL;
	}
}
