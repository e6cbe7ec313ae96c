/* Reading the BPF maps of a loaded session into a struct idle_raw (the
 * per-CPU, per-state, wakeup, group, packing and frequency tables), and the
 * hist and path-latency tables. */
#include "session/snapshot.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "session/idle_loader.h"
#include "util/alloc.h"
#include "idlescope.skel.h"

static int read_array(int fd, uint32_t n, void *out, size_t value_size)
{
	for (uint32_t k = 0; k < n; k++)
		if (bpf_map_lookup_elem(fd, &k, (char *)out + k * value_size))
			return -errno;
	return 0;
}

/* A per-state map (stride state_slots) into the [cpu * IS_MAX_STATES + state]
 * layout the rest of the program uses; deeper states stay zero. */
static int read_state_array(const struct idle_session *s, int fd, void *out, size_t value_size)
{
	for (uint32_t c = 0; c < (uint32_t)s->nr_cpus; c++)
		for (uint32_t i = 0; i < s->state_slots; i++) {
			uint32_t k = c * s->state_slots + i;

			if (bpf_map_lookup_elem(fd, &k,
						(char *)out + (c * IS_MAX_STATES + i) * value_size))
				return -errno;
		}
	return 0;
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
	int fd = bpf_map__fd(s->skel->maps.wake_detail_last);

	for (uint32_t k = 0; k < n; k++)
		if (bpf_map_lookup_elem(fd, &k, &last[k]))
			return -errno;
	return 0;
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
		while (bpf_map_get_next_key(fd, prev, &next) == 0) {
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

static int read_groups(struct idle_session *s, struct idle_raw *out)
{
	uint32_t n = (uint32_t)s->nr_groups;

	if (!n)
		return 0;
	out->groups = idle_calloc(n, sizeof(*out->groups));
	out->group_slots = idle_calloc(n, sizeof(*out->group_slots));
	if (!out->groups || !out->group_slots)
		return -ENOMEM;
	out->nr_groups = s->nr_groups;
	if (read_array(bpf_map__fd(s->skel->maps.group_stats), n, out->groups, sizeof(*out->groups)))
		return -errno;
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
	return read_array(bpf_map__fd(s->skel->maps.group_slots), n, out->group_slots,
			  sizeof(*out->group_slots));
}

static int read_freq(struct idle_session *s, struct idle_raw *out)
{
	out->freq = idle_calloc((size_t)s->nr_cpus, sizeof(*out->freq));
	if (!out->freq)
		return -ENOMEM;
	return read_array(bpf_map__fd(s->skel->maps.freq_cpus), (uint32_t)s->nr_cpus, out->freq,
			  sizeof(*out->freq));
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
	if (!out->slots || !out->stats || !out->wake || !out->lat) {
		idle_raw_free(out);
		return -ENOMEM;
	}
	if ((err = read_array(bpf_map__fd(s->skel->maps.idle_slots), n, out->slots,
			      sizeof(*out->slots))) ||
	    (err = read_state_array(s, bpf_map__fd(s->skel->maps.idle_stats), out->stats,
				    sizeof(*out->stats))) ||
	    (s->wake && (err = read_array(bpf_map__fd(s->skel->maps.wake_stats), n, out->wake,
					  sizeof(*out->wake)))) ||
	    (s->wake && (err = read_state_array(s, bpf_map__fd(s->skel->maps.wake_lat), out->lat,
						sizeof(*out->lat)))) ||
	    (s->wake && (err = read_details(s, out))) || (err = read_groups(s, out)) ||
	    (s->freq && (err = read_freq(s, out)))) {
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
