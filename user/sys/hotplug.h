/* CPU hotplug during a window: which CPUs were offline, for how long and how
 * often, from polls of the kernel's online mask (the accounting is pure so it
 * can be tested without hotplug). A change is placed halfway between the poll
 * that last saw the old state and the one that saw the new one, so each edge
 * is within half a poll interval; a gap shorter than the interval between two
 * polls can be missed entirely. */
#ifndef IDLESCOPE_HOTPLUG_H
#define IDLESCOPE_HOTPLUG_H

#include <stdbool.h>
#include <stdint.h>

#include "util/cpulist.h"

struct hotplug_cpu {
	uint64_t offline_since; /* 0: online at the last poll */
	uint64_t offline_ns;    /* closed gaps inside the window */
	uint32_t downs, ups;    /* transitions seen */
	bool offline_at_start;
};

struct hotplug {
	int nr_cpus;
	bool ok;         /* the online mask was readable at the start */
	uint64_t last_ns; /* time of the last poll */
	struct hotplug_cpu *cpu;
};

/* Starts tracking at start with the online mask then. Returns 0 or -1 (ENOMEM). */
int hotplug_begin(struct hotplug *h, int nr_cpus, uint64_t start, const struct cpulist *online);
/* A poll at now that saw online. */
void hotplug_observe(struct hotplug *h, uint64_t now, const struct cpulist *online);
/* Offline time of cpu in [start, stop], a gap still open counted up to stop. */
uint64_t hotplug_offline_ns(const struct hotplug *h, int cpu, uint64_t stop);
/* Offline gaps (started inside the window or open at its start). */
uint32_t hotplug_periods(const struct hotplug *h, int cpu);
/* Transitions seen: offline and online each count one. */
uint32_t hotplug_events(const struct hotplug *h, int cpu);
void hotplug_free(struct hotplug *h);

/* /sys/devices/system/cpu/online. Returns 0 or -1. */
int hotplug_read_online(struct cpulist *out);
/* Reads the mask and observes it (nothing when tracking failed to start). */
void hotplug_poll(struct hotplug *h, uint64_t now);

#endif
