/* Unit tests for `idlescope top`: interval deltas of raw snapshots
 * (user/session/raw_delta.c) against hand-computed periods, and the screen layout
 * (user/render/render_top.c): 80x24 holds, with many CPUs and states. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "session/raw_cut.h"
#include "session/raw_delta.h"
#include "render/render_top.h"

static void raw_alloc(struct idle_raw *r, int ncpu, int ngroups)
{
	memset(r, 0, sizeof(*r));
	r->nr_cpus = ncpu;
	r->slots = calloc((size_t)ncpu, sizeof(*r->slots));
	r->stats = calloc((size_t)ncpu * IS_MAX_STATES, sizeof(*r->stats));
	r->wake = calloc((size_t)ncpu, sizeof(*r->wake));
	r->lat = calloc((size_t)ncpu * IS_MAX_STATES, sizeof(*r->lat));
	r->details = calloc(4, sizeof(*r->details));
	if (ngroups) {
		r->nr_groups = ngroups;
		r->groups = calloc((size_t)ngroups, sizeof(*r->groups));
		r->group_slots = calloc((size_t)ngroups, sizeof(*r->group_slots));
	}
}

static void detail(struct idle_raw *r, uint32_t kind, uint64_t d, uint64_t count)
{
	struct wake_detail *w = &r->details[r->nr_details++];

	w->key.kind = kind;
	w->key.detail = d;
	w->val.count = count;
}

/* One CPU, interval [1000, 2000] ns:
 *   a state-1 period 900..1100 in flight at 1000 (prev: 10 periods, 1000 ns);
 *   a state-1 period 1200..1500;
 *   a state-0 period from 1800, in flight at 2000.
 * cur's state-1 counters: 12 periods, 1000 + 200 + 300 = 1500 ns.
 * Interval: state 1 = 100 (1000..1100) + 300 = 400 ns, 2 periods;
 * state 0 = 200 ns (1800..2000), no completed period. */
static void test_delta_cuts_periods(void **state)
{
	struct idle_raw prev, cur, d;

	(void)state;
	raw_alloc(&prev, 1, 1);
	raw_alloc(&cur, 1, 1);
	prev.stats[1].entries = 10;
	prev.stats[1].time_ns = 1000;
	prev.stats[1].below = 4;
	prev.slots[0].enter_ns = 900;
	prev.slots[0].state = 1;
	cur.stats[1].entries = 12;
	cur.stats[1].time_ns = 1500;
	cur.stats[1].below = 5;
	prev.stats[1].early = 2; /* 1 early period of 300 ns in the interval */
	prev.stats[1].early_ns = 500;
	cur.stats[1].early = 3;
	cur.stats[1].early_ns = 800;
	prev.stats[1].fx_entered = 10; /* fexit's counts are deltas too */
	cur.stats[1].fx_entered = 12;
	cur.stats[1].min_ns = 7;
	cur.slots[0].enter_ns = 1800;
	cur.slots[0].state = 0;
	/* wakeups: 3 timer causes in the interval; one still pending */
	prev.wake[0].count[WAKE_TIMER] = 5;
	cur.wake[0].count[WAKE_TIMER] = 8;
	cur.slots[0].wake_pending = 1;
	/* details: A 4 -> 6, B new with 2, C unchanged */
	detail(&prev, WDETAIL_TIMER_FN, 0xa, 4);
	detail(&prev, WDETAIL_TIMER_FN, 0xc, 3);
	detail(&cur, WDETAIL_TIMER_FN, 0xc, 3);
	detail(&cur, WDETAIL_TIMER_FN, 0xb, 2);
	detail(&cur, WDETAIL_TIMER_FN, 0xa, 6);
	/* group of 2 CPUs all idle 950..1050 (prev 100 ns in total), then
	 * all idle again from 1900 in state 0 */
	prev.groups[0].time_ns = 100;
	prev.groups[0].state_time_ns[1] = 100;
	prev.group_slots[0] = (struct group_slot){ .word = 2, .nr_children = 2, .state = 1,
						   .idle_since = 950 };
	cur.groups[0].time_ns = 200;
	cur.groups[0].periods = 1;
	cur.groups[0].state_time_ns[1] = 200;
	cur.group_slots[0] = (struct group_slot){ .word = 2, .nr_children = 2, .state = 0,
						  .idle_since = 1900 };

	assert_int_equal(idle_raw_delta(&prev, &cur, 1000, 2000, &d), 0);
	assert_int_equal(d.stats[1].entries, 2);
	assert_int_equal(d.stats[1].time_ns, 400);
	assert_int_equal(d.stats[1].below, 1);
	assert_int_equal(d.stats[1].min_ns, 0);
	assert_int_equal(d.stats[1].early, 1);
	assert_int_equal(d.stats[1].early_ns, 300);
	assert_int_equal(d.stats[1].fx_entered, 2);
	assert_int_equal(d.stats[0].entries, 0);
	assert_int_equal(d.stats[0].time_ns, 200);
	assert_int_equal(d.slots[0].enter_ns, 0);
	assert_int_equal(d.wake[0].count[WAKE_TIMER], 3);
	assert_int_equal(d.slots[0].wake_pending, 0);
	assert_int_equal(d.nr_details, 2);
	for (int i = 0; i < d.nr_details; i++)
		assert_int_equal(d.details[i].val.count, d.details[i].key.detail == 0xa ? 2 : 2);
	/* group: 1000..1050 = 50, plus 1900..2000 = 100 in state 0 */
	assert_int_equal(d.groups[0].time_ns, 150);
	assert_int_equal(d.groups[0].state_time_ns[1], 50);
	assert_int_equal(d.groups[0].state_time_ns[0], 100);
	assert_int_equal(d.groups[0].periods, 1);
	assert_int_equal(d.group_slots[0].idle_since, 0);
	idle_raw_free(&d);
	idle_raw_free(&prev);
	idle_raw_free(&cur);
}

