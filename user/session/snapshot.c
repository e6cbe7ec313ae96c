/* Reading the BPF maps of a loaded session into a struct idle_raw (the
 * per-CPU, per-state, wakeup, group, packing and frequency tables), and the
 * hist and path-latency tables. */
#include "session/snapshot.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "session/group_slots.h"
#include "session/idle_loader.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "idlescope.skel.h"

/* Set when the kernel has no batch lookups (before 5.6): one by one then. */
static bool no_batch;
static bool no_hash_batch; /* no BPF_MAP_LOOKUP_BATCH on hash maps: iterate */

/* Entries 0..n-1 of an array map: in one batch lookup where the kernel has
 * them, so that the values are copied within microseconds of each other,
 * else one by one. */
static int read_array(int fd, uint32_t n, void *out, size_t value_size)
{
	if (!no_batch && n > 1) {
		uint32_t *keys = malloc(n * sizeof(*keys)), count = n, next;
		LIBBPF_OPTS(bpf_map_batch_opts, opts);
		int err;

		if (!keys)
			return -ENOMEM;
		err = bpf_map_lookup_batch(fd, NULL, &next, keys, out, &count, &opts) ? -errno : 0;
		free(keys);
		if (!err && count == n)
			return 0;
		no_batch = true; /* EINVAL, or ENOTSUPP (524) from the kernel: one by one */
	}
	for (uint32_t k = 0; k < n; k++)
		if (bpf_map_lookup_elem(fd, &k, (char *)out + k * value_size))
			return -errno;
	return 0;
}

/* A per-state map (stride state_slots) into the [cpu * IS_MAX_STATES + state]
 * layout the rest of the program uses; deeper states stay zero. */
static int read_state_array(const struct idle_session *s, int fd, void *out, size_t value_size)
{
	uint32_t n = (uint32_t)s->nr_cpus * s->state_slots;
	char *tmp = idle_calloc(n, value_size);
	int err;

	if (!tmp)
		return -ENOMEM;
	if (!(err = read_array(fd, n, tmp, value_size)))
		for (uint32_t c = 0; c < (uint32_t)s->nr_cpus; c++)
			memcpy((char *)out + c * IS_MAX_STATES * value_size,
			       tmp + c * s->state_slots * value_size, s->state_slots * value_size);
	free(tmp);
	return err;
}

/* One CPU's states from a per-state map, as read_state_array lays them out. */
static int read_cpu_states(const struct idle_session *s, int fd, uint32_t c, void *out,
			   size_t value_size)
{
	for (uint32_t i = 0; i < s->state_slots; i++) {
		uint32_t k = c * s->state_slots + i;

		if (bpf_map_lookup_elem(fd, &k, (char *)out + (c * IS_MAX_STATES + i) * value_size))
			return -errno;
	}
	return 0;
}

/* An idle event on the CPU may have changed its slot and statistics between
 * two reads of its slot (bpf/idle.bpf.h, slot_seq_bump). */
static bool torn(const struct idle_cpu_slot *a, const struct idle_cpu_slot *b)
{
	return a->seq != b->seq || (a->seq & 1);
}

#define READ_ATTEMPTS 16

/* The slots and per-state statistics of every CPU, each CPU's pair read
 * between two events of that CPU: a period counted in the statistics is
 * never also in flight in the slot, nor missing from both. A CPU whose
 * sequence count moved during the batch reads is read again on its own. */
