/* Topology-group idle over a tree of nodes (core -> cluster -> die ->
 * package): for each node, the time when all its CPUs are idle, and its
 * state = the shallowest of its CPUs' states (idlestat and LISA's
 * convention). A CPU's idle entry or exit changes its smallest node's word
 * with one fetch-and-add; a node changes its parent's only when it becomes
 * all idle or stops being so. Fetch-and-add needs kernel 5.12+ (-mcpu=v3).
 * Included by idlescope.bpf.c; called from handle_idle. */
#ifndef IDLESCOPE_GROUP_BPF_H
#define IDLESCOPE_GROUP_BPF_H

#include "maps.bpf.h"
#include "pack.bpf.h"
#include "stat.bpf.h"

/* The word's field for a child in state s. */
static __always_inline __u32 group_field(const struct group_slot *gs, __u32 s)
{
	__u32 f = gs->fields ? gs->fields - 1 : 0;

	return s < f ? s : f;
}

static __always_inline __u64 group_delta(const struct group_slot *gs, __u32 s)
{
	__u32 shift = GROUP_COUNT_BITS + gs->width * group_field(gs, s);

	return 1 + (shift < 64 ? 1ULL << shift : 0);
}

/* Every child idle in the word (its count is signed: see GROUP_COUNT_BITS). */
static __always_inline bool group_full(const struct group_slot *gs, __u64 word)
{
	return (__s16)(word & 0xffff) == (__s32)gs->nr_children;
}

/* The node state of an all-idle word: the lowest non-empty field. The two
 * ends of an interval read the same word (every fetch-and-add moves the
 * count by one, so entering and leaving "all idle" alternate), so the
 * parent gets back exactly what it was given, even from a word torn by a
 * leave that landed before its join. */
static __always_inline __u32 group_word_state(const struct group_slot *gs, __u64 word)
{
	__u64 f = word >> GROUP_COUNT_BITS;
	__u32 last = gs->fields ? gs->fields - 1 : 0, s;

	if (!f || !gs->width)
		return last;
	s = is_msb64(f & -f) / gs->width;
	return s < last ? s : last;
}

static __always_inline void group_count_update(struct idle_cpu_slot *slot, const struct group_slot *gs)
{
	__u32 l = gs->level;

	if (l < IS_MAX_LEVELS)
		slot->node_updates[l]++;
}

#ifdef IS_NO_ATOMIC_FETCH
/* The variant for kernels before 5.12 (idlescope_nofetch.bpf.o): their
 * verifier rejects fetch-and-add anywhere in a program, even where the
 * loader's knobs make it dead code, and the loader turns groups off there. */
static __always_inline void group_on_enter(__u32 cpu, struct idle_cpu_slot *slot, __u64 now_ns,
					   __u32 state)
{
}

static __always_inline void group_on_exit(__u32 cpu, struct idle_cpu_slot *slot, __u64 now_ns,
					  __u64 enter_ns)
{
}

static __always_inline void group_lazy_publish(struct idle_cpu_slot *slot, __u64 enter_ns,
					       __u64 now_ns)
{
}
#else
/* join_ns only grows: a join whose store comes late (its CPU stalled
 * between its clock read and here) puts the later entry it replaced back.
 * An exchange, not a read and a compare-and-swap: the line comes over
 * once, owned, rather than shared and then owned. A lost put-back costs
 * a start a little early, never a lost interval. */
static __always_inline void group_join_time(struct group_slot *gs, __u64 now_ns)
{
	__u64 old = __sync_lock_test_and_set(&gs->join_ns, now_ns);

	if (old > now_ns)
		__sync_val_compare_and_swap(&gs->join_ns, now_ns, old);
}

/* cpu entered an idle state: it joins its smallest node, and each node it
 * makes all idle joins its parent, in the state it then has. */
static __always_inline void group_on_enter(__u32 cpu, struct idle_cpu_slot *slot, __u64 now_ns,
					   __u32 state)
{
	__u32 node1 = slot->group_id1, s = state;
	int pack_dg = 0;

	if (slot->group_lazy)
		return; /* the slot's enter_ns, stored by the caller, is the join */

	for (int i = 0; i < IS_MAX_LEVELS && node1; i++) {
		__u32 g = node1 - 1;
		struct group_slot *gs = bpf_map_lookup_elem(&group_slots, &g);
		__u64 delta, word;

		if (!gs)
			break;
		delta = group_delta(gs, s);
		/* before the add: a member leaving right after it finds it */
		group_join_time(gs, now_ns);
		word = __sync_fetch_and_add(&gs->word, delta) + delta;
		group_count_update(slot, gs);
		if (!group_full(gs, word))
			break;
		s = group_word_state(gs, word);
		gs->state = s;
		gs->idle_since = now_ns;
		if (slot->pack_group1 == node1)
			pack_dg = -1;
		node1 = gs->parent1;
	}
	if (packing_enabled && slot->pack_group1)
		pack_update(now_ns, pack_dg, -1);
}

