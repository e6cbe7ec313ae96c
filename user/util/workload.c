/* Fork/exec of the measured command with a start gate and an exec-error
 * pipe, so the whole workload runs inside the window. */
#include "util/workload.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/fdlimit.h"

static int check_exec(const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (access(path, X_OK))
		return -errno;
	return 0;
}

int workload_resolve(const char *cmd)
{
	const char *path = getenv("PATH");
	char buf[4096];
	int last = -ENOENT;

	if (!cmd || !*cmd)
		return -ENOENT;
	if (strchr(cmd, '/'))
		return check_exec(cmd);
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		const char *end = strchrnul(path, ':');
		int len = (int)(end - path), e;

		snprintf(buf, sizeof(buf), "%.*s/%s", len ? len : 1, len ? path : ".", cmd);
		e = check_exec(buf);
		if (!e)
			return 0;
		if (e != -ENOENT)
			last = e;
		path = *end ? end + 1 : end;
	}
	return last;
}

int workload_start(struct workload *w, char *const argv[], const sigset_t *child_mask)
{
	int gate[2], errp[2];

	memset(w, 0, sizeof(*w));
	if (pipe2(gate, O_CLOEXEC))
		return -errno;
	if (pipe2(errp, O_CLOEXEC)) {
		close(gate[0]);
		close(gate[1]);
		return -errno;
	}
	w->pid = fork();
	if (w->pid < 0) {
		int e = errno;

		close(gate[0]); close(gate[1]); close(errp[0]); close(errp[1]);
		return -e;
	}
	if (w->pid == 0) {
		char c;
		int e;

		close(gate[1]);
		close(errp[0]);
		sigprocmask(SIG_SETMASK, child_mask, NULL);
		fdlimit_restore();
		/* EOF on the gate: the parent has attached (or died). */
		while (read(gate[0], &c, 1) < 0 && errno == EINTR)
			;
		execvp(argv[0], argv);
		e = errno;
		if (write(errp[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(gate[0]);
	close(errp[1]);
	w->gate_fd = gate[1];
	w->error_fd = errp[0];
	w->running = true;
	return 0;
}

int workload_release(struct workload *w)
{
	ssize_t n;
	int e = 0;

	close(w->gate_fd);
	w->gate_fd = -1;
	/* Blocks until exec succeeds (CLOEXEC closes the pipe) or fails. */
	do
		n = read(w->error_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(w->error_fd);
	w->error_fd = -1;
	if (n == sizeof(e)) {
		workload_stop(w, 0);
		return -e;
	}
	return 0;
}

bool workload_poll(struct workload *w)
{
	int st;

	if (!w->running)
		return true;
	if (waitpid(w->pid, &st, WNOHANG) == w->pid) {
		w->running = false;
		w->status = st;
		return true;
	}
	return false;
}

void workload_stop(struct workload *w, int sig)
{
	int st;

	if (!w->running)
		return;
	if (sig)
		kill(w->pid, sig);
	while (waitpid(w->pid, &st, 0) < 0 && errno == EINTR)
		;
	w->running = false;
	w->status = st;
}

int workload_exit_code(const struct workload *w)
{
	if (WIFEXITED(w->status))
		return WEXITSTATUS(w->status);
	if (WIFSIGNALED(w->status))
		return 128 + WTERMSIG(w->status);
	return 1;
}