static int read_cpus(struct idle_session *s, struct idle_raw *out)
{
	int slots_fd = bpf_map__fd(s->skel->maps.idle_slots);
	int stats_fd = bpf_map__fd(s->skel->maps.idle_stats);
	uint32_t n = (uint32_t)s->nr_cpus;
	struct idle_cpu_slot *after = idle_calloc(n, sizeof(*after)), a;
	int err;

	if (!after)
		return -ENOMEM;
	if ((err = read_array(slots_fd, n, out->slots, sizeof(*out->slots))) ||
	    (err = read_state_array(s, stats_fd, out->stats, sizeof(*out->stats))) ||
	    (err = read_array(slots_fd, n, after, sizeof(*after))))
		goto out;
	for (uint32_t c = 0; c < n; c++) {
		int i;

		for (i = 0; i < READ_ATTEMPTS && torn(&out->slots[c], &after[c]); i++) {
			if (bpf_map_lookup_elem(slots_fd, &c, &a) ||
			    (err = read_cpu_states(s, stats_fd, c, out->stats, sizeof(*out->stats))) ||
			    bpf_map_lookup_elem(slots_fd, &c, &after[c])) {
				err = err ? err : -errno;
				goto out;
			}
			out->slots[c] = a;
		}
		out->torn_reads += i == READ_ATTEMPTS;
		out->slots[c] = after[c];
	}
out:
	free(after);
	return err;
}

static struct wake_detail *detail_append(struct idle_raw *out, int *cap)
{
	struct wake_detail *d;

	if (out->nr_details == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		d = realloc(out->details, (size_t)*cap * sizeof(*d));
		if (!d)
			return NULL;
		out->details = d;
	}
	return &out->details[out->nr_details];
}

/* Adds a CPU's last detail of one kind, not in the table yet, to what was
 * read from the table. */
static int detail_merge_last(struct idle_raw *out, int *cap, const struct wake_detail *last)
{
	struct wake_detail *d;

	for (int i = 0; i < out->nr_details; i++) {
		d = &out->details[i];
		if (!memcmp(&d->key, &last->key, sizeof(d->key))) {
			d->val.count += last->val.count;
			d->val.early += last->val.early;
			memcpy(d->val.comm, last->val.comm, sizeof(d->val.comm)); /* the newer */
			return 0;
		}
	}
	if (!(d = detail_append(out, cap)))
		return -ENOMEM;
	*d = *last;
	out->nr_details++;
	return 0;
}

/* The per-CPU last-detail slots; -errno on failure. */
static int read_last_slots(struct idle_session *s, struct wake_detail *last, uint32_t n)
{
	return read_array(bpf_map__fd(s->skel->maps.wake_detail_last), n, last, sizeof(*last));
}

/* The detail table's entries appended to out, in batches of up to its
 * size where the kernel has hash batch lookups: a few system calls, not two
 * per entry (a live reader reads it at every interval, and under
 * emulation each call costs tens of microseconds). 1: no batch lookups
 * here, 0 done, -errno. */
static int read_details_batch(struct idle_session *s, int fd, struct idle_raw *out, int *cap)
{
	uint32_t max = bpf_map__max_entries(s->skel->maps.wake_details), in = 0, next = 0;
	struct wake_detail_key *keys = calloc(max, sizeof(*keys));
	struct wake_detail_val *vals = calloc(max, sizeof(*vals));
	bool first = true;
	int err = 0;

	if (!keys || !vals) {
		err = -ENOMEM;
		goto out;
	}
	for (;;) {
		LIBBPF_OPTS(bpf_map_batch_opts, opts);
		uint32_t count = max;
		int r = bpf_map_lookup_batch(fd, first ? NULL : &in, &next, keys, vals, &count,
					     &opts);

		if (r && errno != ENOENT) {
			/* EINVAL/ENOTSUPP before any entry: the kernel lacks it */
			err = first && (errno == EINVAL || errno == 524) ? 1 : -errno;
			goto out;
		}
		for (uint32_t i = 0; i < count; i++) {
			struct wake_detail *d = detail_append(out, cap);

			if (!d) {
				err = -ENOMEM;
				goto out;
			}
			d->key = keys[i];
			d->val = vals[i];
			out->nr_details++;
		}
		if (r) /* ENOENT: the last batch */
			break;
		in = next;
		first = false;
	}
out:
	free(keys);
	free(vals);
	return err;
}

/* Counts move from a last slot to the table only when its key changes: if
 * no key changed around the table read, the slots read after it hold
 * exactly what the table lacks. Live readers (top, intervals) retry the
 * rare read a move overlapped; once the handlers stopped it is exact. */
