/* `-- COMMAND` support: start a workload held at a gate until the BPF
 * programs are attached, then release it; report exec failures. */
#ifndef IDLESCOPE_WORKLOAD_H
#define IDLESCOPE_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct workload {
	pid_t pid;
	int gate_fd;  /* write end: closing it lets the child exec */
	int error_fd; /* read end: the child writes errno if exec fails */
	bool running;
	int status;   /* wait status once it exited */
};

/* Checks that argv[0] can be executed (PATH search like execvp). Returns 0
 * or -errno. */
int workload_resolve(const char *cmd);
/* Forks; the child waits at the gate with sigmask restored. 0 or -errno. */
int workload_start(struct workload *w, char *const argv[], const sigset_t *child_mask);
/* Opens the gate. Returns 0, or -errno when the exec failed. */
int workload_release(struct workload *w);
/* Reaps the child if it exited; returns true when it has. */
bool workload_poll(struct workload *w);
/* Sends sig if still running and waits for it. */
void workload_stop(struct workload *w, int sig);
/* The shell-style exit code of the workload: status, or 128 + signal. */
int workload_exit_code(const struct workload *w);

#endif
