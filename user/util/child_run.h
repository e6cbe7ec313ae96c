/* One child run for the commands that measure through `idlescope record`
 * (ab, advise): one signal policy while it runs and one way to read how it
 * ended (docs/idlescope.1, EXIT STATUS). */
#ifndef IDLESCOPE_CHILD_RUN_H
#define IDLESCOPE_CHILD_RUN_H

#include <signal.h>

/* The signals that end a run: SIGINT, SIGTERM, and SIGHUP unless it is
 * ignored (nohup): under nohup a hangup ends neither idlescope nor its
 * child. (Linux never discards a blocked signal, ignored or not.) */
void ending_signals(sigset_t *s);

/* How a child run ended. */
struct child_status {
	int code;      /* the exit code to go on with: the child's own exit
			* status, or 1 (EXIT_RUNTIME) when a signal killed it */
	int killed_by; /* the signal that killed it (said on stderr), or 0 */
	int forwarded; /* the first ending signal passed on to it, or 0 */
};

/* Runs path with argv (execv) and waits for it. The ending signals
 * (SIGINT, SIGTERM, and SIGHUP unless ignored on entry, as under nohup)
 * are blocked meanwhile and each one that arrives is sent on to the child,
 * the same signal, which ends its window and prints its summary; the
 * child starts with the signal mask from before. A child killed by a
 * signal gets one line, "idlescope: NAME was killed by SIGxxx", and code 1.
 * Returns 0, or -1 with errno when it could not be started. */
int child_run(const char *name, const char *path, char *const argv[], struct child_status *st);

#endif
