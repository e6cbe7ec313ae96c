/* Drives the never-attached replay programs (bpf/replay.bpf.h) of a session
 * opened with session_opts.replay: one event, or batches through the mmapped map. */
#ifndef IDLESCOPE_REPLAY_DRIVE_H
#define IDLESCOPE_REPLAY_DRIVE_H

#include <stddef.h>

#include "replay_event.h"
#include "session/idle_loader.h"

/* Feeds one replay event through BPF_PROG_TEST_RUN. Returns the program's
 * return value (0 = handled) or -errno. */
int idle_session_replay(struct idle_session *s, const struct replay_event *ev);

/* A replay session's replay_batch map, mmapped: a batch of events is
 * written there for one run of replay_idle_batch. */
struct replay_batch {
	struct idle_session *sess;
	struct replay_event *ev; /* IS_REPLAY_BATCH events: the map's memory */
	size_t len;              /* the mapping's bytes */
};

/* Maps s's replay_batch. Returns 0 or -errno. */
int replay_batch_open(struct replay_batch *b, struct idle_session *s);
/* Feeds n events through replay_idle_batch, IS_REPLAY_BATCH per test run.
 * Returns how many the program did not handle (unknown kinds), or -errno. */
long replay_batch_run(struct replay_batch *b, const struct replay_event *ev, size_t n);
void replay_batch_close(struct replay_batch *b);

#endif
