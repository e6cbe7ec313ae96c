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

/* Feeds n events through replay_idle_batch, IS_REPLAY_BATCH per test run.
 * Returns how many the program did not handle (unknown kinds), or -errno. */
long idle_session_replay_batch(struct idle_session *s, const struct replay_event *ev, size_t n);

#endif