static int read_details(struct idle_session *s, struct idle_raw *out)
{
	int fd = bpf_map__fd(s->skel->maps.wake_details);
	uint32_t n = (uint32_t)s->nr_cpus * WDETAIL_NR;
	struct wake_detail *before, *after;
	int cap = 0, err = 0;

	before = calloc(n, sizeof(*before));
	after = calloc(n, sizeof(*after));
	if (!before || !after) {
		err = -ENOMEM;
		goto out;
	}
	for (int attempt = 0; attempt < 3; attempt++) {
		struct wake_detail_key key, next, *prev = NULL;
		bool moved = false;

		out->nr_details = 0;
		if ((err = read_last_slots(s, before, n)))
			goto out;
		if (!no_hash_batch) {
			err = read_details_batch(s, fd, out, &cap);
			if (err < 0)
				goto out;
			no_hash_batch = err == 1;
			if (err == 1)
				out->nr_details = 0;
			err = 0;
		}
		while (no_hash_batch && bpf_map_get_next_key(fd, prev, &next) == 0) {
			struct wake_detail *d = detail_append(out, &cap);

			if (!d) {
				err = -ENOMEM;
				goto out;
			}
			d->key = next;
			if (bpf_map_lookup_elem(fd, &next, &d->val) == 0)
				out->nr_details++;
			key = next;
			prev = &key;
		}
		if ((err = read_last_slots(s, after, n)))
			goto out;
		for (uint32_t k = 0; k < n && !moved; k++)
			moved = memcmp(&before[k].key, &after[k].key, sizeof(before[k].key)) ||
				after[k].val.count < before[k].val.count;
		if (!moved)
			break;
	}
	for (uint32_t k = 0; k < n; k++)
		if (after[k].val.count && (err = detail_merge_last(out, &cap, &after[k])))
			goto out;
out:
	free(before);
	free(after);
	return err;
}

/* Whether group g's statistics and slot, read between the two reads of its
 * statistics (s1, s2) and before the member slots, agree. Equal statistics
 * mean no all-idle interval was counted meanwhile; then only an exit that
 * had ended the interval in the slot but not yet counted it could make the
 * slot say "not all idle" while the statistics lack it, and during it that
 * member's sequence count is odd. */
static bool group_consistent(const struct group_stats *s1, const struct group_stats *s2,
			     const struct group_slot *slots, uint32_t nr_groups,
			     const struct idle_cpu_slot *cpus, uint32_t nr_cpus, uint32_t g)
{
	const struct group_slot *gs = &slots[g];

	if (memcmp(s1, s2, sizeof(*s1)))
		return false;
	if (gs->idle_since && group_slot_all_idle(gs))
		return true;
	/* members: the CPUs whose smallest group is g or a group below it */
	for (uint32_t c = 0; c < nr_cpus; c++) {
		uint32_t n1 = cpus[c].group_id1;

		if (!(cpus[c].seq & 1))
			continue;
		for (int l = 0; l < IS_MAX_LEVELS && n1 && n1 <= nr_groups; l++) {
			if (n1 == g + 1)
				return false;
			n1 = slots[n1 - 1].parent1;
		}
	}
	return true;
}

/* The statistics of group g into st: its own, or for a lazy node the sum
 * of its members' copies (read into copies). */
static int read_group_stats(struct idle_session *s, uint32_t g, const struct group_slot *gs,
			    struct group_stats *copies, struct group_stats *st)
{
	int err;

	if (!gs->lazy)
		return bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.group_stats), &g, st) ? -errno
											     : 0;
	err = read_array(bpf_map__fd(s->skel->maps.group_stats_cpu), (uint32_t)s->nr_cpus, copies,
			 sizeof(*copies));
	if (!err)
		group_stats_from_cpus(st, gs, copies, s->nr_cpus);
	return err;
}

