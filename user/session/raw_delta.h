/* One interval of a live session as a raw capture: the counters' change
 * between two snapshots, with idle periods cut at the interval's edges, so
 * summary_build() turns it into the interval's own summary (idlescope top). */
#ifndef IDLESCOPE_RAW_DELTA_H
#define IDLESCOPE_RAW_DELTA_H

#include <stdint.h>

#include "session/snapshot.h"

/* out = cur - prev for the interval [prev_ns, now_ns], prev read at prev_ns
 * and cur at now_ns:
 * - counters (entries, time, misses, ideal, histograms, wakeup causes and
 *   details, group time) are differences; min/max are cleared (not known
 *   per interval);
 * - a period in flight at prev_ns and completed since counts only its part
 *   after prev_ns; a period still in flight at now_ns is charged to its
 *   state up to now_ns (and its enter cleared, so no edge time is added
 *   twice); the same for a group's all-idle time (BPF counts an all-idle
 *   interval that began before the session's start, cur->start_ns, from
 *   the start, and so is its part before prev_ns taken off);
 * - no CPU's or group's idle time exceeds now_ns - prev_ns: the excess a
 *   spread read can leave (a period that ended between a CPU's read and
 *   the stamp counts in the next interval) comes off its largest state;
 * - a wakeup cause still pending at now_ns is not counted (it counts in the
 *   interval where it is known).
 * Returns 0 or -ENOMEM; free out with idle_raw_free(). */
int idle_raw_delta(const struct idle_raw *prev, const struct idle_raw *cur, uint64_t prev_ns,
		   uint64_t now_ns, struct idle_raw *out);

#endif
