/* The measurement window loop and the `-- COMMAND` lifecycle around it. */
#include "window.h"

#include <errno.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "idle_loader.h"

int window_prepare(struct window *w, char **command)
{
	int e;

	sigemptyset(&w->waitset);
	sigaddset(&w->waitset, SIGINT);
	sigaddset(&w->waitset, SIGTERM);
	sigaddset(&w->waitset, SIGCHLD);
	sigprocmask(SIG_BLOCK, &w->waitset, &w->oldmask);
	w->signals_blocked = true;
	if (!command)
		return 0;
	if ((e = workload_start(&w->wl, command, &w->oldmask))) {
		cli_error("cannot start '%s': %s", command[0], strerror(-e));
		return EXIT_RUNTIME;
	}
	w->have_wl = true;
	return 0;
}

int window_release(struct window *w, char **command)
{
	int e;

	if (!w->have_wl || !(e = workload_release(&w->wl)))
		return 0;
	cli_error("cannot run '%s': %s", command[0], strerror(-e));
	return 127;
}

int window_wait(struct window *w, uint64_t start, const struct window_ticks *t)
{
	uint64_t end = w->duration_ns ? start + w->duration_ns : UINT64_MAX;
	uint64_t next_tick = w->interval_ns ? start + w->interval_ns : UINT64_MAX;
	uint64_t next_refresh = w->refresh_ns ? start + w->refresh_ns : UINT64_MAX;

	for (;;) {
		uint64_t now = idle_now_ns(), wake = end;
		struct timespec ts;
		int sig;

		if (now >= end)
			return 0;
		if (now >= next_tick) {
			if (t && t->on_interval)
				t->on_interval(t->ctx, now);
			if (w->done)
				return 0;
			next_tick += w->interval_ns;
			continue;
		}
		if (now >= next_refresh) {
			if (t && t->on_refresh)
				t->on_refresh(t->ctx, now);
			next_refresh = now + w->refresh_ns;
		}
		if (next_tick < wake)
			wake = next_tick;
		if (next_refresh < wake)
			wake = next_refresh;
		ts.tv_sec = (time_t)((wake - now) / 1000000000ULL);
		ts.tv_nsec = (long)((wake - now) % 1000000000ULL);
		sig = sigtimedwait(&w->waitset, NULL, &ts);
		if (sig == SIGCHLD) {
			if (w->have_wl && workload_poll(&w->wl))
				return 0;
		} else if (sig > 0) {
			return sig;
		}
	}
}

int window_finish(struct window *w, int sig)
{
	if (!w->have_wl)
		return EXIT_OK;
	workload_stop(&w->wl, sig ? SIGTERM : 0);
	return workload_exit_code(&w->wl);
}

void window_cleanup(struct window *w)
{
	if (w->have_wl)
		workload_stop(&w->wl, SIGTERM);
	if (w->signals_blocked)
		sigprocmask(SIG_SETMASK, &w->oldmask, NULL);
	w->signals_blocked = false;
}
