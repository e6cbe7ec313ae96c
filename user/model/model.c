/* Builds the summary model from a window capture: per CPU and state from
 * the BPF counters, percentiles from the histogram, kernel deltas from sysfs,
 * totals over the selected CPUs. */
#include "model/model.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "model/stats.h"
#include "model/wake_names.h"

const char *default_idle_state_name(int i)
{
	/* kernel/sched/idle.c: cpu_idle_poll() reports 0, default_idle_call() 1 */
	return i == 0 ? "poll" : "default-idle";
}

void summary_warn(struct summary *s, const char *fmt, ...)
{
	char buf[512], **w;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	w = realloc(s->warnings, sizeof(*w) * (size_t)(s->nr_warnings + 1));
	if (!w)
		return;
	s->warnings = w;
	s->warnings[s->nr_warnings] = strdup(buf);
	if (s->warnings[s->nr_warnings])
		s->nr_warnings++;
}

static void kernel_delta(struct kernel_delta *d, const struct cpuidle_counters *a,
			 const struct cpuidle_counters *b)
{
	memset(d, 0, sizeof(*d));
	/* a counter that went back was reset (a device re-registered by
	 * hotplug): no delta rather than a wrapped one */
	if (!a->valid || !b->valid || b->usage < a->usage || b->time_us < a->time_us)
		return;
	d->valid = true;
	d->usage = b->usage - a->usage;
	d->time_ns = (b->time_us - a->time_us) * 1000;
	d->has_miss_counters = a->has_miss_counters && b->has_miss_counters;
	if (d->has_miss_counters) {
		d->above = b->above - a->above;
		d->below = b->below - a->below;
	}
	d->has_rejected = a->has_rejected && b->has_rejected;
	if (d->has_rejected)
		d->rejected = b->rejected - a->rejected;
}

static void finish_state(struct state_summary *st)
{
	if (!st->entries)
		return;
	st->avg_ns = st->time_ns / st->entries;
	st->p50_ns = hist_percentile(st->hist, IS_HIST_BUCKETS, st->min_ns, st->max_ns, 50);
	st->p90_ns = hist_percentile(st->hist, IS_HIST_BUCKETS, st->min_ns, st->max_ns, 90);
	st->p99_ns = hist_percentile(st->hist, IS_HIST_BUCKETS, st->min_ns, st->max_ns, 99);
}

static void fill_state(struct state_summary *st, int index, const struct idle_state_stats *raw,
		       bool have_miss)
{
	st->index = index;
	st->entries = raw->entries;
	st->time_ns = raw->time_ns;
	st->min_ns = raw->min_ns;
	st->max_ns = raw->max_ns;
	st->above = raw->above;
	st->below = raw->below;
	st->below_qos = raw->below_qos;
	st->poll_limit = raw->poll_limit;
	st->have_miss = have_miss;
	st->miss_above = raw->miss_above;
	st->miss_below = raw->miss_below;
	st->early = raw->early;
	st->early_ns = raw->early_ns;
	st->fx_entered = raw->fx_entered;
	st->fx_rejected = raw->fx_rejected;
	st->fx_demoted = raw->fx_demoted;
	st->edge_exits = raw->edge_exits;
	st->gov = (struct gov_split){ .known = raw->gov_known,
				      .above_near = raw->gov_above_near,
				      .above_unannounced = raw->gov_above_unannounced,
				      .below_tick = raw->gov_below_tick,
				      .below_history = raw->gov_below_history,
				      .below_timer = raw->gov_below_timer };
	memcpy(st->gov.above_cause, raw->gov_above_cause, sizeof(st->gov.above_cause));
	memcpy(st->ideal, raw->ideal, sizeof(st->ideal));
	memcpy(st->hist, raw->hist, sizeof(st->hist));
	finish_state(st);
}

/* Each state's exit cost (its lateness is in the wake summary, empty
 * without wakeups), and the CPU's, their sum. */
static void cpu_exit_cost(struct cpu_summary *cs)
{
	cs->exit = exit_cost_none();
	for (int i = 0; i < cs->nr_states; i++) {
		struct state_summary *st = &cs->states[i];
		const struct lat_summary *l = &cs->wake.lat[i];

		st->exit = exit_cost_of(&(struct exit_cost_input){
			.entries = st->entries, .early = st->early, .early_ns = st->early_ns,
			.table = st->classified, .exit_latency_ns = st->exit_latency_ns,
			.lateness_samples = l->count, .lateness_sum_ns = l->sum_ns });
		exit_cost_add(&cs->exit, &st->exit);
	}
}

static void finish_lat(struct lat_summary *l)
{
	if (!l->count)
		return;
	l->p50_ns = hist_percentile(l->hist, IS_HIST_BUCKETS, l->min_ns, l->max_ns, 50);
	l->p90_ns = hist_percentile(l->hist, IS_HIST_BUCKETS, l->min_ns, l->max_ns, 90);
	l->p99_ns = hist_percentile(l->hist, IS_HIST_BUCKETS, l->min_ns, l->max_ns, 99);
}

