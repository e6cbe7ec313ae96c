/* Replay tests for the topology tree (bpf/group.bpf.h): a 3-level tree of
 * cores (2 CPUs), clusters (8) and packages (32) with hand-computed all-idle
 * time, states and node updates per level; a flat group of 128 CPUs whose
 * shallowest member is the 101st (past the old 64-member cap); the last
 * word field shared by the deep states; a 256-CPU random trace checked
 * against a brute-force oracle that scans every member at every event;
 * small top nodes counted lazily, on a random trace against the same
 * oracle and with two exits at once. Root. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "replay.h"

struct tree_fixture {
	struct idle_session s;
	struct idle_raw raw;
	struct groups g;
};

static struct tree_fixture *open_tree_packing(int nr_cpus, int nr, const char *const *names,
					      const char *const *lists, bool packing)
{
	struct tree_fixture *f = calloc(1, sizeof(*f));
	char err[256];

	assert_non_null(f);
	replay_tree(&f->g, nr_cpus, nr, names, lists);
	struct session_opts o = { .replay = true, .groups = &f->g, .packing = packing };

	if (idle_session_open(&f->s, nr_cpus, &o, err, sizeof(err)))
		fail_msg("replay: %s", err);
	return f;
}

static struct tree_fixture *open_tree(int nr_cpus, int nr, const char *const *names,
				      const char *const *lists)
{
	return open_tree_packing(nr_cpus, nr, names, lists, false);
}

static void close_tree(struct tree_fixture *f)
{
	idle_raw_free(&f->raw);
	idle_session_close(&f->s);
	groups_free(&f->g);
	free(f);
}

static void ev(struct tree_fixture *f, uint64_t cpu, uint64_t now_us, uint64_t state)
{
	replay_idle(&f->s, cpu, now_us * US, state);
}

/* The group named like "cluster3", or fail. */
static int node(const struct tree_fixture *f, const char *name)
{
	char buf[32];

	for (int i = 0; i < f->g.nr_groups; i++) {
		groups_name(&f->g, i, buf, sizeof(buf));
		if (!strcmp(buf, name))
			return i;
	}
	fail_msg("no group %s", name);
	return -1;
}

static uint64_t updates(const struct tree_fixture *f, int level)
{
	uint64_t n = 0;

	for (int c = 0; c < f->raw.nr_cpus; c++)
		n += f->raw.slots[c].node_updates[level];
	return n;
}

