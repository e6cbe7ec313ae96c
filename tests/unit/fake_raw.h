/* A hand-built struct idle_raw (the BPF maps as read) for the unit tests of
 * its readers (test_raw_delta.c, test_raw_cut.c): raw_alloc sizes the
 * tables, detail appends a wakeup detail. Include it after cmocka.h. */
#ifndef IDLESCOPE_TEST_FAKE_RAW_H
#define IDLESCOPE_TEST_FAKE_RAW_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "session/snapshot.h"

static __attribute__((unused)) void raw_alloc(struct idle_raw *r, int ncpu, int ngroups)
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

static __attribute__((unused)) void detail(struct idle_raw *r, uint32_t kind, uint64_t d, uint64_t count)
{
	struct wake_detail *w = &r->details[r->nr_details++];

	w->key.kind = kind;
	w->key.detail = d;
	w->val.count = count;
}

#endif