/* A period in flight across a whole interval is charged the whole interval
 * and nothing when the same period is still in flight (no double count). */
static void test_delta_long_period(void **state)
{
	struct idle_raw prev, cur, d;

	(void)state;
	raw_alloc(&prev, 1, 0);
	raw_alloc(&cur, 1, 0);
	prev.slots[0].enter_ns = 500;
	prev.slots[0].state = 2;
	cur.slots[0] = prev.slots[0];
	assert_int_equal(idle_raw_delta(&prev, &cur, 1000, 3000, &d), 0);
	assert_int_equal(d.stats[2].time_ns, 2000);
	idle_raw_free(&d);
	/* it ends at 3500, counted whole (3000 ns) at its exit */
	cur.slots[0].enter_ns = 0;
	cur.stats[2].entries = 1;
	cur.stats[2].time_ns = 3000;
	prev.slots[0].enter_ns = 500;
	assert_int_equal(idle_raw_delta(&prev, &cur, 3000, 4000, &d), 0);
	assert_int_equal(d.stats[2].time_ns, 500); /* 3000..3500 */
	idle_raw_free(&d);
	idle_raw_free(&prev);
	idle_raw_free(&cur);
}

/* A group all idle since 400, before the session's start at 500, until
 * 1200: BPF counts it from the start (700 ns, bpf/group.bpf.h), so its part
 * before 1000 comes off as from 500. Interval [1000, 2000]: 1000..1200 and
 * one more interval 1300..1500, 400 ns in state 1. (Issue 22: it was not
 * counted at all, and top showed the group busy while its CPUs idled.) */
static void test_delta_group_before_start(void **state)
{
	struct idle_raw prev, cur, d;

	(void)state;
	raw_alloc(&prev, 1, 1);
	raw_alloc(&cur, 1, 1);
	prev.start_ns = cur.start_ns = 500;
	prev.group_slots[0] = (struct group_slot){ .word = 2, .nr_children = 2, .state = 1,
						   .idle_since = 400 };
	cur.group_slots[0] = (struct group_slot){ .word = 1, .nr_children = 2 };
	cur.groups[0].periods = 2;
	cur.groups[0].time_ns = 900;
	cur.groups[0].state_time_ns[1] = 900;
	assert_int_equal(idle_raw_delta(&prev, &cur, 1000, 2000, &d), 0);
	assert_int_equal(d.groups[0].time_ns, 400);
	assert_int_equal(d.groups[0].state_time_ns[1], 400);
	idle_raw_free(&d);
	/* one that began inside the session (900) and ended at 1200 as well:
	 * its 100 ns before 1000 come off, 600 - 100 */
	prev.group_slots[0].idle_since = 900;
	cur.groups[0].periods = 2;
	cur.groups[0].time_ns = 600;
	cur.groups[0].state_time_ns[1] = 600;
	assert_int_equal(idle_raw_delta(&prev, &cur, 1000, 2000, &d), 0);
	assert_int_equal(d.groups[0].time_ns, 500); /* 600 - (1000 - 900) */
	idle_raw_free(&d);
	idle_raw_free(&prev);
	idle_raw_free(&cur);
}