static void add_lat(struct lat_summary *t, const struct lat_summary *s)
{
	if (s->count && (!t->count || s->min_ns < t->min_ns))
		t->min_ns = s->min_ns;
	if (s->max_ns > t->max_ns)
		t->max_ns = s->max_ns;
	t->count += s->count;
	t->sum_ns += s->sum_ns;
	for (int b = 0; b < IS_HIST_BUCKETS; b++)
		t->hist[b] += s->hist[b];
}

/* Causes from the BPF counters, plus the last period's cause if it was
 * still pending at the end (counted as unknown, so causes sum to entries). */
int wake_pending_kind(const struct idle_cpu_slot *slot)
{
	return slot->noipi_from && slot->noipi_gen == slot->wake_gen ? WAKE_NO_IPI : WAKE_UNKNOWN;
}

static void build_wake(struct cpu_summary *cs, int cpu, const struct window_capture *w)
{
	const struct wake_cpu_stats *ws = &w->raw->wake[cpu];
	const struct idle_cpu_slot *slot = &w->raw->slots[cpu];
	struct wake_summary *wk = &cs->wake;

	for (int k = 0; k < WAKE_NR_KINDS; k++) {
		wk->count[k] = ws->count[k];
		wk->early[k] = ws->early[k];
	}
	if (slot->wake_pending) {
		int k = wake_pending_kind(slot);

		wk->count[k]++;
		wk->early[k] += slot->wake_early;
		wk->in_flight = 1;
	}
	for (int k = 0; k < WAKE_NR_KINDS; k++)
		wk->total += wk->count[k];
	wk->detail_drops = ws->detail_drops;
	for (int i = 0; i < cs->nr_states; i++) {
		int idx = cs->states[i].index;
		const struct wake_lat_stats *l = &w->raw->lat[cpu * IS_MAX_STATES + idx];
		struct lat_summary *ls = &wk->lat[i];

		ls->count = l->count;
		ls->sum_ns = l->sum_ns;
		ls->min_ns = l->min_ns;
		ls->max_ns = l->max_ns;
		memcpy(ls->hist, l->hist, sizeof(ls->hist));
		finish_lat(ls);
		cs->states[i].gov.timer_known = l->gov_known;
		cs->states[i].gov.timer_later = l->gov_later;
		cs->states[i].gov.timer_earlier = l->gov_earlier;
		cs->states[i].gov.timer_tick_first = l->gov_tick_first;
		cs->states[i].gov.timer_err_sum_ns = l->gov_err_sum_ns;
		cs->states[i].gov.timer_err_max_ns = l->gov_err_max_ns;
	}
}

int wake_row_cmp(const struct wake_row *x, const struct wake_row *y)
{
	int c;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if ((c = strcmp(x->name, y->name)))
		return c;
	if (x->detail != y->detail)
		return x->detail < y->detail ? -1 : 1;
	if (x->aux != y->aux)
		return x->aux < y->aux ? -1 : 1;
	return 0;
}

static int row_cmp(const void *a, const void *b)
{
	return wake_row_cmp(a, b);
}

/* Detail rows of the selected CPUs, with names resolved. */
static int build_wake_rows(struct summary *s, const struct window_capture *w,
			   const struct cpulist *sel)
{
	const struct idle_raw *raw = w->raw;
	uint64_t *fns;
	char (*names)[64];
	int n = 0, nfn = 0;

	s->wake_rows = calloc((size_t)raw->nr_details + 1, sizeof(*s->wake_rows));
	fns = calloc((size_t)raw->nr_details + 1, sizeof(*fns));
	names = calloc((size_t)raw->nr_details + 1, sizeof(*names));
	if (!s->wake_rows || !fns || !names) {
		free(fns);
		free(names);
		return -ENOMEM;
	}
	for (int i = 0; i < raw->nr_details; i++) {
		const struct wake_detail *d = &raw->details[i];
		struct wake_row *r = &s->wake_rows[n];

		if (!cpulist_has(sel, (int)d->key.cpu) || !d->val.count)
			continue;
		r->cpu = (int)d->key.cpu;
		r->kind = (int)d->key.kind;
		r->aux = d->key.aux;
		r->detail = d->key.detail;
		r->count = d->val.count;
		r->early = d->val.early;
		if (r->kind == WDETAIL_IRQ && w->irq_name)
			w->irq_name((unsigned int)r->detail, r->name, sizeof(r->name));
		else if (r->kind == WDETAIL_SOFTIRQ)
			snprintf(r->name, sizeof(r->name), "%s", softirq_name(r->detail));
		else if (r->kind == WDETAIL_WAKEE || r->kind == WDETAIL_GROUP_WAKEE)
			snprintf(r->name, sizeof(r->name), "%.*s", (int)sizeof(d->val.comm),
				 d->val.comm);
		else if (r->kind == WDETAIL_TIMER_FN)
			fns[nfn++] = r->detail;
		n++;
	}
	for (int i = 0; i < nfn; i++)
		snprintf(names[i], sizeof(names[i]), "0x%llx", (unsigned long long)fns[i]);
	if (w->ksym_resolve)
		w->ksym_resolve(fns, nfn, names);
	for (int i = 0; i < n; i++) {
		struct wake_row *r = &s->wake_rows[i];

		if (r->kind != WDETAIL_TIMER_FN)
			continue;
		for (int j = 0; j < nfn; j++)
			if (fns[j] == r->detail) {
				snprintf(r->name, sizeof(r->name), "%s", names[j]);
				break;
			}
	}
	free(fns);
	free(names);
	qsort(s->wake_rows, (size_t)n, sizeof(*s->wake_rows), row_cmp);
	s->nr_wake_rows = n;
	return 0;
}

