/* Interval deltas of raw BPF snapshots (idle_raw_delta, raw_delta.h). */
#include "session/raw_delta.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static uint64_t sub(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

static void *dup_array(const void *src, size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (p && src && n)
		memcpy(p, src, n * size);
	return p;
}

static void sub_state(struct idle_state_stats *d, const struct idle_state_stats *a)
{
	d->entries = sub(d->entries, a->entries);
	d->time_ns = sub(d->time_ns, a->time_ns);
	d->min_ns = d->max_ns = 0;
	d->above = sub(d->above, a->above);
	d->below = sub(d->below, a->below);
	d->below_qos = sub(d->below_qos, a->below_qos);
	d->poll_limit = sub(d->poll_limit, a->poll_limit);
	d->miss_above = sub(d->miss_above, a->miss_above);
	d->miss_below = sub(d->miss_below, a->miss_below);
	d->fx_entered = sub(d->fx_entered, a->fx_entered);
	d->fx_rejected = sub(d->fx_rejected, a->fx_rejected);
	d->fx_demoted = sub(d->fx_demoted, a->fx_demoted);
	d->early = sub(d->early, a->early);
	d->early_ns = sub(d->early_ns, a->early_ns);
	d->edge_exits = sub(d->edge_exits, a->edge_exits);
	d->gov_known = sub(d->gov_known, a->gov_known);
	d->gov_above_near = sub(d->gov_above_near, a->gov_above_near);
	d->gov_above_unannounced = sub(d->gov_above_unannounced, a->gov_above_unannounced);
	d->gov_below_tick = sub(d->gov_below_tick, a->gov_below_tick);
	d->gov_below_history = sub(d->gov_below_history, a->gov_below_history);
	d->gov_below_timer = sub(d->gov_below_timer, a->gov_below_timer);
	for (int k = 0; k < WAKE_NR_KINDS; k++)
		d->gov_above_cause[k] = sub(d->gov_above_cause[k], a->gov_above_cause[k]);
	for (int i = 0; i < IS_MAX_STATES; i++)
		d->ideal[i] = sub(d->ideal[i], a->ideal[i]);
	for (int b = 0; b < IS_HIST_BUCKETS; b++)
		d->hist[b] = sub(d->hist[b], a->hist[b]);
}

/* The CPUs' and groups' counters of one read are not read at one instant
 * (snapshot.c: a few batch reads, then the stamp), so a period that ended
 * between a CPU's read and the stamp counts in the next interval, which it
 * precedes. No interval holds more idle time than it lasts: such an excess
 * (at most the spread of the reads) comes off the largest of the n times. */
static void trim(__u64 *const t[], int n, uint64_t window)
{
	uint64_t sum = 0;

	for (int i = 0; i < n; i++)
		sum += *t[i];
	while (sum > window) {
		__u64 *big = t[0];
		uint64_t cut;

		for (int i = 1; i < n; i++)
			if (*t[i] > *big)
				big = t[i];
		cut = sum - window < *big ? sum - window : *big;
		*big -= cut;
		sum -= cut;
	}
}

/* The CPU's idle periods cut at the interval's edges. */
static void cut_cpu(struct idle_raw *d, const struct idle_raw *prev, int c, uint64_t prev_ns,
		    uint64_t now_ns)
{
	const struct idle_cpu_slot *a = &prev->slots[c];
	struct idle_cpu_slot *b = &d->slots[c];

	/* completed since prev: its time before prev_ns was in prev's view */
	if (a->enter_ns && a->enter_ns < prev_ns && b->enter_ns != a->enter_ns &&
	    a->state < IS_MAX_STATES) {
		struct idle_state_stats *st = &d->stats[c * IS_MAX_STATES + a->state];

		st->time_ns = sub(st->time_ns, prev_ns - a->enter_ns);
	}
	if (b->enter_ns && b->enter_ns < now_ns && b->state < IS_MAX_STATES)
		d->stats[c * IS_MAX_STATES + b->state].time_ns +=
			now_ns - (b->enter_ns > prev_ns ? b->enter_ns : prev_ns);
	b->enter_ns = 0;
	{
		__u64 *t[IS_MAX_STATES];

		for (int i = 0; i < IS_MAX_STATES; i++)
			t[i] = &d->stats[c * IS_MAX_STATES + i].time_ns;
		trim(t, IS_MAX_STATES, now_ns - prev_ns);
	}
	b->unmatched_exits = sub(b->unmatched_exits, a->unmatched_exits);
	if (a->unmatched_exits && a->first_exit_ns)
		b->first_exit_ns = 0; /* that first exit was in prev's view */
	b->bad_state = sub(b->bad_state, a->bad_state);
	b->lost_exits = (__u32)sub(b->lost_exits, a->lost_exits);
	b->wake_pending = 0;
	b->util_ts = 0; /* no utilization per interval */
}

