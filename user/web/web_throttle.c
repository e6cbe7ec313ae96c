/* Failed basic-auth attempts as a generic cell rate (GCRA): each failure
 * pushes a theoretical arrival time one period on; past a burst of them,
 * attempts are refused without hashing until time catches up. */
#include "web/web_throttle.h"

#include <netinet/in.h>
#include <string.h>
#include <time.h>

#include "util/clock.h"

#define NS 1000000000ull
#define EVERY_NS ((uint64_t)WEB_THROTTLE_EVERY_S * NS)
#define ALL_EVERY_NS ((uint64_t)WEB_THROTTLE_ALL_EVERY_MS * 1000000ull)

static void key_of(const struct sockaddr *sa, unsigned char key[17])
{
	memset(key, 0, 17);
	if (!sa)
		return;
	key[0] = (unsigned char)sa->sa_family;
	if (sa->sa_family == AF_INET)
		memcpy(key + 1, &((const struct sockaddr_in *)sa)->sin_addr, 4);
	else if (sa->sa_family == AF_INET6)
		memcpy(key + 1, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
}

static struct web_throttle_addr *find(struct web_throttle *t, const unsigned char key[17])
{
	for (int i = 0; i < t->nr_addrs; i++)
		if (!memcmp(t->addrs[i].key, key, 17))
			return &t->addrs[i];
	return NULL;
}

/* ns until one more failure fits a budget of burst failures, one per every */
static uint64_t over(uint64_t tat, uint64_t now, unsigned int burst, uint64_t every)
{
	uint64_t debt = tat > now ? tat - now : 0, room = (uint64_t)(burst - 1) * every;

	return debt > room ? debt - room : 0;
}

static void charge(uint64_t *tat, uint64_t now, uint64_t every)
{
	*tat = (*tat > now ? *tat : now) + every;
}

void web_throttle_init(struct web_throttle *t)
{
	pthread_condattr_t ca;

	memset(t, 0, sizeof(*t));
	pthread_mutex_init(&t->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&t->freed, &ca);
	pthread_condattr_destroy(&ca);
}

unsigned int web_throttle_enter(struct web_throttle *t, const struct sockaddr *sa)
{
	unsigned char key[17];
	uint64_t now = idle_now_ns(), until = now + WEB_THROTTLE_WAIT_MS * 1000000ull, wait;
	struct timespec ts = { (time_t)(until / NS), (long)(until % NS) };
	struct web_throttle_addr *e;

	key_of(sa, key);
	pthread_mutex_lock(&t->lock);
	for (;;) {
		/* checked again after each wait: the check that ended may have failed */
		e = find(t, key);
		wait = over(t->all_tat, now, WEB_THROTTLE_ALL_BURST, ALL_EVERY_NS);
		if (e && over(e->tat, now, WEB_THROTTLE_BURST, EVERY_NS) > wait)
			wait = over(e->tat, now, WEB_THROTTLE_BURST, EVERY_NS);
		if (wait || !t->busy)
			break;
		if (now >= until) {
			wait = NS;
			break;
		}
		pthread_cond_timedwait(&t->freed, &t->lock, &ts); /* CLOCK_MONOTONIC, as idle_now_ns */
		now = idle_now_ns();
	}
	if (!wait)
		t->busy = true;
	pthread_mutex_unlock(&t->lock);
	return wait ? (unsigned int)((wait + NS - 1) / NS) : 0;
}

void web_throttle_leave(struct web_throttle *t, const struct sockaddr *sa, bool failed)
{
	unsigned char key[17];
	uint64_t now = idle_now_ns();
	struct web_throttle_addr *e;

	key_of(sa, key);
	pthread_mutex_lock(&t->lock);
	t->busy = false;
	pthread_cond_signal(&t->freed);
	if (failed) {
		charge(&t->all_tat, now, ALL_EVERY_NS);
		if (!(e = find(t, key))) {
			if (t->nr_addrs < WEB_THROTTLE_ADDRS) {
				e = &t->addrs[t->nr_addrs++];
			} else { /* full: forget the address closest to paid off */
				e = &t->addrs[0];
				for (int i = 1; i < t->nr_addrs; i++)
					if (t->addrs[i].tat < e->tat)
						e = &t->addrs[i];
			}
			memcpy(e->key, key, 17);
			e->tat = 0;
		}
		charge(&e->tat, now, EVERY_NS);
	}
	pthread_mutex_unlock(&t->lock);
}

void web_throttle_free(struct web_throttle *t)
{
	pthread_cond_destroy(&t->freed);
	pthread_mutex_destroy(&t->lock);
}