/* A CPU's frequency residency, with the last frequency held to the end. */
static void build_freq(struct cpu_summary *cs, int cpu, const struct window_capture *w)
{
	const struct freq_cpu *f = &w->raw->freq[cpu];
	struct freq_summary *o = &cs->freq;
	uint64_t from = f->since_ns > w->start_ns ? f->since_ns : w->start_ns;

	o->nr = (int)(f->nr < IS_FREQ_SLOTS ? f->nr : IS_FREQ_SLOTS);
	for (int i = 0; i < o->nr; i++) {
		o->khz[i] = f->khz[i];
		o->time_ns[i] = f->time_ns[i];
	}
	o->changes = f->changes;
	o->drops = f->drops;
	if (!f->cur_khz || w->stop_ns <= from)
		return;
	for (int i = 0; i < o->nr; i++)
		if (o->khz[i] == f->cur_khz) {
			o->time_ns[i] += w->stop_ns - from;
			return;
		}
	if (o->nr < IS_FREQ_SLOTS) {
		o->khz[o->nr] = f->cur_khz;
		o->time_ns[o->nr++] = w->stop_ns - from;
	}
}

/* Halt-polling: the POLL state's periods and the halt state's exit (its
 * timer lateness, or its table) with the BPF table (model/haltpoll.c). */
static void build_haltpoll(struct cpu_summary *cs, int cpu, const struct window_capture *w)
{
	const int p = IS_HALTPOLL_POLL_STATE, h = HALTPOLL_HALT_STATE;
	struct haltpoll_input in = { .raw = &w->raw->haltpoll[cpu] };

	if (cs->nr_states > p) {
		in.polls = cs->states[p].entries;
		in.poll_ns = cs->states[p].time_ns;
	}
	if (cs->nr_states > h) {
		in.halt_declared = cs->states[h].classified;
		in.halt_exit_latency_ns = cs->states[h].exit_latency_ns;
		in.lateness_samples = cs->wake.lat[h].count;
		in.lateness_sum_ns = cs->wake.lat[h].sum_ns;
	}
	cs->haltpoll = haltpoll_of(&in);
}

