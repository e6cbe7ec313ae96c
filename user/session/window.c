/* The measurement window loop and the `-- COMMAND` lifecycle around it. */
#include "session/window.h"

#include <errno.h>
#include <string.h>
#include <time.h>

#include "util/diag.h"
#include "util/child_run.h"
#include "util/clock.h"

static sigset_t original_mask; /* before window_block_signals, for the command */
static bool early_blocked;

void window_ending_signals(sigset_t *s)
{
	ending_signals(s);
}

void window_block_signals(void)
{
	sigset_t s;

	if (early_blocked)
		return;
	window_ending_signals(&s);
	sigprocmask(SIG_BLOCK, &s, &original_mask);
	early_blocked = true;
}

int window_interrupted(void)
{
	struct timespec zero = { 0, 0 };
	sigset_t s;
	int sig;

	window_ending_signals(&s);
	sig = sigtimedwait(&s, NULL, &zero); /* -1 (EAGAIN) when none is pending */
	return sig > 0 ? sig : 0;
}

int window_check_interrupted(void)
{
	int sig = window_interrupted();

	if (!sig)
		return 0;
	diag_error("interrupted by SIG%s before the measurement started", sigabbrev_np(sig));
	return 1;
}

int window_prepare(struct window *w, char **command)
{
	int e;

	window_ending_signals(&w->waitset);
	sigaddset(&w->waitset, SIGCHLD);
	sigprocmask(SIG_BLOCK, &w->waitset, &w->oldmask);
	w->signals_blocked = true;
	if (!command)
		return 0;
	if ((e = workload_start(&w->wl, command, early_blocked ? &original_mask : &w->oldmask))) {
		diag_error("cannot start '%s': %s", command[0], strerror(-e));
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
	diag_error("cannot run '%s': %s", command[0], strerror(-e));
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
	/* after window_block_signals the ending signals stay blocked: one
	 * arriving while the summary is written must not kill the process
	 * (and change its exit status) on the way out */
	if (w->signals_blocked)
		sigprocmask(SIG_SETMASK, &w->oldmask, NULL);
	w->signals_blocked = false;
}