/* Every group's statistics as BPF keeps them, and with lazy nodes every
 * CPU's copies (summed by lazy_stats once the slots are read). */
static int read_group_stats_all(struct idle_session *s, struct group_stats *copies,
				struct group_stats *st)
{
	int err = read_array(bpf_map__fd(s->skel->maps.group_stats), (uint32_t)s->nr_groups, st,
			     sizeof(*st));

	if (err || !s->lazy_groups)
		return err;
	return read_array(bpf_map__fd(s->skel->maps.group_stats_cpu), (uint32_t)s->nr_cpus, copies,
			  sizeof(*copies));
}

/* Each lazy node's statistics: its members' copies, summed. */
static void lazy_stats(struct idle_session *s, const struct group_slot *slots,
		       const struct group_stats *copies, struct group_stats *st)
{
	for (uint32_t g = 0; s->lazy_groups && g < (uint32_t)s->nr_groups; g++)
		if (slots[g].lazy)
			group_stats_from_cpus(&st[g], &slots[g], copies, s->nr_cpus);
}

/* Every group's statistics and slot, consistent (group_consistent): the
 * statistics, the slots, every CPU's slot, the statistics again; a group
 * that did not agree is read again on its own. */
static int read_group_core(struct idle_session *s, struct idle_raw *out)
{
	int slots_fd = bpf_map__fd(s->skel->maps.group_slots);
	int cpus_fd = bpf_map__fd(s->skel->maps.idle_slots);
	uint32_t n = (uint32_t)s->nr_groups, nc = (uint32_t)s->nr_cpus;
	struct group_stats *again = idle_calloc(n, sizeof(*again));
	struct idle_cpu_slot *cpus = idle_calloc(nc, sizeof(*cpus));
	/* two sets of lazy nodes' copies: one per read of the statistics */
	struct group_stats *copies = s->lazy_groups ? idle_calloc(2 * (size_t)nc, sizeof(*copies))
						    : NULL;
	int err;

	if (!again || !cpus || (s->lazy_groups && !copies)) {
		err = -ENOMEM;
		goto out;
	}
	if ((err = read_group_stats_all(s, copies, out->groups)) ||
	    (err = read_array(slots_fd, n, out->group_slots, sizeof(*out->group_slots))) ||
	    (err = read_array(cpus_fd, nc, cpus, sizeof(*cpus))) ||
	    (err = read_group_stats_all(s, copies ? copies + nc : NULL, again)))
		goto out;
	lazy_stats(s, out->group_slots, copies, out->groups);
	lazy_stats(s, out->group_slots, copies ? copies + nc : NULL, again);
	for (uint32_t g = 0; g < n; g++) {
		int i;

		for (i = 0; i < READ_ATTEMPTS && !group_consistent(&out->groups[g], &again[g],
								     out->group_slots, n, cpus, nc, g);
		     i++) {
			if ((err = read_group_stats(s, g, &out->group_slots[g], copies,
						    &out->groups[g])) ||
			    bpf_map_lookup_elem(slots_fd, &g, &out->group_slots[g]) ||
			    (err = read_array(cpus_fd, nc, cpus, sizeof(*cpus))) ||
			    (err = read_group_stats(s, g, &out->group_slots[g], copies, &again[g]))) {
				err = err ? err : -errno;
				goto out;
			}
		}
		out->torn_reads += i == READ_ATTEMPTS;
	}
	/* the lazy nodes' slots from the member slots read with them */
	group_slots_from_cpus(out->group_slots, (int)n, cpus, (int)nc, true);
out:
	free(again);
	free(cpus);
	free(copies);
	return err;
}