static void build_cpu(struct cpu_summary *cs, int cpu, const struct window_capture *w,
		      const struct topology *topo, bool have_miss, bool have_fexit, bool have_gov)
{
	const struct cpuidle_cpu_info *info = &w->info[cpu];
	const struct idle_cpu_slot *slot = &w->raw->slots[cpu];
	const struct idle_state_stats *raw = &w->raw->stats[cpu * IS_MAX_STATES];
	uint64_t window = w->stop_ns - w->start_ns, idle, edge_end = w->stop_ns;

	memset(cs, 0, sizeof(*cs));
	cs->cpu = cpu;
	cs->online = cpu < topo->nr_cpus && topo->cpus[cpu].online;
	if (info->nr_states) {
		cs->nr_states = info->nr_states;
		for (int i = 0; i < info->nr_states; i++) {
			struct state_summary *st = &cs->states[i];

			fill_state(st, i, &raw[i], have_miss);
			st->have_fexit = have_fexit;
			st->have_gov = have_gov;
			snprintf(st->name, sizeof(st->name), "%s", info->states[i].name);
			snprintf(st->desc, sizeof(st->desc), "%s", info->states[i].desc);
			st->exit_latency_ns = info->states[i].exit_latency_ns;
			st->target_residency_ns = info->states[i].target_residency_ns;
			st->disabled = info->states[i].disabled;
			st->poll = info->states[i].poll;
			st->poll_limit_known = st->poll && info->poll_limit_ns;
			st->classified = !info->unclassified;
			kernel_delta(&st->kernel, &w->k_start[cpu * IS_MAX_STATES + i],
				     &w->k_end[cpu * IS_MAX_STATES + i]);
		}
	} else {
		/* No driver: default_idle_call() periods, plus forced-poll ones if any. */
		fill_state(&cs->states[0], 1, &raw[1], false);
		snprintf(cs->states[0].name, IS_NAME_LEN, "%s", default_idle_state_name(1));
		cs->nr_states = 1;
		if (raw[0].entries) {
			fill_state(&cs->states[1], 0, &raw[0], false);
			snprintf(cs->states[1].name, IS_NAME_LEN, "%s", default_idle_state_name(0));
			cs->states[1].poll = true;
			cs->nr_states = 2;
		}
	}
	for (int i = 0; i < cs->nr_states; i++) {
		cs->entries += cs->states[i].entries;
		cs->idle_ns += cs->states[i].time_ns;
		/* an edge exit of unknown state may have been any of them */
		cs->states[i].edge_exits += slot->edge_unknown;
	}
	if (w->raw->wake)
		build_wake(cs, cpu, w);
	cpu_exit_cost(cs);
	if (w->raw->freq)
		build_freq(cs, cpu, w);
	if (w->raw->haltpoll)
		build_haltpoll(cs, cpu, w);
	/* read with the topology (sys/topology.c); 0 there: no cpu_capacity file */
	cs->capacity = cpu < topo->nr_cpus && topo->cpus[cpu].capacity
			       ? (int64_t)topo->cpus[cpu].capacity : -1;
	if (slot->util_ts) {
		uint64_t acc = slot->util_acc, from = slot->util_ts > w->start_ns ? slot->util_ts
										   : w->start_ns;

		if (w->stop_ns > from)
			acc += slot->util_last * (w->stop_ns - from);
		cs->util_avg = window ? acc / window : 0;
		cs->util_max = slot->util_max > slot->util_last ? slot->util_max : slot->util_last;
	}
	cs->unmatched_exits = slot->unmatched_exits;
	/* only an unmatched first event began before the window (bpf/idle.bpf.h);
	 * the others lost their enter: their start, so their idle time, is unknown */
	cs->orphan_exits = slot->unmatched_exits - (slot->first_exit_ns && slot->unmatched_exits);
	cs->lost_exits = slot->lost_exits;
	cs->bad_state = slot->bad_state;
	if (slot->first_exit_ns > w->start_ns)
		cs->edge_idle_ns += slot->first_exit_ns - w->start_ns;
	if (w->hotplug && w->hotplug->ok && cpu < w->hotplug->nr_cpus) {
		const struct hotplug_cpu *hp = &w->hotplug->cpu[cpu];

		cs->offline_ns = hotplug_offline_ns(w->hotplug, cpu, w->stop_ns);
		if (cs->offline_ns > window)
			cs->offline_ns = window;
		cs->hotplug_events = hotplug_events(w->hotplug, cpu);
		cs->offline_periods = hotplug_periods(w->hotplug, cpu);
		/* an idle period cannot run on past the CPU going down */
		if (hp->offline_since)
			edge_end = hp->offline_since;
		cs->online = !hp->offline_since;
	}
	/* a period entered at stop itself is still in progress there */
	if (slot->enter_ns && slot->enter_ns <= edge_end) {
		cs->idle_at_end = true;
		cs->edge_idle_ns += edge_end - (slot->enter_ns > w->start_ns ? slot->enter_ns
									    : w->start_ns);
	}
	/* offline time is polled (each edge within half a poll); idle time is
	 * measured: where they overlap, the estimate gives way */
	idle = cs->idle_ns + cs->edge_idle_ns;
	if (cs->offline_ns > (idle < window ? window - idle : 0))
		cs->offline_ns = idle < window ? window - idle : 0;
	idle += cs->offline_ns;
	cs->busy_ns = idle < window ? window - idle : 0;
	cs->idle_task_ns = w->idle_task_ns ? w->idle_task_ns[cpu] : -1;
	if (w->idle_unrecorded)
		cs->status = "idle states not recorded";
	else if (!cs->online)
		cs->status = "offline";
	else if (!cs->entries && !cs->unmatched_exits && !cs->idle_at_end)
		cs->status = "no idle events (fully busy, or events lost)";
	else if (!cs->entries && !cs->busy_ns)
		cs->status = "idle for the whole window (no complete period)";
	else if (!cs->entries)
		cs->status = "no complete idle period (idle only at the window's edges)";
	else
		cs->status = "ok";
}

/* Group rows for groups with a selected CPU; state names from the first
 * member's table. */
