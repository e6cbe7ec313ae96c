/* A fixed cross-CPU load: two processes, each pinned to its CPU, pass one
 * byte back and forth over two pipes. Each round trip wakes each side once
 * and, on an otherwise quiet machine, idles each CPU once: the events every
 * idlescope part hooks (idle entry/exit, wakeups, IPIs). */
#ifndef IDLESCOPE_PINGPONG_H
#define IDLESCOPE_PINGPONG_H

#include <stdint.h>

/* Runs `rounds` round trips between cpu_a and cpu_b; their wall time in
 * *ns. Returns 0, or -1 with errno (fork, pipe, affinity). */
int pingpong_run(int cpu_a, int cpu_b, long rounds, uint64_t *ns);

#endif
