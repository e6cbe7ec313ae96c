/* The measurement window loop and the `-- COMMAND` lifecycle around it. */
#include "session/window.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>

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

void window_timer_slack(uint64_t refresh, uint64_t exact, uint64_t slack_ns)
{
	static long initial = -1, current = -1;
	unsigned long want;

	if (initial < 0)
		current = initial = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
	if (initial < 0)
		return;
	want = (unsigned long)initial;
	if (refresh < exact && slack_ns) {
		uint64_t room = exact - refresh;

		want = room < slack_ns ? (unsigned long)room : (unsigned long)slack_ns;
		if (want < (unsigned long)initial)
			want = (unsigned long)initial;
	}
	if ((long)want != current && !prctl(PR_SET_TIMERSLACK, want, 0, 0, 0))
		current = (long)want;
}

/* One wait until wake (a CLOCK_MONOTONIC time): the signal taken, 0 on the
 * timeout or when wake_fd became readable (*woken). */
static int wait_once(struct window *w, int sfd, int wake_fd, uint64_t now, uint64_t wake,
		     bool *woken)
{
	struct timespec ts = { (time_t)((wake - now) / 1000000000ULL),
			       (long)((wake - now) % 1000000000ULL) };
	struct pollfd fds[2] = { { .fd = sfd, .events = POLLIN }, { .fd = wake_fd, .events = POLLIN } };
	struct signalfd_siginfo si;

	*woken = false;
	if (sfd < 0)
		return sigtimedwait(&w->waitset, NULL, &ts);
	if (ppoll(fds, wake_fd >= 0 ? 2 : 1, &ts, NULL) <= 0)
		return 0;
	*woken = fds[1].revents != 0;
	if (fds[0].revents && read(sfd, &si, sizeof(si)) == sizeof(si))
		return (int)si.ssi_signo;
	return 0;
}

int window_wait(struct window *w, uint64_t start, const struct window_ticks *t)
{
	uint64_t end = w->duration_ns ? start + w->duration_ns : UINT64_MAX;
	uint64_t next_tick = w->interval_ns ? start + w->interval_ns : UINT64_MAX;
	uint64_t next_refresh = w->refresh_ns ? start + w->refresh_ns : UINT64_MAX;
	int wake_fd = t && t->on_wake ? t->wake_fd : -1;
	/* the signals through a descriptor only when there is another to wait on */
	int sfd = wake_fd >= 0 ? signalfd(-1, &w->waitset, SFD_CLOEXEC) : -1;
	int ret = 0;

	for (;;) {
		uint64_t now = idle_now_ns(), exact = end;
		bool woken;
		int sig;

		if (now >= end)
			break;
		if (now >= next_tick) {
			if (t && t->on_interval)
				t->on_interval(t->ctx, now);
			if (w->done)
				break;
			next_tick += w->interval_ns;
			continue;
		}
		if (now >= next_refresh) {
			if (t && t->on_refresh)
				t->on_refresh(t->ctx, now);
			next_refresh = now + w->refresh_ns;
		}
		if (next_tick < exact)
			exact = next_tick;
		window_timer_slack(next_refresh, exact, t ? t->refresh_slack_ns : 0);
		sig = wait_once(w, sfd, sfd >= 0 ? wake_fd : -1, now,
				next_refresh < exact ? next_refresh : exact, &woken);
		if (woken)
			t->on_wake(t->ctx, idle_now_ns());
		if (sig == SIGCHLD) {
			if (w->have_wl && workload_poll(&w->wl))
				break;
		} else if (sig > 0) {
			ret = sig;
			break;
		}
	}
	window_timer_slack(0, 0, 0); /* the default again */
	if (sfd >= 0)
		close(sfd);
	return ret;
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