static int build_groups(struct summary *s, const struct window_capture *w,
			const struct cpulist *sel)
{
	const struct groups *gr = w->groups;

	if (!gr || !w->raw->groups)
		return 0;
	snprintf(s->group_level, sizeof(s->group_level), "%s", gr->level);
	s->nr_levels = gr->nr_levels;
	for (int l = 0; l < gr->nr_levels; l++) {
		snprintf(s->levels[l].name, sizeof(s->levels[l].name), "%s", gr->levels[l]);
		for (int c = 0; c < w->raw->nr_cpus; c++)
			s->levels[l].node_updates += w->raw->slots[c].node_updates[l];
	}
	for (int g = 0; g < gr->nr_groups; g++)
		s->levels[gr->node[g].level].groups++;
	s->groups = calloc((size_t)gr->nr_groups, sizeof(*s->groups));
	if (!s->groups)
		return -ENOMEM;
	for (int g = 0; g < gr->nr_groups && g < w->raw->nr_groups; g++) {
		const struct group_stats *st = &w->raw->groups[g];
		const struct group_slot *gs = &w->raw->group_slots[g];
		struct group_summary *o = &s->groups[s->nr_groups];
		int first = cpulist_first(&gr->cpus[g]);
		bool any = false;

		for (int c = 0; c < IS_CPULIST_MAX; c++)
			any |= cpulist_has(&gr->cpus[g], c) && cpulist_has(sel, c);
		if (!any || first < 0)
			continue;
		o->id = g;
		groups_name(gr, g, o->name, sizeof(o->name));
		o->index = gr->node[g].index;
		snprintf(o->level, sizeof(o->level), "%s", gr->levels[gr->node[g].level]);
		if (gr->node[g].parent >= 0)
			groups_name(gr, gr->node[g].parent, o->parent, sizeof(o->parent));
		if (!(o->cpus = cpulist_str(&gr->cpus[g])))
			return -ENOMEM;
		o->periods = st->periods;
		o->time_ns = st->time_ns;
		o->min_ns = st->min_ns;
		o->max_ns = st->max_ns;
		o->races = st->races;
		o->folded = st->folded;
		memcpy(o->hist, st->hist, sizeof(o->hist));
		if (o->periods) {
			o->avg_ns = o->time_ns / o->periods;
			o->p50_ns = hist_percentile(o->hist, IS_HIST_BUCKETS, o->min_ns, o->max_ns, 50);
			o->p90_ns = hist_percentile(o->hist, IS_HIST_BUCKETS, o->min_ns, o->max_ns, 90);
			o->p99_ns = hist_percentile(o->hist, IS_HIST_BUCKETS, o->min_ns, o->max_ns, 99);
		}
		o->nr_states = w->info[first].nr_states ? w->info[first].nr_states : 2;
		for (int i = 0; i < o->nr_states; i++) {
			o->states[i].index = i;
			snprintf(o->states[i].name, IS_NAME_LEN, "%s",
				 w->info[first].nr_states ? w->info[first].states[i].name
							  : default_idle_state_name(i));
			o->states[i].periods = st->state_periods[i];
			o->states[i].time_ns = st->state_time_ns[i];
		}
		if (gs->idle_since && (int16_t)(gs->word & 0xffff) == gr->node[g].nr_children &&
		    gs->idle_since <= w->stop_ns) {
			o->idle_at_end = true;
			o->edge_idle_ns = w->stop_ns - (gs->idle_since > w->start_ns ? gs->idle_since
											: w->start_ns);
		}
		s->nr_groups++;
	}
	return 0;
}

/* The busy-group timeline, closed at stop from the frozen state word. */

/* Whether a task of total ns and pid ranks before row: more runtime first,
 * then the lower pid, so that ties come out the same in every run. */
static bool task_before(const struct pack_task_row *row, uint64_t total, uint32_t pid)
{
	return total > row->total_ns || (total == row->total_ns && pid < row->pid);
}
static void build_pack(struct summary *s, const struct window_capture *w)
{
	const struct idle_raw *raw = w->raw;
	const struct pack_global *pg = &raw->pack;
	const struct groups *gr = w->groups;
	struct pack_summary *p = &s->pack;
	uint64_t stop_us = w->stop_ns / 1000, start_us = w->start_ns / 1000, last;
	uint32_t g, c;

	if (!raw->have_pack || !gr)
		return;
	p->enabled = true;
	snprintf(p->level, sizeof(p->level), "%s", gr->levels[gr->pack_level]);
	for (int i = 0; i < gr->nr_groups; i++) {
		if (gr->node[i].level != gr->pack_level)
			continue;
		p->nr_groups++;
		if ((uint32_t)cpulist_count(&gr->cpus[i]) > p->max_group_cpus)
			p->max_group_cpus = (uint32_t)cpulist_count(&gr->cpus[i]);
	}
	p->nr_slots = p->nr_groups + 1 < IS_PACK_SLOTS ? p->nr_groups + 1 : IS_PACK_SLOTS;
	memcpy(p->busy_ns, pg->busy_ns, sizeof(p->busy_ns));
	p->spread_ns = pg->spread_ns;
	/* the state that held from the last change to the end of the window */
	last = PACK_US(pg->word);
	if (last < (start_us & ((1ULL << 40) - 1)))
		last = start_us & ((1ULL << 40) - 1);
	g = PACK_GROUPS(pg->word);
	c = PACK_CPUS(pg->word);
	if ((stop_us & ((1ULL << 40) - 1)) > last && g < IS_PACK_SLOTS) {
		uint64_t d = ((stop_us & ((1ULL << 40) - 1)) - last) * 1000;

		p->busy_ns[g] += d;
		if (g >= 2 && c <= p->max_group_cpus)
			p->spread_ns += d;
	}
	p->cross_wakeups = pg->cross_wakeups;
	p->cross_migrations = pg->cross_migrations;
	p->lost_updates = pg->lost_updates;
	p->task_drops = pg->task_drops;
	/* top tasks by runtime, summed over groups */
	for (int i = 0; i < raw->nr_pack_tasks; i++) {
		const struct pack_task_key *k = &raw->pack_keys[i];
		struct pack_task_row *row = NULL;
		int j;

		for (j = 0; j < p->nr_tasks; j++)
			if (p->tasks[j].pid == k->pid)
				row = &p->tasks[j];
		if (!row) {
			uint64_t total = 0;

			/* this pid's total decides whether it enters the top 10 */
			for (int m = 0; m < raw->nr_pack_tasks; m++)
				if (raw->pack_keys[m].pid == k->pid)
					total += raw->pack_vals[m].runtime_ns;
			if (p->nr_tasks < 10) {
				row = &p->tasks[p->nr_tasks++];
			} else {
				int min = 0;

				/* the last-ranked task: the one every other ranks before */
				for (j = 1; j < p->nr_tasks; j++)
					if (task_before(&p->tasks[j], p->tasks[min].total_ns,
							p->tasks[min].pid))
						min = j;
				if (!task_before(&p->tasks[min], total, k->pid))
					continue;
				row = &p->tasks[min];
			}
			memset(row, 0, sizeof(*row));
			row->pid = k->pid;
			row->total_ns = total;
			/* keys hold the tree's group index; rows the level's */
			for (int m = 0; m < raw->nr_pack_tasks; m++) {
				uint32_t kg = raw->pack_keys[m].group;
				int li = kg < (uint32_t)gr->nr_groups ? gr->node[kg].index : -1;

				if (raw->pack_keys[m].pid == k->pid && li >= 0 && li < 8)
					row->group_ns[li] += raw->pack_vals[m].runtime_ns;
			}
		}
		/* the name of the entry with the most runtime (a task may exec) */
		{
			uint64_t best = 0;

			bool any = false;

			for (int m = 0; m < raw->nr_pack_tasks; m++) {
				const struct pack_task_val *v = &raw->pack_vals[m];

				/* ties by comm: the hash map's order is not the same twice */
				if (raw->pack_keys[m].pid != k->pid || v->runtime_ns < best ||
				    (any && v->runtime_ns == best &&
				     strncmp(v->comm, row->comm, 15) >= 0))
					continue;
				best = v->runtime_ns;
				any = true;
				snprintf(row->comm, sizeof(row->comm), "%.15s", v->comm);
			}
		}
	}
	for (int a = 0; a < p->nr_tasks; a++) /* by runtime, descending */
		for (int b = a + 1; b < p->nr_tasks; b++)
			if (task_before(&p->tasks[a], p->tasks[b].total_ns, p->tasks[b].pid)) {
				struct pack_task_row t = p->tasks[a];

				p->tasks[a] = p->tasks[b];
				p->tasks[b] = t;
			}
}

