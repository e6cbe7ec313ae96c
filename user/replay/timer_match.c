/* hrtimer_expire_entry gives only "now": the expiry comes from the timer's
 * last hrtimer_start, looked up by its (hashed) pointer. */
#include "replay/timer_match.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Open addressing on the pointer, grown at half full. */
struct expiry_map {
	size_t cap, n;
	uint64_t *key, *val; /* key 0 = empty (a pointer is never 0) */
};

static uint64_t *expiry_slot(struct expiry_map *m, uint64_t key)
{
	size_t i = (size_t)((key * 0x9e3779b97f4a7c15ULL) >> 20) & (m->cap - 1);

	while (m->key[i] && m->key[i] != key)
		i = (i + 1) & (m->cap - 1);
	return &m->key[i];
}

static int expiry_set(struct expiry_map *m, uint64_t key, uint64_t val)
{
	uint64_t *k;

	if (!key)
		return 0;
	if (2 * (m->n + 1) > m->cap) {
		struct expiry_map g = { m->cap ? 2 * m->cap : 1024, 0, NULL, NULL };

		g.key = calloc(g.cap, sizeof(*g.key));
		g.val = calloc(g.cap, sizeof(*g.val));
		if (!g.key || !g.val) {
			free(g.key);
			free(g.val);
			return -1;
		}
		for (size_t i = 0; i < m->cap; i++)
			if (m->key[i])
				expiry_set(&g, m->key[i], m->val[i]);
		free(m->key);
		free(m->val);
		*m = g;
	}
	k = expiry_slot(m, key);
	if (!*k)
		m->n++;
	*k = key;
	m->val[k - m->key] = val;
	return 0;
}

static bool expiry_get(struct expiry_map *m, uint64_t key, uint64_t *val)
{
	uint64_t *k;

	if (!m->cap || !key)
		return false;
	k = expiry_slot(m, key);
	if (!*k)
		return false;
	*val = m->val[k - m->key];
	return true;
}

int timer_match_events(struct trace_data *d, struct timer_match *m)
{
	struct expiry_map em = { 0 };
	size_t n = 0;
	int err = 0;

	memset(m, 0, sizeof(*m));
	/* in place: event i moves to n <= i once read */
	for (size_t i = 0; i < d->nr_ev; i++) {
		struct trace_event t = d->ev[i];
		uint64_t v;

		if (t.re.kind == RE_HRTIMER_START) {
			if (expiry_set(&em, t.re.timer.hrtimer, t.re.timer.expires)) {
				err = -ENOMEM;
				break;
			}
			m->starts++;
			continue;
		}
		if (t.re.kind == RE_HRTIMER) {
			/* no start before it in the trace, or its name did not fit */
			if (!expiry_get(&em, t.re.timer.hrtimer, &v) || !t.re.timer.fn) {
				m->unmatched++;
				continue;
			}
			t.re.timer.expires = v;
		}
		d->ev[n++] = t;
	}
	if (!err)
		d->nr_ev = n;
	free(em.key);
	free(em.val);
	return err;
}