/* The reads are spread: a period that ended between a CPU's read (in the
 * previous snapshot) and that snapshot's stamp counts in the next interval.
 * Interval [1000, 2000]: state 1 counted 700 ns in periods ending after 1000
 * plus 400 ns of one that ended at 990, after the CPU's read but before the
 * stamp, and state 2 in flight from 1300: 700 ns. 1800 > 1000: the excess
 * 800 comes off the largest state, and so for the group's all-idle time. */
static void test_delta_trim(void **state)
{
	struct idle_raw prev, cur, d;

	(void)state;
	raw_alloc(&prev, 1, 1);
	raw_alloc(&cur, 1, 1);
	cur.stats[1].entries = 3;
	cur.stats[1].time_ns = 1100;
	cur.slots[0].enter_ns = 1300;
	cur.slots[0].state = 2;
	cur.groups[0].periods = 2;
	cur.groups[0].time_ns = 1300;
	cur.groups[0].state_time_ns[1] = 900;
	cur.groups[0].state_time_ns[2] = 400;
	assert_int_equal(idle_raw_delta(&prev, &cur, 1000, 2000, &d), 0);
	assert_int_equal(d.stats[1].time_ns + d.stats[2].time_ns, 1000);
	assert_int_equal(d.stats[1].time_ns, 300);
	assert_int_equal(d.stats[2].time_ns, 700);
	assert_int_equal(d.stats[1].entries, 3);
	assert_int_equal(d.groups[0].time_ns, 1000);
	assert_int_equal(d.groups[0].state_time_ns[1], 600);
	assert_int_equal(d.groups[0].state_time_ns[2], 400);
	idle_raw_free(&d);
	idle_raw_free(&prev);
	idle_raw_free(&cur);
}

/* A read turned to its cut at 1000: cores {0,1} {2,3} (3 state fields)
 * under a package (2 fields: it folds states >= 1). CPU 0 was idle in
 * state 2 since 900 at the cut; that period ended at 1200 (300 ns, after
 * the cut) and the read found another since 1300. CPU 1 idle in state 3
 * since 950, CPU 2 in state 1 since 800, CPU 3 busy. At the cut: core0 all
 * idle since 950 in state min(2, 3); core1 and the package not; core0's
 * 1100 ns counted by ends after the cut come off its time. */
static void test_raw_at_cut(void **state)
{
	struct idle_raw r;

	(void)state;
	raw_alloc(&r, 4, 3);
	for (int c = 0; c < 4; c++)
		r.slots[c].group_id1 = c < 2 ? 1 : 2;
	r.group_slots[0] = (struct group_slot){ .nr_children = 2, .fields = 3, .parent1 = 3 };
	r.group_slots[1] = (struct group_slot){ .nr_children = 2, .fields = 3, .parent1 = 3 };
	r.group_slots[2] = (struct group_slot){ .nr_children = 2, .fields = 2 };
	r.stats[0 * IS_MAX_STATES + 2].time_ns = 5000;
	r.slots[0] = (struct idle_cpu_slot){ .enter_ns = 1300, .state = 0, .group_id1 = 1,
					     .cut_epoch = 1000, .cut_enter_ns = 900, .cut_state = 2 };
	r.slots[0].cut_time_ns[2] = 300;
	r.slots[1] = (struct idle_cpu_slot){ .enter_ns = 950, .state = 3, .group_id1 = 1 };
	r.slots[2] = (struct idle_cpu_slot){ .enter_ns = 800, .state = 1, .group_id1 = 2 };
	r.groups[0] = (struct group_stats){ .time_ns = 4000, .cut_epoch = 1000, .cut_time_ns = 1100 };
	r.groups[0].state_time_ns[2] = 4000;
	r.groups[0].cut_state_time_ns[2] = 1100;
	r.groups[1].time_ns = 700;
	r.groups[1].cut_epoch = 999; /* another cut's: stays */
	r.groups[1].cut_time_ns = 500;
	idle_raw_at_cut(&r, 1000);
	assert_int_equal(r.read_ns, 1000);
	assert_int_equal(r.stats[2].time_ns, 4700);
	assert_int_equal(r.slots[0].enter_ns, 900);
	assert_int_equal(r.slots[0].state, 2);
	assert_int_equal(r.groups[0].time_ns, 2900);
	assert_int_equal(r.groups[0].state_time_ns[2], 2900);
	assert_int_equal(r.groups[1].time_ns, 700);
	assert_true(group_slot_all_idle(&r.group_slots[0]));
	assert_int_equal(r.group_slots[0].idle_since, 950);
	assert_int_equal(r.group_slots[0].state, 2);
	assert_false(group_slot_all_idle(&r.group_slots[1]));
	assert_int_equal(r.group_slots[1].idle_since, 0);
	assert_false(group_slot_all_idle(&r.group_slots[2]));
	/* CPU 3 idle too: the package is all idle since 950, in its last
	 * field (states >= 1 share it); the slots are as at the cut already */
	r.slots[3].enter_ns = 700;
	r.slots[3].state = 2;
	idle_raw_at_cut(&r, 1000);
	assert_true(group_slot_all_idle(&r.group_slots[2]));
	assert_int_equal(r.group_slots[2].idle_since, 950);
	assert_int_equal(r.group_slots[2].state, 1);
	idle_raw_free(&r);
}