static void gov_split_add(struct gov_split *t, const struct gov_split *s)
{
	t->known += s->known;
	t->above_near += s->above_near;
	t->above_unannounced += s->above_unannounced;
	t->below_tick += s->below_tick;
	t->below_history += s->below_history;
	t->below_timer += s->below_timer;
	for (int k = 0; k < WAKE_NR_KINDS; k++)
		t->above_cause[k] += s->above_cause[k];
	t->timer_known += s->timer_known;
	t->timer_later += s->timer_later;
	t->timer_earlier += s->timer_earlier;
	t->timer_tick_first += s->timer_tick_first;
	t->timer_err_sum_ns += s->timer_err_sum_ns;
	if (s->timer_err_max_ns > t->timer_err_max_ns)
		t->timer_err_max_ns = s->timer_err_max_ns;
}

static void add_state(struct state_summary *t, const struct state_summary *s)
{
	if (!t->name[0]) {
		*t = *s;
		return;
	}
	if (s->entries && (!t->entries || s->min_ns < t->min_ns))
		t->min_ns = s->min_ns;
	if (s->max_ns > t->max_ns)
		t->max_ns = s->max_ns;
	t->entries += s->entries;
	t->time_ns += s->time_ns;
	t->above += s->above;
	t->below += s->below;
	t->below_qos += s->below_qos;
	gov_split_add(&t->gov, &s->gov);
	t->poll_limit += s->poll_limit;
	t->poll_limit_known = t->poll_limit_known && s->poll_limit_known;
	t->miss_above += s->miss_above;
	t->miss_below += s->miss_below;
	t->early += s->early;
	t->early_ns += s->early_ns;
	exit_cost_add(&t->exit, &s->exit);
	t->have_fexit = s->have_fexit;
	t->have_gov = s->have_gov;
	t->fx_entered += s->fx_entered;
	t->fx_rejected += s->fx_rejected;
	t->fx_demoted += s->fx_demoted;
	t->edge_exits += s->edge_exits;
	for (int i = 0; i < IS_MAX_STATES; i++)
		t->ideal[i] += s->ideal[i];
	for (int b = 0; b < IS_HIST_BUCKETS; b++)
		t->hist[b] += s->hist[b];
	t->kernel.valid = t->kernel.valid && s->kernel.valid;
	t->kernel.has_miss_counters = t->kernel.has_miss_counters && s->kernel.has_miss_counters;
	t->kernel.has_rejected = t->kernel.has_rejected && s->kernel.has_rejected;
	t->kernel.usage += s->kernel.usage;
	t->kernel.time_ns += s->kernel.time_ns;
	t->kernel.above += s->kernel.above;
	t->kernel.below += s->kernel.below;
	t->kernel.rejected += s->kernel.rejected;
}