/* Two packages of 32 CPUs = 4 clusters of 8 = 4 cores of 2 each. */
static void test_three_levels(void **state)
{
	static const char *const names[] = { "package", "core", "cluster" };
	static const char *const lists[] = {
		"0-31;32-63",
		"0-1;2-3;4-5;6-7;8-9;10-11;12-13;14-15;16-17;18-19;20-21;22-23;24-25;26-27;28-29;"
		"30-31;32-33;34-35;36-37;38-39;40-41;42-43;44-45;46-47;48-49;50-51;52-53;54-55;"
		"56-57;58-59;60-61;62-63",
		"0-7;8-15;16-23;24-31;32-39;40-47;48-55;56-63",
	};
	struct tree_fixture *f = open_tree(64, 3, names, lists);
	const struct group_stats *st;
	int g;

	(void)state;
	/* sorted smallest first, whatever the order given */
	assert_int_equal(f->g.nr_levels, 3);
	assert_string_equal(f->g.levels[0], "core");
	assert_string_equal(f->g.levels[1], "cluster");
	assert_string_equal(f->g.levels[2], "package");
	assert_int_equal(f->g.node[node(f, "core3")].parent, node(f, "cluster0"));
	assert_int_equal(f->g.node[node(f, "cluster3")].parent, node(f, "package0"));
	assert_int_equal(f->g.node[node(f, "package1")].parent, -1);
	assert_int_equal(f->g.node[node(f, "cluster0")].nr_children, 4);
	assert_int_equal(f->g.node[node(f, "package0")].nr_children, 4);
	assert_int_equal(f->g.group_of[9], node(f, "core4"));

	/* package 0's CPUs go idle at 100 + c us, in CLS_PD but CPU 5 (CPU_PD)
	 * and CPU 20 (WFI): core k all idle from 101 + 2k, cluster j from
	 * 107 + 8j (states 1, 2, 0, 2), package 0 from 131 in WFI */
	for (int c = 0; c < 32; c++)
		ev(f, (uint64_t)c, 100 + (uint64_t)c, c == 5 ? 1 : c == 20 ? 0 : 2);
	ev(f, 31, 1000, EXIT); /* core15, cluster3, package0: 869 us */
	ev(f, 0, 2000, EXIT);  /* core0: 1899 us; cluster0: 1893 us in CPU_PD */
	ev(f, 31, 3000, 2);    /* core15 and cluster3 again from 3000 */
	ev(f, 0, 4000, 0);     /* core0, cluster0 and package0 again from 4000, WFI */
	ev(f, 10, 5000, EXIT); /* core5: 4889, cluster1: 4885, package0: 1000 */
	assert_int_equal(idle_session_read(&f->s, &f->raw), 0);

	st = &f->raw.groups[node(f, "core0")];
	assert_int_equal(st->periods, 1);
	assert_int_equal(st->time_ns, 1899 * US);
	assert_int_equal(st->state_time_ns[2], 1899 * US);
	g = node(f, "core0");
	assert_true(group_slot_all_idle(&f->raw.group_slots[g]));
	assert_int_equal(f->raw.group_slots[g].idle_since, 4000 * US);
	assert_int_equal(f->raw.group_slots[g].state, 0);
	st = &f->raw.groups[node(f, "core5")];
	assert_int_equal(st->time_ns, 4889 * US);
	st = &f->raw.groups[node(f, "core15")];
	assert_int_equal(st->periods, 1);
	assert_int_equal(st->time_ns, 869 * US);
	st = &f->raw.groups[node(f, "cluster0")];
	assert_int_equal(st->periods, 1);
	assert_int_equal(st->state_time_ns[1], 1893 * US);
	assert_int_equal(f->raw.group_slots[node(f, "cluster0")].state, 0);
	st = &f->raw.groups[node(f, "cluster1")];
	assert_int_equal(st->state_time_ns[2], 4885 * US);
	st = &f->raw.groups[node(f, "cluster3")];
	assert_int_equal(st->state_time_ns[2], 869 * US);
	st = &f->raw.groups[node(f, "package0")];
	assert_int_equal(st->periods, 2);
	assert_int_equal(st->time_ns, 1869 * US);
	assert_int_equal(st->state_time_ns[0], 1869 * US);
	assert_int_equal(st->races, 0);
	assert_int_equal(f->raw.groups[node(f, "package1")].periods, 0);
	assert_false(group_slot_all_idle(&f->raw.group_slots[node(f, "package1")]));
	/* 37 CPU events on cores; 21 core and 9 cluster transitions above */
	assert_int_equal(updates(f, 0), 37);
	assert_int_equal(updates(f, 1), 21);
	assert_int_equal(updates(f, 2), 9);
	close_tree(f);
}

/* One group of 128: the shallowest member is CPU 100. */
static void test_shallowest_past_64(void **state)
{
	struct tree_fixture *f = open_tree(128, 1, (const char *const[]){ "package" },
					   (const char *const[]){ "0-127" });
	const struct group_stats *st;

	(void)state;
	for (int c = 0; c < 128; c++)
		ev(f, (uint64_t)c, 100 + (uint64_t)c, c == 100 ? 1 : 3);
	ev(f, 127, 1227, EXIT); /* all idle 227..1227 in state 1 */
	ev(f, 100, 2000, EXIT);
	ev(f, 100, 2100, 4);
	ev(f, 127, 2200, 3);    /* all idle from 2200, state 3 */
	ev(f, 64, 3200, EXIT);
	assert_int_equal(idle_session_read(&f->s, &f->raw), 0);
	st = &f->raw.groups[0];
	assert_int_equal(st->periods, 2);
	assert_int_equal(st->state_periods[1], 1);
	assert_int_equal(st->state_time_ns[1], 1000 * US);
	assert_int_equal(st->state_time_ns[3], 1000 * US);
	assert_int_equal(st->folded, 0);
	assert_int_equal(updates(f, 0), 128 + 5);
	close_tree(f);
}