static const char *const long_names[IS_MAX_STATES] = {
	"POLL", "C1", "C1E", "C3-deep-package", "C6", "C7s", "C8", "C9", "C10", "cluster-sleep-0",
};

/* ncpu CPUs, nst states, 1 s window: CPU c busy (c % 4) * 25 %, the rest
 * of its time in its last state; one group over all CPUs. */
static void fake_summary(struct summary *s, int ncpu, int nst)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->sys.driver, sizeof(s->sys.driver), "intel_idle");
	snprintf(s->sys.governor, sizeof(s->sys.governor), "menu");
	s->duration_ns = 1000000000ULL;
	s->nr_cpus = ncpu;
	s->cpus = calloc((size_t)ncpu, sizeof(*s->cpus));
	s->wake_enabled = true;
	for (int c = 0; c < ncpu; c++) {
		struct cpu_summary *cs = &s->cpus[c];

		cs->cpu = c;
		cs->nr_states = nst;
		for (int i = 0; i < nst; i++) {
			cs->states[i].index = i;
			cs->states[i].classified = true;
			snprintf(cs->states[i].name, IS_NAME_LEN, "%s", long_names[i]);
		}
		cs->busy_ns = (uint64_t)(c % 4) * 250000000ULL;
		cs->states[nst - 1].time_ns = s->duration_ns - cs->busy_ns;
		cs->states[nst - 1].below = 10;
		cs->wake.count[WAKE_TIMER] = 100;
		cs->wake.count[WAKE_IPI_RESCHED] = 20;
		cs->wake.total = 120;
		s->totals.busy_ns += cs->busy_ns;
	}
	s->totals.nr_states = nst;
	for (int i = 0; i < nst; i++) {
		s->totals.states[i] = s->cpus[0].states[i];
		for (int c = 1; c < ncpu; c++)
			s->totals.states[i].time_ns += s->cpus[c].states[i].time_ns;
	}
	s->totals.wake.count[WAKE_TIMER] = 100ULL * (uint64_t)ncpu;
	s->totals.wake.total = 120ULL * (uint64_t)ncpu;
	s->nr_groups = 1;
	s->groups = calloc(1, sizeof(*s->groups));
	snprintf(s->groups[0].name, sizeof(s->groups[0].name), "package0");
	if (asprintf(&s->groups[0].cpus, "0-%d", ncpu - 1) < 0)
		abort();
	s->groups[0].nr_states = nst;
	for (int i = 0; i < nst; i++) {
		s->groups[0].states[i].index = i;
		snprintf(s->groups[0].states[i].name, IS_NAME_LEN, "%s", long_names[i]);
	}
	s->nr_wake_rows = 12;
	s->wake_rows = calloc(12, sizeof(*s->wake_rows));
	for (int i = 0; i < 12; i++) {
		struct wake_row *r = &s->wake_rows[i];

		r->kind = i % 2 ? WDETAIL_WAKEE : WDETAIL_TIMER_FN;
		r->count = 1000 - (uint64_t)i;
		snprintf(r->name, sizeof(r->name), "%s", i % 2 ? "a-very-long-task-name" : "hrtimer_wakeup_long_function_name");
	}
}