static void build_totals(struct summary *s)
{
	struct cpu_summary *t = &s->totals;

	memset(t, 0, sizeof(*t));
	t->cpu = -1;
	t->online = true;
	t->status = s->idle_unrecorded ? "idle states not recorded" : "ok";
	t->idle_task_ns = -1;
	for (int c = 0; c < s->nr_cpus; c++) {
		const struct cpu_summary *cs = &s->cpus[c];

		for (int i = 0; i < cs->nr_states; i++) {
			const struct state_summary *st = &cs->states[i];
			int slot = -1;

			/* match by kernel index and name (tables may differ per CPU) */
			for (int j = 0; j < t->nr_states; j++)
				if (t->states[j].index == st->index && !strcmp(t->states[j].name, st->name))
					slot = j;
			if (slot < 0) {
				if (t->nr_states == IS_MAX_STATES)
					continue;
				slot = t->nr_states++;
			}
			add_state(&t->states[slot], st);
			add_lat(&t->wake.lat[slot], &cs->wake.lat[i]);
		}
		for (int k = 0; k < WAKE_NR_KINDS; k++) {
			t->wake.count[k] += cs->wake.count[k];
			t->wake.early[k] += cs->wake.early[k];
		}
		t->wake.total += cs->wake.total;
		t->wake.in_flight += cs->wake.in_flight;
		t->wake.detail_drops += cs->wake.detail_drops;
		t->entries += cs->entries;
		t->idle_ns += cs->idle_ns;
		t->edge_idle_ns += cs->edge_idle_ns;
		t->busy_ns += cs->busy_ns;
		t->offline_ns += cs->offline_ns;
		t->hotplug_events += cs->hotplug_events;
		t->offline_periods += cs->offline_periods;
		t->unmatched_exits += cs->unmatched_exits;
		t->orphan_exits += cs->orphan_exits;
		t->lost_exits += cs->lost_exits;
		/* the total only when every CPU's is known */
		if (cs->idle_task_ns < 0 || (c && t->idle_task_ns < 0))
			t->idle_task_ns = -1;
		else
			t->idle_task_ns = (c ? t->idle_task_ns : 0) + cs->idle_task_ns;
		t->idle_at_end = t->idle_at_end || cs->idle_at_end;
		t->bad_state += cs->bad_state;
		if (cs->haltpoll.known) {
			t->haltpoll.known = true;
			haltpoll_add(&t->haltpoll, &cs->haltpoll);
		}
	}
	for (int j = 0; j < t->nr_states; j++) {
		t->states[j].avg_ns = 0;
		finish_state(&t->states[j]);
		finish_lat(&t->wake.lat[j]);
	}
	t->exit = exit_cost_none();
	for (int j = 0; j < t->nr_states; j++)
		exit_cost_add(&t->exit, &t->states[j].exit);
}

/* A CPU hot-unplugged during the window: its gap, and a kernel cross-check
 * lost with the cpuidle files the kernel re-created. */
static void warn_hotplug(struct summary *s, const struct cpu_summary *cs)
{
	bool lost = false;

	if (!cs->offline_periods)
		return;
	summary_warn(s, "CPU %d was offline for %.3f s (%u time%s) during the window", cs->cpu,
		     (double)cs->offline_ns / 1e9, cs->offline_periods,
		     cs->offline_periods == 1 ? "" : "s");
	for (int i = 0; i < cs->nr_states; i++)
		lost |= cs->states[i].classified && !cs->states[i].kernel.valid;
	if (lost && cs->hotplug_events)
		summary_warn(s, "CPU %d: no kernel cross-check: hotplug re-created or reset its "
				"cpuidle counters", cs->cpu);
}