static void sub_wake(struct wake_cpu_stats *d, const struct wake_cpu_stats *a)
{
	for (int k = 0; k < WAKE_NR_KINDS; k++) {
		d->count[k] = sub(d->count[k], a->count[k]);
		d->early[k] = sub(d->early[k], a->early[k]);
	}
	d->detail_drops = sub(d->detail_drops, a->detail_drops);
}

static void sub_lat(struct wake_lat_stats *d, const struct wake_lat_stats *a)
{
	d->count = sub(d->count, a->count);
	d->sum_ns = sub(d->sum_ns, a->sum_ns);
	d->min_ns = d->max_ns = 0;
	d->gov_known = sub(d->gov_known, a->gov_known);
	d->gov_later = sub(d->gov_later, a->gov_later);
	d->gov_earlier = sub(d->gov_earlier, a->gov_earlier);
	d->gov_tick_first = sub(d->gov_tick_first, a->gov_tick_first);
	d->gov_err_sum_ns = sub(d->gov_err_sum_ns, a->gov_err_sum_ns);
	d->gov_err_max_ns = 0; /* a maximum has no delta: the interval's is unknown */
	for (int b = 0; b < IS_HIST_BUCKETS; b++)
		d->hist[b] = sub(d->hist[b], a->hist[b]);
}

static int key_cmp(const void *x, const void *y)
{
	const struct wake_detail_key *a = x, *b = y;

	if (a->cpu != b->cpu)
		return a->cpu < b->cpu ? -1 : 1;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	if (a->aux != b->aux)
		return a->aux < b->aux ? -1 : 1;
	if (a->detail != b->detail)
		return a->detail < b->detail ? -1 : 1;
	return 0;
}

/* Details of cur minus their count in prev (matched by key); rows without
 * a change are dropped. */
static int sub_details(struct idle_raw *d, const struct idle_raw *prev, const struct idle_raw *cur)
{
	struct wake_detail *sorted = dup_array(prev->details, (size_t)prev->nr_details,
					       sizeof(*sorted));

	if (!sorted)
		return -ENOMEM;
	qsort(sorted, (size_t)prev->nr_details, sizeof(*sorted), key_cmp);
	d->details = calloc((size_t)cur->nr_details + 1, sizeof(*d->details));
	if (!d->details) {
		free(sorted);
		return -ENOMEM;
	}
	for (int i = 0; i < cur->nr_details; i++) {
		struct wake_detail row = cur->details[i];
		const struct wake_detail *was = bsearch(&row.key, sorted, (size_t)prev->nr_details,
							sizeof(*sorted), key_cmp);

		if (was) {
			row.val.count = sub(row.val.count, was->val.count);
			row.val.early = sub(row.val.early, was->val.early);
		}
		if (row.val.count)
			d->details[d->nr_details++] = row;
	}
	free(sorted);
	return 0;
}

static void cut_group(struct idle_raw *d, const struct idle_raw *prev, int g, uint64_t prev_ns,
		      uint64_t now_ns, uint64_t start_ns)
{
	const struct group_slot *a = &prev->group_slots[g];
	struct group_slot *b = &d->group_slots[g];
	struct group_stats *st = &d->groups[g];
	const struct group_stats *was = &prev->groups[g];
	uint64_t from;

	st->periods = sub(st->periods, was->periods);
	st->time_ns = sub(st->time_ns, was->time_ns);
	st->min_ns = st->max_ns = 0;
	st->races = sub(st->races, was->races);
	st->folded = sub(st->folded, was->folded);
	for (int i = 0; i < 10; i++) {
		st->state_periods[i] = sub(st->state_periods[i], was->state_periods[i]);
		st->state_time_ns[i] = sub(st->state_time_ns[i], was->state_time_ns[i]);
	}
	for (int i = 0; i < IS_HIST_BUCKETS; i++)
		st->hist[i] = sub(st->hist[i], was->hist[i]);
	/* all idle at prev_ns, ended since: drop its part before prev_ns (BPF
	 * counts an interval that began before the session's start from the
	 * start: bpf/group.bpf.h) */
	from = a->idle_since > start_ns ? a->idle_since : start_ns;
	if (a->idle_since && group_slot_all_idle(a) && b->idle_since != a->idle_since &&
	    from < prev_ns) {
		uint64_t before = prev_ns - from;

		st->time_ns = sub(st->time_ns, before);
		if (a->state < 10)
			st->state_time_ns[a->state] = sub(st->state_time_ns[a->state], before);
	}
	if (b->idle_since && group_slot_all_idle(b) && b->idle_since < now_ns) {
		uint64_t part = now_ns - (b->idle_since > prev_ns ? b->idle_since : prev_ns);

		st->time_ns += part;
		if (b->state < 10)
			st->state_time_ns[b->state] += part;
	}
	b->idle_since = 0;
	if (st->time_ns > now_ns - prev_ns) {
		__u64 *t[IS_MAX_STATES];

		for (int i = 0; i < IS_MAX_STATES; i++)
			t[i] = &st->state_time_ns[i];
		trim(t, IS_MAX_STATES, now_ns - prev_ns);
		st->time_ns = now_ns - prev_ns;
	}
}

