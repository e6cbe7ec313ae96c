/* CLOCK_MONOTONIC in ns (clock.h). */
#include "util/clock.h"

#include <time.h>

uint64_t idle_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}
