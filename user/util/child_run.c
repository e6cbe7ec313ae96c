/* A child run with the ending signals forwarded (child_run.h). */
#include "util/child_run.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/diag.h"

void ending_signals(sigset_t *s)
{
	struct sigaction old;

	sigemptyset(s);
	sigaddset(s, SIGINT);
	sigaddset(s, SIGTERM);
	if (sigaction(SIGHUP, NULL, &old) || old.sa_handler != SIG_IGN)
		sigaddset(s, SIGHUP);
}

int child_run(const char *name, const char *path, char *const argv[], struct child_status *st)
{
	sigset_t wait_set, old;
	int status = 0, e;
	pid_t pid;

	memset(st, 0, sizeof(*st));
	ending_signals(&wait_set);
	sigaddset(&wait_set, SIGCHLD);
	/* taken synchronously below: none is lost between fork and wait */
	sigprocmask(SIG_BLOCK, &wait_set, &old);
	pid = fork();
	if (pid == 0) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		execv(path, argv);
		_exit(126);
	}
	if (pid < 0) {
		e = errno;
		sigprocmask(SIG_SETMASK, &old, NULL);
		errno = e;
		return -1;
	}
	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);
		int sig;

		if (r == pid)
			break;
		if (r < 0 && errno != EINTR) {
			e = errno;
			sigprocmask(SIG_SETMASK, &old, NULL);
			errno = e;
			return -1;
		}
		sig = sigwaitinfo(&wait_set, NULL);
		if (sig > 0 && sig != SIGCHLD) {
			/* Ctrl-C reaches the child too (one process group): a
			 * second one while it writes its summary is ignored */
			if (!st->forwarded)
				st->forwarded = sig;
			kill(pid, sig);
		}
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (WIFSIGNALED(status)) {
		st->killed_by = WTERMSIG(status);
		st->code = EXIT_RUNTIME;
		diag_error("%s was killed by SIG%s", name, sigabbrev_np(st->killed_by));
	} else {
		st->code = WEXITSTATUS(status);
	}
	return 0;
}
