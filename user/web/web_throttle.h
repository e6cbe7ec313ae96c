/* A budget of failed basic-auth attempts per client address and over all
 * addresses, and one bcrypt check at a time: wrong passwords (each ~60 ms of
 * bcrypt at cost 10) cannot pin the CPUs. docs/metrics.md#limits */
#ifndef IDLESCOPE_WEB_THROTTLE_H
#define IDLESCOPE_WEB_THROTTLE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#define WEB_THROTTLE_BURST 10     /* failures an address may make in a row, */
#define WEB_THROTTLE_EVERY_S 6    /* then one per 6 s */
#define WEB_THROTTLE_ALL_BURST 30 /* over all addresses, */
#define WEB_THROTTLE_ALL_EVERY_MS 500 /* then two a second */
#define WEB_THROTTLE_WAIT_MS 1000 /* for the bcrypt check under way to end */
#define WEB_THROTTLE_ADDRS 256    /* addresses remembered; the most paid-off is forgotten */

struct web_throttle_addr {
	unsigned char key[17]; /* family, then the address */
	uint64_t tat;          /* when its failures are paid off (GCRA) */
};

struct web_throttle {
	pthread_mutex_t lock;
	pthread_cond_t freed; /* the bcrypt slot */
	bool busy;
	uint64_t all_tat;
	struct web_throttle_addr addrs[WEB_THROTTLE_ADDRS];
	int nr_addrs;
};

void web_throttle_init(struct web_throttle *t);
/* Whether a bcrypt check may run for a client at sa: 0, and the slot is
 * held until web_throttle_leave; or the seconds to wait (Retry-After) when
 * its address, or all addresses, are out of failures, or the slot stayed busy. */
unsigned int web_throttle_enter(struct web_throttle *t, const struct sockaddr *sa);
/* Frees the slot; a failed check is charged to the address and to all. */
void web_throttle_leave(struct web_throttle *t, const struct sockaddr *sa, bool failed);
void web_throttle_free(struct web_throttle *t);

#endif