/* 128 children leave 6 fields of 8 bits: states 5 and deeper share the
 * last, so a group in states 6 and 7 shows as 5, counted as folded; a
 * group of 2 has a field per state. */
static void test_folded_states(void **state)
{
	struct tree_fixture *f = open_tree(130, 2, (const char *const[]){ "package", "core" },
					   (const char *const[]){ "0-127", "128-129" });
	int pkg = node(f, "package0"), core = node(f, "core0");

	(void)state;
	for (int c = 0; c < 128; c++)
		ev(f, (uint64_t)c, 100, c & 1 ? 7 : 6);
	ev(f, 0, 600, EXIT);
	ev(f, 128, 100, 7);
	ev(f, 129, 200, 8);
	ev(f, 129, 700, EXIT);
	assert_int_equal(idle_session_read(&f->s, &f->raw), 0);
	assert_int_equal(f->raw.groups[pkg].state_time_ns[5], 500 * US);
	assert_int_equal(f->raw.groups[pkg].folded, 1);
	assert_int_equal(f->raw.groups[core].state_time_ns[7], 500 * US);
	assert_int_equal(f->raw.groups[core].folded, 0);
	close_tree(f);
}

/* 256 CPUs: 128 cores of 2, 32 clusters of 8, 2 packages of 128. */
#define RND_CPUS 256
#define RND_EVENTS 200000

struct oracle_node {
	int first, n;             /* CPUs first .. first + n - 1 */
	bool idle;
	uint64_t since, periods, time, state_time[IS_MAX_STATES];
	uint32_t state;
};

static uint64_t rnd_state = 88172645463325252ULL;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/* Brute force: after each event, scan every member of every node. */
static void oracle_step(struct oracle_node *on, int nn, const bool *idle, const uint32_t *st,
			uint64_t now)
{
	for (int i = 0; i < nn; i++) {
		bool all = true;
		uint32_t min = IS_MAX_STATES;

		for (int c = on[i].first; c < on[i].first + on[i].n; c++) {
			all &= idle[c];
			if (idle[c] && st[c] < min)
				min = st[c];
		}
		if (all && !on[i].idle) {
			on[i].idle = true;
			on[i].since = now;
			on[i].state = min;
		} else if (!all && on[i].idle) {
			on[i].idle = false;
			on[i].periods++;
			on[i].time += now - on[i].since;
			on[i].state_time[on[i].state] += now - on[i].since;
		}
	}
}

