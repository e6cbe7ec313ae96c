/* The clock every timestamp of idlescope is on. */
#ifndef IDLESCOPE_CLOCK_H
#define IDLESCOPE_CLOCK_H

#include <stdint.h>

/* CLOCK_MONOTONIC in ns: the clock bpf_ktime_get_ns() reads. */
uint64_t idle_now_ns(void);

#endif
