/* A live read turned into the maps at the reader's cut (raw_cut.h). */
#include "session/raw_cut.h"

#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

#include "session/group_slots.h"
#include "session/idle_loader.h"
#include "util/clock.h"

static uint64_t less(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

static void cpus_at_cut(struct idle_raw *r, uint64_t cut)
{
	for (int c = 0; c < r->nr_cpus; c++) {
		struct idle_cpu_slot *sl = &r->slots[c];

		if (sl->cut_epoch == cut) {
			for (int i = 0; i < IS_MAX_STATES; i++) {
				struct idle_state_stats *st = &r->stats[c * IS_MAX_STATES + i];

				st->time_ns = less(st->time_ns, sl->cut_time_ns[i]);
			}
			sl->enter_ns = sl->cut_enter_ns;
			sl->state = sl->cut_state;
		} else if (sl->enter_ns > cut) {
			sl->enter_ns = 0; /* cannot be without an event after the cut */
		}
	}
}

void idle_raw_at_cut(struct idle_raw *r, uint64_t cut_ns)
{
	cpus_at_cut(r, cut_ns);
	for (int g = 0; g < r->nr_groups && r->groups; g++) {
		struct group_stats *st = &r->groups[g];

		if (st->cut_epoch != cut_ns)
			continue;
		st->time_ns = less(st->time_ns, st->cut_time_ns);
		for (int i = 0; i < IS_MAX_STATES; i++)
			st->state_time_ns[i] = less(st->state_time_ns[i], st->cut_state_time_ns[i]);
	}
	/* without memory for the tree the slots stay as read: spread, not wrong */
	if (r->nr_groups && r->group_slots)
		group_slots_from_cpus(r->group_slots, r->nr_groups, r->slots, r->nr_cpus, false);
	r->read_ns = cut_ns;
}

/* How far ahead the cut is set: the store must land before it. */
#define CUT_LEAD_NS 2000000ULL

/* A cut set now, a little ahead, and waited for. */
static uint64_t cut_now(struct idle_session *s)
{
	uint64_t cut = 0, lead = CUT_LEAD_NS, now;
	struct timespec ts;

	/* a reader descheduled between its clock read and the store (under
	 * TCG for 100 ms) tries again further ahead; in the end the cut is
	 * late for some CPUs rather than never */
	for (int i = 0; i < 5; i++, lead *= 4) {
		cut = idle_now_ns() + lead;
		idle_session_cut(s, cut);
		if (idle_now_ns() < cut)
			break;
	}
	while ((now = idle_now_ns()) <= cut) {
		ts.tv_sec = 0;
		ts.tv_nsec = (long)(cut - now + 1);
		nanosleep(&ts, NULL);
	}
	return cut;
}

int idle_session_read_cut(struct idle_session *s, struct idle_raw *out, uint64_t next_cut)
{
	uint64_t cut = s->next_cut_ns;
	int err;

	/* the cut set at the last read, passed: the handlers have kept every
	 * CPU as at it since (one passed long ago, a late tick, still gives
	 * every CPU at one instant: the interval ends there) */
	if (!cut || idle_now_ns() <= cut)
		cut = cut_now(s);
	s->next_cut_ns = 0;
	err = idle_session_read(s, out);
	if (!err)
		idle_raw_at_cut(out, cut);
	if (next_cut > idle_now_ns()) {
		idle_session_cut(s, next_cut);
		s->next_cut_ns = next_cut;
	}
	return err;
}