/* The packing tables (after the window's core, read_group_core). */
static int read_groups(struct idle_session *s, struct idle_raw *out)
{
	if (!s->nr_groups)
		return 0;
	if (s->packing) {
		int fd = bpf_map__fd(s->skel->maps.pack_tasks);
		struct pack_task_key key, next, *prev = NULL;
		uint32_t zero = 0;
		int cap = 0;

		if (bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.pack_global), &zero, &out->pack))
			return -errno;
		out->have_pack = true;
		while (bpf_map_get_next_key(fd, prev, &next) == 0) {
			if (out->nr_pack_tasks == cap) {
				void *k, *v;

				cap = cap ? 2 * cap : 64;
				k = realloc(out->pack_keys, (size_t)cap * sizeof(*out->pack_keys));
				v = k ? realloc(out->pack_vals, (size_t)cap * sizeof(*out->pack_vals)) : NULL;
				if (k)
					out->pack_keys = k;
				if (!v)
					return -ENOMEM;
				out->pack_vals = v;
			}
			if (!bpf_map_lookup_elem(fd, &next, &out->pack_vals[out->nr_pack_tasks]))
				out->pack_keys[out->nr_pack_tasks++] = next;
			key = next;
			prev = &key;
		}
	}
	return 0;
}

static int read_freq(struct idle_session *s, struct idle_raw *out)
{
	out->freq = idle_calloc((size_t)s->nr_cpus, sizeof(*out->freq));
	if (!out->freq)
		return -ENOMEM;
	return read_array(bpf_map__fd(s->skel->maps.freq_cpus), (uint32_t)s->nr_cpus, out->freq,
			  sizeof(*out->freq));
}

/* The forced periods of the ledger's slots handed out so far (slot 0
 * alone without a ledger), summed over the CPUs. */
static int read_qos_cost(struct idle_session *s, struct idle_raw *out)
{
	int ncpu = libbpf_num_possible_cpus();
	uint32_t slots = s->ledger ? s->ledger->next_slot : 1;
	struct qos_cost *v;
	int err = 0;

	if (ncpu <= 0)
		return ncpu ? ncpu : -EINVAL;
	if (!(v = calloc((size_t)ncpu, sizeof(*v))))
		return -ENOMEM;
	for (uint32_t k = 0; k < slots && k < QOS_SLOTS && !err; k++) {
		if (bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.qos_cost), &k, v)) {
			err = -errno;
			break;
		}
		for (int c = 0; c < ncpu; c++) {
			out->qos_cost[k].periods += v[c].periods;
			out->qos_cost[k].idle_ns += v[c].idle_ns;
		}
	}
	free(v);
	out->nr_qos_slots = err ? 0 : (int)slots;
	return err;
}

static int read_haltpoll(struct idle_session *s, struct idle_raw *out)
{
	out->haltpoll = idle_calloc((size_t)s->nr_cpus, sizeof(*out->haltpoll));
	if (!out->haltpoll)
		return -ENOMEM;
	return read_array(bpf_map__fd(s->skel->maps.haltpoll_cpus), (uint32_t)s->nr_cpus,
			  out->haltpoll, sizeof(*out->haltpoll));
}

int idle_session_read(struct idle_session *s, struct idle_raw *out)
{
	uint32_t n = (uint32_t)s->nr_cpus;
	int err;

	memset(out, 0, sizeof(*out));
	out->nr_cpus = s->nr_cpus;
	out->slots = idle_calloc(n, sizeof(*out->slots));
	out->stats = idle_calloc((size_t)n * IS_MAX_STATES, sizeof(*out->stats));
	out->wake = idle_calloc(n, sizeof(*out->wake));
	out->lat = idle_calloc((size_t)n * IS_MAX_STATES, sizeof(*out->lat));
	if (s->nr_groups) {
		out->nr_groups = s->nr_groups;
		out->groups = idle_calloc((size_t)s->nr_groups, sizeof(*out->groups));
		out->group_slots = idle_calloc((size_t)s->nr_groups, sizeof(*out->group_slots));
	}
	if (!out->slots || !out->stats || !out->wake || !out->lat ||
	    (s->nr_groups && (!out->groups || !out->group_slots))) {
		idle_raw_free(out);
		return -ENOMEM;
	}
	/* first what the window's idle time comes from, and the causes of
	 * those periods, in a few batch reads, and the instant they were read:
	 * the rest can take long (at 64 CPUs in a TCG guest a whole read took
	 * 0.85 s) */
	if ((err = read_cpus(s, out)) || (s->nr_groups && (err = read_group_core(s, out))) ||
	    (s->wake && (err = read_array(bpf_map__fd(s->skel->maps.wake_stats), n, out->wake,
					  sizeof(*out->wake)))) ||
	    (s->wake && (err = read_state_array(s, bpf_map__fd(s->skel->maps.wake_lat), out->lat,
						sizeof(*out->lat))))) {
		idle_raw_free(out);
		return err;
	}
	out->read_ns = idle_now_ns();
	out->start_ns = s->skel->bss->start_ns;
	if ((s->wake && (err = read_details(s, out))) || (err = read_groups(s, out)) ||
	    (s->freq && (err = read_freq(s, out))) || (err = read_qos_cost(s, out)) ||
	    (s->haltpoll && (err = read_haltpoll(s, out)))) {
		idle_raw_free(out);
		return err;
	}
	out->cpu_out_of_range = s->skel->bss->cpu_out_of_range;
	return 0;
}

