/* Loader of the floor observer (floor.bpf.c): attach, wait for SIGINT or
 * SIGTERM, detach. Prints "attached" on stderr when ready. */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "floor.skel.h"

static volatile sig_atomic_t done;

static void on_signal(int sig)
{
	(void)sig;
	done = 1;
}

int main(void)
{
	struct floor_bpf *skel = floor_bpf__open_and_load();

	if (!skel || floor_bpf__attach(skel)) {
		fprintf(stderr, "floor: cannot load/attach (root?)\n");
		floor_bpf__destroy(skel);
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	fprintf(stderr, "attached\n");
	while (!done)
		pause();
	floor_bpf__destroy(skel);
	return 0;
}
