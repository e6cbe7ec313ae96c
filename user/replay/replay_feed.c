/* Batches of IS_REPLAY_BATCH events into the mmapped replay map, one
 * BPF_PROG_TEST_RUN each (session/replay_drive.c). */
#include "replay/replay_feed.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "session/replay_drive.h"
#include "util/clock.h"

int replay_feed(struct idle_session *s, const struct trace_data *d, struct replay_feed *out)
{
	struct replay_event *batch = malloc(sizeof(*batch) * IS_REPLAY_BATCH);
	struct replay_batch map;
	uint64_t t0;
	size_t i = 0;
	int err;

	memset(out, 0, sizeof(*out));
	if (!batch)
		return -ENOMEM;
	if ((err = replay_batch_open(&map, s))) {
		free(batch);
		return err;
	}
	idle_session_start(s, REPLAY_BASE_NS);
	t0 = idle_now_ns();
	while (i < d->nr_ev) {
		size_t n = 0;
		long rej;

		for (; i < d->nr_ev && n < IS_REPLAY_BATCH; i++, n++) {
			const struct replay_event *e = &d->ev[i].re;

			out->have_miss |= e->kind == RE_IDLE_MISS;
			out->have_freq |= e->kind == RE_FREQ;
			batch[n] = *e;
			/* a hrtimer's own clock (timer.now, expires) stays as it is */
			batch[n].now_ns = e->now_ns - d->min_ts + REPLAY_BASE_NS;
		}
		rej = replay_batch_run(&map, batch, n);
		if (rej < 0) {
			replay_batch_close(&map);
			free(batch);
			return (int)rej;
		}
		out->rejected += (uint64_t)rej;
		out->replayed += n;
	}
	out->feed_ns = idle_now_ns() - t0;
	idle_session_stop(s, replay_stop_ns(d));
	replay_batch_close(&map);
	free(batch);
	return 0;
}
