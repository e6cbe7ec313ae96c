/* `serve`'s defence against clients that hold connections without finishing
 * a request (slowloris, idle partial requests): a cap on open connections
 * that cuts the oldest one still waiting for its request to make room, and a
 * deadline on each request, whatever trickles in (docs/metrics.md#limits). */
#ifndef IDLESCOPE_WEB_GUARD_H
#define IDLESCOPE_WEB_GUARD_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <microhttpd.h>

#define WEB_GUARD_CONNECTIONS 256 /* open at once; a new one cuts the oldest waiting */
#define WEB_GUARD_SLACK 64        /* cut ones MHD has not closed yet */
#define WEB_GUARD_DEADLINE_S 10   /* a request read and answered within it */
#define WEB_GUARD_IDLE_S 10       /* MHD's timeout: nothing received or sent */

struct web_conn;

struct web_guard {
	pthread_mutex_t lock;
	pthread_cond_t wake; /* the reaper's stop */
	pthread_t reaper;
	bool running, stop;
	/* open connections, the one waiting longest first */
	struct web_conn *head, *tail;
	unsigned int live; /* open and not cut */
	/* for MHD_OPTION_ARRAY: limit, timeout, callbacks; ends with MHD_OPTION_END */
	struct MHD_OptionItem options[5];
};

/* Starts the reaper thread (it cuts requests past the deadline) and fills
 * g->options. Returns 0 or -errno. */
int web_guard_start(struct web_guard *g);
/* MHD_start_daemon's accept policy (cls: the guard): makes room by cutting
 * the connection that has waited longest for its request (or, when every
 * one is being answered, the oldest). */
enum MHD_Result web_guard_accept(void *cls, const struct sockaddr *addr, socklen_t addrlen);
/* The handler has the connection's request: it is not cut to make room. */
void web_guard_answering(struct MHD_Connection *conn);
/* After MHD_stop_daemon, when every connection is closed. */
void web_guard_stop(struct web_guard *g);

#endif