int idle_session_read_stats(struct idle_session *s, struct idle_raw *out)
{
	uint32_t n = (uint32_t)s->nr_cpus;
	int err;

	memset(out, 0, sizeof(*out));
	out->nr_cpus = s->nr_cpus;
	out->stats = idle_calloc((size_t)n * IS_MAX_STATES, sizeof(*out->stats));
	if (!out->stats)
		return -ENOMEM;
	if ((err = read_state_array(s, bpf_map__fd(s->skel->maps.idle_stats), out->stats,
				    sizeof(*out->stats)))) {
		idle_raw_free(out);
		return err;
	}
	return 0;
}

int idle_session_read_hist(struct idle_session *s, struct hist_slot *out, bool reset)
{
	int fd = bpf_map__fd(s->skel->maps.hist_data);
	int err = read_state_array(s, fd, out, sizeof(*out));
	static const struct hist_slot zero;

	/* Zeroing races with handlers adding to the slot (lost counts of one
	 * update at most); libbpf-tools clear the same way. */
	for (uint32_t c = 0; !err && reset && c < (uint32_t)s->nr_cpus; c++)
		for (uint32_t i = 0; !err && i < s->state_slots; i++) {
			uint32_t k = c * s->state_slots + i;

			if (out[c * IS_MAX_STATES + i].count &&
			    bpf_map_update_elem(fd, &k, &zero, BPF_ANY))
				err = -errno;
		}
	return err;
}

void idle_raw_free(struct idle_raw *r)
{
	free(r->slots);
	free(r->stats);
	free(r->wake);
	free(r->lat);
	free(r->details);
	free(r->groups);
	free(r->group_slots);
	free(r->freq);
	r->freq = NULL;
	free(r->haltpoll);
	r->haltpoll = NULL;
	free(r->pack_keys);
	free(r->pack_vals);
	r->pack_keys = NULL;
	r->pack_vals = NULL;
	r->nr_pack_tasks = 0;
	r->groups = NULL;
	r->group_slots = NULL;
	r->nr_groups = 0;
	r->slots = NULL;
	r->stats = NULL;
	r->wake = NULL;
	r->lat = NULL;
	r->details = NULL;
	r->nr_details = 0;
}

int idle_session_read_path(struct idle_session *s, struct path_cpu *sum)
{
	int fd = bpf_map__fd(s->skel->maps.path_cpus);

	memset(sum, 0, sizeof(*sum));
	for (uint32_t c = 0; c < (uint32_t)s->nr_cpus; c++) {
		struct path_cpu p;

		if (bpf_map_lookup_elem(fd, &c, &p))
			return -errno;
		sum->unmatched_to += p.unmatched_to;
		sum->replaced += p.replaced;
		sum->overflow += p.overflow;
		sum->depth += p.depth; /* FROMs still pending at the end */
	}
	return 0;
}
