/* RLIMIT_NOFILE for the BPF load and for the measured command. */
#include "util/fdlimit.h"

#include <stdbool.h>
#include <sys/resource.h>

static bool raised;
static struct rlimit original;

void fdlimit_raise(void)
{
	struct rlimit rl;

	if (raised || getrlimit(RLIMIT_NOFILE, &original))
		return;
	raised = true;
	if (original.rlim_cur < original.rlim_max) {
		rl = original;
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

void fdlimit_restore(void)
{
	/* setrlimit only: safe between fork and exec */
	if (raised)
		setrlimit(RLIMIT_NOFILE, &original);
}