/* A state index the verifier sees bounded where it is used: a checked
 * index spilled to the stack and read back loses its bounds on older
 * verifiers (6.1: "unbounded memory access"); the clamp, which the
 * compiler cannot drop after the barrier, bounds it in the register used.
 * Callers check s < IS_MAX_STATES first, so it never changes it. */
static __always_inline __u32 group_state_index(__u64 s)
{
	__u32 i = (__u32)s;

	asm volatile("" : "+r"(i));
	return i < IS_MAX_STATES ? i : IS_MAX_STATES - 1;
}

/* An end after a reader's cut is counted apart too (idle.bpf.h, cut_open):
 * the group's time at the cut is its time less these. */
static __always_inline void group_cut_count(struct group_stats *st, __u64 now_ns, __u64 s, __u64 d)
{
	__u64 cut = cut_ns;

	if (!cut || now_ns <= cut)
		return;
	if (st->cut_epoch != cut) {
		st->cut_epoch = cut;
		st->cut_time_ns = 0;
#pragma unroll
		for (int i = 0; i < IS_MAX_STATES; i++)
			st->cut_state_time_ns[i] = 0;
	}
	st->cut_time_ns += d;
	if (s < IS_MAX_STATES)
		st->cut_state_time_ns[group_state_index(s)] += d;
}

/* A node's all-idle interval [since, now_ns] ended, counted into st (the
 * node's statistics, or for a lazy node the ending CPU's copy of them);
 * enter_ns is the exiting CPU's own entry, which no start of it can
 * precede. */
static __always_inline void group_account_into(struct group_stats *st, __u64 since, __u64 now_ns,
					       __u64 enter_ns, __u64 s, bool folded)
{
	__u64 d;

	/* a start written late, or stale, cannot precede this CPU's own enter */
	if (!since || since < enter_ns || since > now_ns) {
		st->races++;
		return;
	}
	if (now_ns < start_ns)
		return; /* ended before the window */
	/* Began before it (every group the poke left all idle did): its part
	 * inside. Dropped, a group stayed busy while its CPUs idled in every
	 * interval that period reached. No such group started before the
	 * attach: its word starts with every member busy. */
	if (since < start_ns)
		since = start_ns;
	d = now_ns - since;
	stat_add(&st->periods, &st->time_ns, &st->min_ns, &st->max_ns, st->hist, d);
	if (folded)
		st->folded++;
	if (s < IS_MAX_STATES) {
		__u32 i = group_state_index(s);

		st->state_periods[i]++;
		st->state_time_ns[i] += d;
	}
	group_cut_count(st, now_ns, s, d);
}

static __always_inline void group_account(__u32 g, __u64 since, __u64 now_ns, __u64 enter_ns,
					  __u32 s, bool folded)
{
	struct group_stats *st = bpf_map_lookup_elem(&group_stats, &g);

	if (st)
		group_account_into(st, since, now_ns, enter_ns, s, folded);
}

/* A lazy group (group_slot.lazy): a top node of a few CPUs whose members
 * write only their own slots. An entry stores its enter_ns (the caller);
 * an exit stores its period in grp_enter_ns/grp_exit_ns and clears
 * enter_ns (group_lazy_publish and the caller, in that order), then, after
 * a full barrier, reads the other members (group_lazy_exit): the node was
 * all idle until this exit when each of them is still idle, or left after
 * it (exits at once), from the latest of their entries. Two exits at once
 * can each find the other still idle, or each find it gone after itself:
 * the interval is claimed by its start with one exchange on the node's
 * line, and only the exit that claims it counts it, into the ending CPU's
 * copy of the node's statistics (group_stats_cpu). Measured on the 2-CPU
 * ping-pong, where nearly every exit ends an all-idle interval: 0.84x the
 * word's cost per cpu_idle event. Making the claim conditional (a second
 * barrier and clock read at the exit, to tell when no other exit can
 * claim) cost more than the exchange it saved. */

/* A member's field, read once from memory (another CPU writes it). */
#define GROUP_READ(x) (*(volatile __typeof__(x) *)&(x))

/* Before enter_ns is cleared: what the other members read once it is. */
static __always_inline void group_lazy_publish(struct idle_cpu_slot *slot, __u64 enter_ns,
					       __u64 now_ns)
{
	slot->grp_enter_ns = enter_ns;
	slot->grp_exit_ns = now_ns;
	asm volatile("" ::: "memory");
}

