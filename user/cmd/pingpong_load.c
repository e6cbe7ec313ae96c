/* The ping-pong load of `info --costs` (pingpong.h). */
#include "cmd/pingpong_load.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/clock.h"

/* One side: pinned, then `rounds` times read one byte and write one back
 * (the first side writes first). Exits 0, or 1 on any failure. */
static void side(int cpu, int in, int out, long rounds, int first)
{
	cpu_set_t set;
	char b = 0;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		_exit(1);
	for (long i = 0; i < rounds; i++) {
		if (first && write(out, &b, 1) != 1)
			_exit(1);
		if (read(in, &b, 1) != 1)
			_exit(1);
		if (!first && write(out, &b, 1) != 1)
			_exit(1);
	}
	_exit(0);
}

int pingpong_run(int cpu_a, int cpu_b, long rounds, uint64_t *ns)
{
	int ab[2], ba[2], st, ok = 1, e = 0;
	pid_t pid[2];
	uint64_t t0;

	if (pipe2(ab, O_CLOEXEC))
		return -1;
	if (pipe2(ba, O_CLOEXEC)) {
		e = errno;
		close(ab[0]);
		close(ab[1]);
		errno = e;
		return -1;
	}
	t0 = idle_now_ns();
	pid[0] = fork();
	if (pid[0] == 0)
		side(cpu_a, ba[0], ab[1], rounds, 1);
	pid[1] = pid[0] < 0 ? -1 : fork();
	if (pid[1] == 0)
		side(cpu_b, ab[0], ba[1], rounds, 0);
	if (pid[0] < 0 || pid[1] < 0)
		e = errno;
	close(ab[0]);
	close(ab[1]);
	close(ba[0]);
	close(ba[1]);
	for (int i = 0; i < 2; i++) {
		if (pid[i] < 0)
			continue;
		if (e)
			kill(pid[i], SIGKILL);
		pid_t r;

		while ((r = waitpid(pid[i], &st, 0)) < 0 && errno == EINTR)
			;
		ok &= r == pid[i] && WIFEXITED(st) && WEXITSTATUS(st) == 0;
	}
	*ns = idle_now_ns() - t0;
	if (e || !ok) {
		errno = e ? e : EINVAL;
		return -1;
	}
	return 0;
}
