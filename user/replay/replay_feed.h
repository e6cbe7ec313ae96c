/* Trace import's feeding: parsed, sorted and timer-matched events rebased onto
 * the replay clock and run through the BPF handlers in batches. */
#ifndef IDLESCOPE_REPLAY_FEED_H
#define IDLESCOPE_REPLAY_FEED_H

#include <stdbool.h>
#include <stdint.h>

#include "session/idle_loader.h"
#include "replay/trace_parse.h"

/* Replayed timestamps start here: 0 means "not idle" in the BPF slots. */
#define REPLAY_BASE_NS 1000000ULL

struct replay_feed {
	uint64_t replayed; /* events fed */
	uint64_t rejected; /* of them, kinds the program did not take */
	uint64_t feed_ns;  /* wall time of the feeding */
	bool have_miss;    /* the trace has power:cpu_idle_miss events */
	bool have_freq;    /* and power:cpu_frequency events */
};

/* The replay window: the trace's span, from REPLAY_BASE_NS. */
static inline uint64_t replay_stop_ns(const struct trace_data *d)
{
	return d->max_ts - d->min_ts + REPLAY_BASE_NS;
}

/* Starts the session's window, feeds every event of d (after
 * timer_match_events: no RE_HRTIMER_START left), stops it at the end of the
 * trace. Returns 0 or -errno. */
int replay_feed(struct idle_session *s, const struct trace_data *d, struct replay_feed *out);

#endif