int summary_build(struct summary *s, const struct window_capture *w, const struct cpulist *sel)
{
	struct utsname u;
	bool have_miss = s->miss_attach != NULL;

	s->start_ns = w->start_ns;
	s->idle_unrecorded = w->idle_unrecorded;
	s->duration_ns = w->stop_ns - w->start_ns;
	s->snapshot_ns = w->snapshot_ns;
	if (uname(&u) == 0)
		snprintf(s->kernel, sizeof(s->kernel), "%s", u.release);
	s->nr_cpus = 0;
	s->cpus = calloc((size_t)cpulist_count(sel) + 1, sizeof(*s->cpus));
	if (!s->cpus)
		return -ENOMEM;
	for (int c = 0; c < w->raw->nr_cpus; c++) {
		if (!cpulist_has(sel, c))
			continue;
		build_cpu(&s->cpus[s->nr_cpus], c, w, s->topo, have_miss, s->idle_fexit_func != NULL,
			  s->gov_inputs);
		s->nr_cpus++;
	}
	s->cpu_out_of_range = w->raw->cpu_out_of_range;
	for (int c = 0; w->hotplug && c < w->hotplug->nr_cpus; c++)
		s->hotplug_seen |= hotplug_events(w->hotplug, c) != 0;
	build_totals(s);
	if (s->wake_enabled && build_wake_rows(s, w, sel))
		return -ENOMEM;
	if (build_groups(s, w, sel))
		return -ENOMEM;
	build_pack(s, w);
	if (qos_summary_build(&s->qos, w->ledger, w->raw, w->info, sel, w->start_ns, w->stop_ns,
			      w->qos_lost))
		return -ENOMEM;
	if (w->raw->have_pack && w->raw->pack.ou_seen) {
		const struct pack_global *pg = &w->raw->pack;

		s->overutilized_ns = pg->ou_ns;
		if (pg->ou_state && w->stop_ns > pg->ou_since)
			s->overutilized_ns += w->stop_ns - (pg->ou_since > w->start_ns ? pg->ou_since
										: w->start_ns);
	}
	if (s->pack.lost_updates)
		summary_warn(s, "packing: %llu state changes lost to contention",
			     (unsigned long long)s->pack.lost_updates);
	if (s->pack.task_drops)
		summary_warn(s, "packing: %llu task runtimes dropped (table full)",
			     (unsigned long long)s->pack.task_drops);

	if (!strcmp(s->sys.driver, "none"))
		summary_warn(s, "no cpuidle driver: idle periods come from the default idle call, "
				"shown as one state 'default-idle' without above/below");
	else if (!have_miss)
		summary_warn(s, "power:cpu_idle_miss is not available: above/below are the BPF "
				"classification only (compare with the kernel_check counters)");
	if (!strcmp(s->sys.driver, "haltpoll") && !s->totals.haltpoll.known)
		summary_warn(s, "halt-polling not counted: the governor is '%s', not haltpoll "
				"(only its select tells how a poll ended)", s->sys.governor);
	if (s->cpu_out_of_range)
		summary_warn(s, "%llu idle events from CPUs beyond the maps were dropped",
			     (unsigned long long)s->cpu_out_of_range);
	if (s->totals.bad_state)
		summary_warn(s, "%llu idle entries with a state index beyond the state tables were dropped",
			     (unsigned long long)s->totals.bad_state);
	for (int c = 0; c < s->nr_cpus; c++)
		if (s->cpus[c].orphan_exits)
			summary_warn(s, "CPU %d: %llu idle exits without their enter after its first idle "
					"event (enter lost): not counted, their idle time unknown",
				     s->cpus[c].cpu, (unsigned long long)s->cpus[c].orphan_exits);
	for (int c = 0; c < s->nr_cpus; c++)
		if (s->cpus[c].lost_exits)
			summary_warn(s, "CPU %d: %llu idle entries while a period was open (its exit "
					"lost): those periods are not counted, their time counts as busy",
				     s->cpus[c].cpu, (unsigned long long)s->cpus[c].lost_exits);
	for (int c = 0; c < s->nr_cpus && !s->idle_unrecorded; c++)
		if (strcmp(s->cpus[c].status, "ok"))
			summary_warn(s, "CPU %d: %s", s->cpus[c].cpu, s->cpus[c].status);
	for (int c = 0; c < s->nr_cpus; c++)
		warn_hotplug(s, &s->cpus[c]);
	if (s->hotplug_seen && strcmp(s->sys.driver, "none"))
		summary_warn(s, "CPU hotplug paused cpuidle: default-idle periods count as state 1, "
				"which the kernel's counters omit (its cross-check is a lower bound only)");
	if (s->missing_events && s->missing_events[0])
		summary_warn(s, "not on this kernel (skipped): %s", s->missing_events);
	if (s->without && s->without[0])
		summary_warn(s, "left out (--without), not measured: %s", s->without);
	if (s->start_state.live && s->start_state.unknown_cpus > 0)
		summary_warn(s, "%d CPU%s of unknown state at the start (no idle event since the "
				"attach%s%s): one idle then counts as busy in its group until its first "
				"idle entry",
			     s->start_state.unknown_cpus, s->start_state.unknown_cpus == 1 ? "" : "s",
			     s->start_state.poke_why && s->start_state.poke_why[0] ? "; not poked: " : "",
			     s->start_state.poke_why ? s->start_state.poke_why : "");
	for (int c = 0; s->wake_enabled && c < s->nr_cpus; c++) {
		const struct cpu_summary *cs = &s->cpus[c];

		/* every counted exit has exactly one cause */
		if (cs->wake.total != cs->entries)
			summary_warn(s, "CPU %d: %llu wakeup causes for %llu idle exits", cs->cpu,
				     (unsigned long long)cs->wake.total,
				     (unsigned long long)cs->entries);
		if (cs->wake.detail_drops)
			summary_warn(s, "CPU %d: %llu wakeup details dropped (detail table full)",
				     cs->cpu, (unsigned long long)cs->wake.detail_drops);
	}
	return 0;
}

void summary_free(struct summary *s)
{
	for (int i = 0; i < s->nr_warnings; i++)
		free(s->warnings[i]);
	free(s->warnings);
	free(s->cpus);
	free(s->wake_rows);
	for (int i = 0; i < s->nr_groups; i++)
		free(s->groups[i].cpus);
	free(s->groups);
	qos_summary_free(&s->qos);
	for (int i = 0; i < s->nr_freq_domains; i++)
		free(s->freq_domains[i].cpus);
	s->nr_freq_domains = 0;
	s->groups = NULL;
	s->nr_groups = 0;
	s->wake_rows = NULL;
	s->nr_wake_rows = 0;
	s->warnings = NULL;
	s->cpus = NULL;
	s->nr_warnings = 0;
}

bool summary_classified(const struct summary *s)
{
	for (int c = 0; c < s->nr_cpus; c++)
		if (s->cpus[c].nr_states > 1 && s->cpus[c].states[0].classified)
			return true;
	return false;
}