static void free_fake(struct summary *s)
{
	free(s->cpus);
	free(s->groups[0].cpus);
	free(s->groups);
	free(s->wake_rows);
}

static int find(const struct top_text *t, const char *prefix)
{
	for (int i = 0; i < t->nr; i++)
		if (!strncmp(t->lines[i], prefix, strlen(prefix)))
			return i;
	return -1;
}

/* 64 CPUs and 10 states with long names in 80x24: every line fits, the
 * footer is on the last row and says which rows are shown. */
static void test_fits_80x24(void **state)
{
	struct summary s;
	struct top_layout l = { .width = 80, .height = 24, .footer = true, .clock = "12:00:00" };
	struct top_text t = { 0 };

	(void)state;
	fake_summary(&s, 64, 10);
	assert_int_equal(render_top(&s, &l, &t), 0);
	assert_true(t.nr <= 24);
	for (int i = 0; i < t.nr; i++)
		assert_true(strlen(t.lines[i]) <= 80);
	assert_int_equal(t.nr_rows, 65);
	assert_true(t.shown >= 4 && t.shown < 65);
	assert_non_null(strstr(t.lines[t.nr - 1], "q quit"));
	assert_non_null(strstr(t.lines[t.nr - 1], "rows 1-"));
	assert_true(find(&t, "states:") >= 0); /* the names were cut: a legend */
	assert_true(find(&t, "0 ") >= 0);
	top_text_free(&t);
	/* scrolled past the end: clamped to the last page, the group row shown */
	l.scroll = 1000;
	assert_int_equal(render_top(&s, &l, &t), 0);
	assert_int_equal(t.scroll, 65 - t.shown);
	assert_true(find(&t, "package0") >= 0);
	assert_true(find(&t, "63 ") >= 0);
	top_text_free(&t);
	free_fake(&s);
}

/* Plain lines: every CPU row, busy and the state share from the summary. */
static void test_plain_rows(void **state)
{
	struct summary s;
	struct top_layout l = { .width = 512 };
	struct top_text t = { 0 };
	int i;

	(void)state;
	fake_summary(&s, 8, 3);
	assert_int_equal(render_top(&s, &l, &t), 0);
	assert_int_equal(t.shown, 9);
	i = find(&t, "3 ");
	assert_true(i >= 0);
	/* CPU 3: busy 75.0, POLL 0.0, C1 0.0, C1E 25.0, below 10/s, wake 120/s */
	{
		char label[8];
		double busy, s0, s1, s2, above, below, wake;

		assert_int_equal(sscanf(t.lines[i], "%7s %lf %lf %lf %lf %lf %lf %lf", label, &busy,
					&s0, &s1, &s2, &above, &below, &wake),
				 8);
		assert_true(busy == 75.0 && s0 == 0 && s1 == 0 && s2 == 25.0);
		assert_true(above == 0 && below == 10 && wake == 120);
	}
	i = find(&t, "all ");
	assert_true(i >= 0);
	assert_non_null(strstr(t.lines[1], "wakeups/s 960: timer 800"));
	/* no exit cost known (the fake's totals have none): no line */
	assert_int_equal(find(&t, "exit cost"), -1);
	top_text_free(&t);
	/* 8 CPUs x 1 s: declared 8 ms = 0.10%, measured 16 ms = 0.20% over 240
	 * of 960 periods = 25%, early 40 ms = 0.50% */
	s.totals.entries = 960;
	s.totals.exit = (struct exit_cost){ .declared_known = true, .declared_ns = 8000000,
					    .measured_known = true, .measured_ns = 16000000,
					    .measured_periods = 240, .early_known = true,
					    .early_ns = 40000000 };
	memset(&t, 0, sizeof(t));
	assert_int_equal(render_top(&s, &l, &t), 0);
	assert_string_equal(t.lines[2], "exit cost (of the CPUs' time): declared 0.10%, measured "
					"0.20% (25% of periods); early 0.50%");
	top_text_free(&t);
	free_fake(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_delta_cuts_periods),
		cmocka_unit_test(test_delta_long_period),
		cmocka_unit_test(test_delta_group_before_start),
		cmocka_unit_test(test_raw_at_cut),
		cmocka_unit_test(test_delta_trim),
		cmocka_unit_test(test_fits_80x24),
		cmocka_unit_test(test_plain_rows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