/* Halt-polling over an interval: its counts; the limit now, and at the
 * interval's start where a move before it told it (min and max stay those
 * since the window's start: the table keeps no history). */
static void sub_haltpoll(struct haltpoll_cpu *d, const struct haltpoll_cpu *a)
{
	bool before = a->grow + a->shrink > 0;

	d->woken = sub(d->woken, a->woken);
	d->timed_out = sub(d->timed_out, a->timed_out);
	d->grow = sub(d->grow, a->grow);
	d->shrink = sub(d->shrink, a->shrink);
	if (before)
		d->limit_first_ns = a->limit_ns;
}

int idle_raw_delta(const struct idle_raw *prev, const struct idle_raw *cur, uint64_t prev_ns,
		   uint64_t now_ns, struct idle_raw *out)
{
	size_t n = (size_t)cur->nr_cpus, ng = (size_t)cur->nr_groups;

	memset(out, 0, sizeof(*out));
	out->nr_cpus = cur->nr_cpus;
	out->slots = dup_array(cur->slots, n, sizeof(*out->slots));
	out->stats = dup_array(cur->stats, n * IS_MAX_STATES, sizeof(*out->stats));
	out->wake = dup_array(cur->wake, n, sizeof(*out->wake));
	out->lat = dup_array(cur->lat, n * IS_MAX_STATES, sizeof(*out->lat));
	if (!out->slots || !out->stats || !out->wake || !out->lat)
		goto nomem;
	for (size_t c = 0; c < n && (int)c < prev->nr_cpus; c++) {
		for (int i = 0; i < IS_MAX_STATES; i++) {
			sub_state(&out->stats[c * IS_MAX_STATES + i], &prev->stats[c * IS_MAX_STATES + i]);
			if (prev->lat && cur->lat)
				sub_lat(&out->lat[c * IS_MAX_STATES + i], &prev->lat[c * IS_MAX_STATES + i]);
		}
		if (prev->wake && cur->wake)
			sub_wake(&out->wake[c], &prev->wake[c]);
		cut_cpu(out, prev, (int)c, prev_ns, now_ns);
	}
	if (cur->haltpoll) {
		if (!(out->haltpoll = dup_array(cur->haltpoll, n, sizeof(*out->haltpoll))))
			goto nomem;
		for (size_t c = 0; prev->haltpoll && c < n && (int)c < prev->nr_cpus; c++)
			sub_haltpoll(&out->haltpoll[c], &prev->haltpoll[c]);
	}
	if (sub_details(out, prev, cur))
		goto nomem;
	/* the periods PM QoS forced, per ledger slot: slots only ever add */
	out->nr_qos_slots = cur->nr_qos_slots;
	for (int k = 0; k < cur->nr_qos_slots && k < QOS_SLOTS; k++) {
		out->qos_cost[k] = cur->qos_cost[k];
		if (k < prev->nr_qos_slots) {
			out->qos_cost[k].periods = sub(cur->qos_cost[k].periods, prev->qos_cost[k].periods);
			out->qos_cost[k].idle_ns = sub(cur->qos_cost[k].idle_ns, prev->qos_cost[k].idle_ns);
		}
	}
	if (ng && prev->nr_groups == cur->nr_groups) {
		out->groups = dup_array(cur->groups, ng, sizeof(*out->groups));
		out->group_slots = dup_array(cur->group_slots, ng, sizeof(*out->group_slots));
		if (!out->groups || !out->group_slots)
			goto nomem;
		out->nr_groups = cur->nr_groups;
		for (size_t g = 0; g < ng; g++)
			cut_group(out, prev, (int)g, prev_ns, now_ns, cur->start_ns);
	}
	out->cpu_out_of_range = sub(cur->cpu_out_of_range, prev->cpu_out_of_range);
	out->read_ns = cur->read_ns;
	out->start_ns = cur->start_ns;
	out->torn_reads = sub(cur->torn_reads, prev->torn_reads);
	return 0;
nomem:
	idle_raw_free(out);
	return -ENOMEM;
}