/* The interval [start, ...) is this exit's to count: the first claim of
 * that start. A claim of a later start already there (this exit stalled)
 * is put back. */
static __always_inline bool group_lazy_claim(struct group_slot *gs, __u64 start)
{
	__u64 old = __sync_lock_test_and_set(&gs->claimed_ns, start);

	if (old > start)
		__sync_val_compare_and_swap(&gs->claimed_ns, start, old);
	return old < start;
}

static __always_inline void group_lazy_exit(__u32 cpu, struct idle_cpu_slot *slot, __u64 now_ns,
					    __u64 enter_ns)
{
	__u32 node1 = slot->group_id1, g = node1 - 1, s = slot->state, last, n, l;
	struct group_slot *gs = bpf_map_lookup_elem(&group_slots, &g);
	struct group_stats *st;
	__u64 start = enter_ns;

	if (!gs)
		return;
	/* the barrier between this CPU's stores and its reads of the others:
	 * a fetch op whose result is used (on arm64 only those are fully
	 * ordered; x86 locks either), on its own line */
	l = slot->group_lazy - 1;
	if (l >= IS_MAX_LEVELS)
		l = 0;
	if (__sync_fetch_and_add(&slot->node_updates[l], 1) == ~0ULL)
		return;
	n = gs->nr_children < GROUP_LAZY_MAX ? gs->nr_children : GROUP_LAZY_MAX;
	for (__u32 i = 0; i < GROUP_LAZY_MAX && i < n; i++) {
		__u32 m = gs->member[i];
		struct idle_cpu_slot *o;
		__u64 e, x;

		if (m == cpu)
			continue;
		o = bpf_map_lookup_elem(&idle_slots, &m);
		if (!o)
			return;
		e = GROUP_READ(o->enter_ns);
		if (e) {
			/* still idle; an entry after this exit means it left
			 * meanwhile: not an interval of this exit's */
			if (e > now_ns)
				return;
		} else {
			/* left after this exit: it was idle until then, from
			 * its period's start; at this instant or before (in a
			 * replayed trace, an earlier event at the same
			 * instant), the node was not all idle at this exit */
			x = GROUP_READ(o->grp_exit_ns);
			if (x <= now_ns)
				return;
			e = GROUP_READ(o->grp_enter_ns);
			if (!e || e > now_ns)
				return;
		}
		if (e > start)
			start = e;
		if (o->state < s)
			s = o->state;
	}
	if (start > now_ns || !group_lazy_claim(gs, start))
		return;
	last = gs->fields ? gs->fields - 1 : 0;
	if (s > last)
		s = last;
	st = bpf_map_lookup_elem(&group_stats_cpu, &cpu);
	if (st)
		group_account_into(st, start, now_ns, enter_ns, s,
				   gs->fields && s == last && s + 1 < state_slots);
	slot->ended_group = node1;
}

/* cpu left idle after a period that began at enter_ns: it leaves its
 * smallest node, and each node that stops being all idle leaves its parent
 * in the state it joined with. */
static __always_inline void group_on_exit(__u32 cpu, struct idle_cpu_slot *slot, __u64 now_ns,
					  __u64 enter_ns)
{
	__u32 node1 = slot->group_id1, s = slot->state, ended = 0;
	int pack_dg = 0;

	if (slot->group_lazy) {
		group_lazy_exit(cpu, slot, now_ns, enter_ns);
		return;
	}

	for (int i = 0; i < IS_MAX_LEVELS && node1; i++) {
		__u32 g = node1 - 1;
		struct group_slot *gs = bpf_map_lookup_elem(&group_slots, &g);
		__u64 delta, word, since;

		if (!gs)
			break;
		delta = group_delta(gs, s);
		word = __sync_fetch_and_add(&gs->word, -delta);
		group_count_update(slot, gs);
		if (!group_full(gs, word))
			break;
		/* first to leave: the node's all-idle interval ends. Its start
		 * is the last join's, stored before that join's add (idle_since,
		 * stored after it, may not be there yet: a race, which lost the
		 * interval) */
		s = group_word_state(gs, word);
		since = gs->join_ns;
		gs->idle_since = 0;
		group_account(g, since, now_ns, enter_ns, s,
			      gs->fields && s == gs->fields - 1 && s + 1 < state_slots);
		if (slot->pack_group1 == node1)
			pack_dg = 1;
		ended = node1;
		node1 = gs->parent1;
	}
	slot->ended_group = ended;
	if (packing_enabled && slot->pack_group1)
		pack_update(now_ns, pack_dg, 1);
}

#endif /* IS_NO_ATOMIC_FETCH */

#endif