static void test_random_256(void **state)
{
	static const char *const names[] = { "core", "cluster", "package" };
	static char lists[3][4096];
	const char *const lp[] = { lists[0], lists[1], lists[2] };
	static const int size[3] = { 2, 8, 128 };
	static bool idle[RND_CPUS];
	static uint32_t st[RND_CPUS];
	struct oracle_node on[128 + 32 + 2];
	struct tree_fixture *f;
	uint64_t now = 1000 * US, nev = 0;
	int nn = 0, nidle = 0;

	(void)state;
	memset(on, 0, sizeof(on));
	for (int l = 0; l < 3; l++) {
		size_t len = 0;

		for (int first = 0; first < RND_CPUS; first += size[l]) {
			len += (size_t)snprintf(lists[l] + len, sizeof(lists[l]) - len, "%s%d-%d",
						len ? ";" : "", first, first + size[l] - 1);
			on[nn].first = first;
			on[nn++].n = size[l];
		}
	}
	f = open_tree(RND_CPUS, 3, names, lp);
	assert_int_equal(f->g.nr_groups, nn);
	/* all CPUs start busy; then mostly idle ones with short busy bursts
	 * (a busy CPU goes idle 9 times in 10, while there is one), so that
	 * cores, clusters and packages all go in and out of all-idle */
	for (int i = 0; i < RND_EVENTS; i++) {
		int c = (int)(rnd() % RND_CPUS), busy = -1;

		for (int k = 0; k < RND_CPUS && busy < 0; k++)
			if (!idle[(c + k) % RND_CPUS])
				busy = (c + k) % RND_CPUS;
		if (busy >= 0 && (rnd() % 10 || nidle == 0))
			c = busy;
		else
			while (!idle[c])
				c = (int)(rnd() % RND_CPUS);

		now += 1 + rnd() % 3000;
		if (idle[c]) {
			idle[c] = false;
			nidle--;
			ev(f, (uint64_t)c, now / US, EXIT);
		} else {
			idle[c] = true;
			nidle++;
			st[c] = (uint32_t)(rnd() % 3);
			ev(f, (uint64_t)c, now / US, st[c]);
		}
		nev++;
		oracle_step(on, nn, idle, st, now / US * US);
		/* wake whole packages now and then */
		if (rnd() % 5000 == 0)
			for (int d = 0; d < RND_CPUS; d++)
				if (idle[d] && rnd() % 2) {
					idle[d] = false;
					nidle--;
					now += 1000;
					ev(f, (uint64_t)d, now / US, EXIT);
					nev++;
					oracle_step(on, nn, idle, st, now / US * US);
				}
	}
	assert_int_equal(idle_session_read(&f->s, &f->raw), 0);
	for (int i = 0; i < nn; i++) {
		const struct group_stats *gs = &f->raw.groups[i];
		char name[32];

		groups_name(&f->g, i, name, sizeof(name));
		if (gs->periods != on[i].periods || gs->time_ns != on[i].time)
			fail_msg("%s: BPF %" PRIu64 " periods %" PRIu64 " ns, oracle %" PRIu64
				 " periods %" PRIu64 " ns", name, gs->periods, gs->time_ns,
				 on[i].periods, on[i].time);
		for (int s = 0; s < 3; s++)
			assert_int_equal(gs->state_time_ns[s], on[i].state_time[s]);
		assert_int_equal(gs->races, 0);
	}
	/* every level moved: the test covers transitions at each */
	for (int l = 0; l < 3; l++) {
		uint64_t p = 0;

		for (int i = 0; i < nn; i++)
			if (f->g.node[i].level == l)
				p += on[i].periods;
		print_message("level %s: %" PRIu64 " all-idle periods, %" PRIu64 " node updates\n",
			      names[l], p, updates(f, l));
		assert_true(p > 0);
	}
	/* one shared-line update per CPU event at the leaf, more only on
	 * transitions: cores take every event, the levels above fewer */
	assert_int_equal(updates(f, 0), nev);
	assert_true(updates(f, 1) < updates(f, 0));
	assert_true(updates(f, 2) < updates(f, 1));
	close_tree(f);
}

/* Top nodes of at most GROUP_LAZY_MAX CPUs are lazy (no word: each exit
 * reads the other members' slots and claims the interval it ends); with
 * packing the same nodes keep the word. Both against the brute-force
 * oracle on one random trace of 8 CPUs in nodes of 2, 3 and 3, with
 * events of several CPUs at the same microsecond (ties), and the slots
 * read at the end (the lazy ones derived from the CPU slots) against the
 * oracle's interval in flight. */
#define LAZY_CPUS 8
#define LAZY_EVENTS 100000

