/* A measurement window shared by every command: ends at -d, when the
 * `-- COMMAND` exits, or on SIGINT/SIGTERM/SIGHUP (taken synchronously with
 * sigtimedwait, so the summary always prints), with periodic ticks. */
#ifndef IDLESCOPE_WINDOW_H
#define IDLESCOPE_WINDOW_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "util/workload.h"

/* One measurement window: how long, the `-- COMMAND` it runs, the signals
 * it waits for (live_run owns one per live command). */
struct window {
	uint64_t duration_ns; /* 0 = until the command ends or a signal */
	uint64_t interval_ns; /* 0 = no interval ticks */
	uint64_t refresh_ns;  /* 0 = no refresh ticks */
	struct workload wl;
	bool have_wl;
	bool signals_blocked;
	bool done; /* set by a tick callback to end the window */
	sigset_t waitset, oldmask;
};

/* Calls on_interval at every interval, on_refresh at every refresh tick,
 * on_wake when wake_fd (-1: none) becomes readable. A refresh tick may come
 * up to refresh_slack_ns late, riding on a wakeup the CPU has anyway, but
 * never past the next interval or the end, which stay exact. */
struct window_ticks {
	void (*on_interval)(void *ctx, uint64_t now);
	void (*on_refresh)(void *ctx, uint64_t now);
	void *ctx;
	int wake_fd;
	void (*on_wake)(void *ctx, uint64_t now);
	uint64_t refresh_slack_ns;
};

/* The timer slack of the coming wait (PR_SET_TIMERSLACK): the default one
 * when an exact deadline (an interval, the end) is the next, else up to
 * slack_ns after the refresh due at refresh, and never past exact. */
void window_timer_slack(uint64_t refresh, uint64_t exact, uint64_t slack_ns);

/* Blocks SIGINT, SIGTERM and SIGHUP for the rest of the process (a command
 * calls it first, so a signal during start-up or output cannot kill it
 * half-way); the measured command still gets the mask from before. */
void window_block_signals(void);
/* The signals that end a live command: SIGINT, SIGTERM, and SIGHUP unless
 * it was ignored on entry (nohup). */
void window_ending_signals(sigset_t *s);
/* A pending ending signal, consumed (a signal before the window opened), or 0. */
int window_interrupted(void);
/* "idlescope: interrupted by SIGxxx before the measurement started" when a
 * signal is pending; returns 1 then (the caller exits EXIT_RUNTIME), else 0. */
int window_check_interrupted(void);

/* Blocks the ending signals and, with command, starts it held at a gate.
 * Returns 0 or an exit code after printing the error. */
int window_prepare(struct window *w, char **command);
/* Lets the command run. Returns 0 or an exit code after printing the error. */
int window_release(struct window *w, char **command);
/* Waits for the end; returns the signal that ended the window, or 0. */
int window_wait(struct window *w, uint64_t start, const struct window_ticks *t);
/* Stops the command (if a signal ended the window) and returns the exit
 * code: the command's, or 0. */
int window_finish(struct window *w, int sig);
/* Cleanup on error paths: kills a command still running, restores signals. */
void window_cleanup(struct window *w);

#endif
