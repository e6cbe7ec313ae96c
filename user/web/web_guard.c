/* The connection cap and the per-request deadline of `serve`: MHD's own
 * limits (a connection limit, an idle timeout) let 64 slow clients lock
 * every scraper out, as the timeout restarts at each byte received. */
#include "web/web_guard.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

#include "util/clock.h"
#include "web/web_libs.h"

#define DEADLINE_NS ((uint64_t)WEB_GUARD_DEADLINE_S * 1000000000ull)

struct web_conn {
	struct web_conn *prev, *next;
	struct web_guard *g;
	int fd;
	uint64_t since;   /* opened, or its last answer sent: the deadline runs from it */
	bool answering;   /* the handler has its request */
	bool cut;         /* shut down: MHD sees the end and closes it */
};

static void unlink_conn(struct web_guard *g, struct web_conn *c)
{
	*(c->prev ? &c->prev->next : &g->head) = c->next;
	*(c->next ? &c->next->prev : &g->tail) = c->prev;
	c->prev = c->next = NULL;
}

static void append(struct web_guard *g, struct web_conn *c)
{
	if (!g->head) /* the reaper sleeps without a timeout while there is none */
		pthread_cond_signal(&g->wake);
	c->prev = g->tail;
	*(g->tail ? &g->tail->next : &g->head) = c;
	g->tail = c;
}

/* Under the lock, which MHD's close notification takes before it closes
 * the socket: the fd is still this connection's. */
static void cut(struct web_guard *g, struct web_conn *c)
{
	shutdown(c->fd, SHUT_RDWR);
	c->cut = true;
	g->live--;
}

enum MHD_Result web_guard_accept(void *cls, const struct sockaddr *addr, socklen_t addrlen)
{
	struct web_guard *g = cls;
	struct web_conn *c;
	enum MHD_Result ret = MHD_YES;

	(void)addr;
	(void)addrlen;
	pthread_mutex_lock(&g->lock);
	if (g->live >= WEB_GUARD_CONNECTIONS) {
		/* a scrape finishes in milliseconds: what has waited longest is
		 * what holds a place without using it */
		for (c = g->head; c && (c->cut || c->answering); c = c->next)
			;
		/* every place being answered: clients reading their answers
		 * slowly, as an answer leaves in milliseconds to a scraper */
		for (c = c ? c : g->head; c && c->cut; c = c->next)
			;
		if (c)
			cut(g, c);
		else
			ret = MHD_NO;
	}
	pthread_mutex_unlock(&g->lock);
	return ret;
}

static void on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
			  enum MHD_ConnectionNotificationCode code)
{
	struct web_guard *g = cls;
	const union MHD_ConnectionInfo *ci;
	struct web_conn *c = *socket_context;

	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		ci = web_lib.MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
		if (!ci || !(c = calloc(1, sizeof(*c))))
			return; /* unguarded, still under MHD's limits */
		c->g = g;
		c->fd = ci->connect_fd;
		c->since = idle_now_ns();
		pthread_mutex_lock(&g->lock);
		append(g, c);
		g->live++;
		pthread_mutex_unlock(&g->lock);
		*socket_context = c;
		return;
	}
	if (!c)
		return;
	pthread_mutex_lock(&g->lock);
	unlink_conn(g, c);
	if (!c->cut)
		g->live--;
	pthread_mutex_unlock(&g->lock);
	free(c);
	*socket_context = NULL;
}

/* an answer sent (or a request ended): the next request's deadline starts */
static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct web_guard *g = cls;
	const union MHD_ConnectionInfo *ci =
		web_lib.MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	struct web_conn *c = ci ? ci->socket_context : NULL;

	(void)con_cls;
	(void)toe;
	if (!c)
		return;
	pthread_mutex_lock(&g->lock);
	c->answering = false;
	c->since = idle_now_ns();
	unlink_conn(g, c);
	append(g, c);
	pthread_mutex_unlock(&g->lock);
}

void web_guard_answering(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *ci =
		web_lib.MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	struct web_conn *c = ci ? ci->socket_context : NULL;

	if (!c)
		return;
	pthread_mutex_lock(&c->g->lock);
	c->answering = true;
	pthread_mutex_unlock(&c->g->lock);
}

/* Once a second while there are connections: cut what is past its deadline
 * (a trickle keeps MHD's idle timeout from firing; a client that reads the
 * answer slowly too). With none it sleeps until append wakes it: an idle
 * exporter wakes no CPU. */
static void *reaper(void *arg)
{
	struct web_guard *g = arg;
	struct timespec ts;

	pthread_mutex_lock(&g->lock);
	while (!g->stop) {
		uint64_t now = idle_now_ns();

		/* the list is in order of since: stop at the first in time */
		for (struct web_conn *c = g->head; c && c->since + DEADLINE_NS <= now; c = c->next)
			if (!c->cut)
				cut(g, c);
		if (!g->head) {
			pthread_cond_wait(&g->wake, &g->lock);
			continue;
		}
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_sec++;
		pthread_cond_timedwait(&g->wake, &g->lock, &ts);
	}
	pthread_mutex_unlock(&g->lock);
	return NULL;
}

int web_guard_start(struct web_guard *g)
{
	pthread_condattr_t ca;
	int err;

	*g = (struct web_guard){ 0 };
	pthread_mutex_init(&g->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&g->wake, &ca);
	pthread_condattr_destroy(&ca);
	g->options[0] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_LIMIT,
						 WEB_GUARD_CONNECTIONS + WEB_GUARD_SLACK, NULL };
	g->options[1] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_TIMEOUT, WEB_GUARD_IDLE_S, NULL };
	g->options[2] = (struct MHD_OptionItem){ MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)on_connection, g };
	g->options[3] = (struct MHD_OptionItem){ MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)on_completed, g };
	g->options[4] = (struct MHD_OptionItem){ MHD_OPTION_END, 0, NULL };
	if ((err = pthread_create(&g->reaper, NULL, reaper, g)))
		return -err;
	g->running = true;
	return 0;
}

void web_guard_stop(struct web_guard *g)
{
	if (!g->running)
		return;
	pthread_mutex_lock(&g->lock);
	g->stop = true;
	pthread_cond_signal(&g->wake);
	pthread_mutex_unlock(&g->lock);
	pthread_join(g->reaper, NULL);
	g->running = false;
	pthread_cond_destroy(&g->wake);
	pthread_mutex_destroy(&g->lock);
}