static void random_lazy(bool packing)
{
	static const char *const names[] = { "cluster" };
	const char *const lists[] = { "0-1;2-4;5-7" };
	static const int first[3] = { 0, 2, 5 }, n[3] = { 2, 3, 3 };
	bool idle[LAZY_CPUS] = { false };
	uint32_t st[LAZY_CPUS] = { 0 };
	uint64_t last[LAZY_CPUS] = { 0 }, now = 1000;
	struct oracle_node on[3];
	struct tree_fixture *f;

	rnd_state = 88172645463325252ULL;
	memset(on, 0, sizeof(on));
	for (int i = 0; i < 3; i++) {
		on[i].first = first[i];
		on[i].n = n[i];
	}
	f = open_tree_packing(LAZY_CPUS, 1, names, lists, packing);
	assert_int_equal(f->g.nr_groups, 3);
	for (int i = 0; i < LAZY_EVENTS; i++) {
		int c = (int)(rnd() % LAZY_CPUS);

		now += rnd() % 3; /* microseconds; 0: a tie with the last event */
		if (last[c] == now)
			continue; /* one CPU's events are never at one instant */
		last[c] = now;
		idle[c] = !idle[c];
		if (idle[c])
			st[c] = (uint32_t)(rnd() % 3);
		ev(f, (uint64_t)c, now, idle[c] ? st[c] : EXIT);
		oracle_step(on, 3, idle, st, now * US);
	}
	assert_int_equal(idle_session_read(&f->s, &f->raw), 0);
	for (int i = 0; i < 3; i++) {
		const struct group_stats *gs = &f->raw.groups[i];
		const struct group_slot *sl = &f->raw.group_slots[i];

		assert_int_equal(sl->lazy, !packing);
		if (gs->periods != on[i].periods || gs->time_ns != on[i].time)
			fail_msg("node %d (%s): BPF %" PRIu64 " periods %" PRIu64 " ns, oracle %" PRIu64
				 " periods %" PRIu64 " ns", i, packing ? "word" : "lazy", gs->periods,
				 gs->time_ns, on[i].periods, on[i].time);
		for (int s = 0; s < 3; s++)
			assert_int_equal(gs->state_time_ns[s], on[i].state_time[s]);
		assert_int_equal(gs->races, 0);
		assert_true(on[i].periods > 1000);
		assert_int_equal(group_slot_all_idle(sl), on[i].idle);
		if (on[i].idle) {
			assert_int_equal(sl->idle_since, on[i].since);
			assert_int_equal(sl->state, on[i].state);
		}
	}
	close_tree(f);
}

static void test_random_lazy(void **state)
{
	(void)state;
	random_lazy(false);
	random_lazy(true);
}

/* Two exits of a lazy node's members at once: the later clock's handler
 * runs first and finds the other still idle; then the other's, whose
 * clock is earlier, finds it gone after its own exit: both end the same
 * interval, and the claim counts it once (from the later, by 10 us);
 * without the claim, twice. */
static void test_lazy_concurrent_exits(void **state)
{
	static const char *const names[] = { "cluster" };
	const char *const lists[] = { "0-1" };
	struct tree_fixture *f = open_tree(2, 1, names, lists);

	(void)state;
	ev(f, 0, 100, 1);
	ev(f, 1, 200, 0);
	ev(f, 1, 500, EXIT);
	ev(f, 0, 490, EXIT);
	assert_int_equal(idle_session_read(&f->s, &f->raw), 0);
	assert_true(f->raw.group_slots[0].lazy);
	assert_int_equal(f->raw.groups[0].periods, 1);
	assert_int_equal(f->raw.groups[0].time_ns, 300 * US);
	assert_int_equal(f->raw.groups[0].state_time_ns[0], 300 * US);
	assert_false(group_slot_all_idle(&f->raw.group_slots[0]));
	close_tree(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_three_levels),
		cmocka_unit_test(test_shallowest_past_64),
		cmocka_unit_test(test_folded_states),
		cmocka_unit_test(test_random_256),
		cmocka_unit_test(test_random_lazy),
		cmocka_unit_test(test_lazy_concurrent_exits),
	};

	return cmocka_run_group_tests_name("replay-tree", tests, NULL, NULL);
}
