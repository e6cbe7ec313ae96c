/* BPF_PROG_TEST_RUN of the replay programs: one event as the raw_tp context
 * (tests), or a batch written into the mmapped replay_batch map (trace import). */
#include "session/replay_drive.h"

#include <errno.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "idlescope.skel.h"

int idle_session_replay(struct idle_session *s, const struct replay_event *ev)
{
	struct replay_event copy = *ev;
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = &copy, .ctx_size_in = sizeof(copy));
	int err;

	err = bpf_prog_test_run_opts(bpf_program__fd(s->skel->progs.replay_idle), &opts);
	if (err)
		return -errno;
	return (int)opts.retval;
}

long idle_session_replay_batch(struct idle_session *s, const struct replay_event *ev, size_t n)
{
	int fd = bpf_program__fd(s->skel->progs.replay_idle_batch);
	long rejected = 0;

	while (n) {
		size_t k = n < IS_REPLAY_BATCH ? n : IS_REPLAY_BATCH;
		LIBBPF_OPTS(bpf_test_run_opts, opts);

		memcpy(s->batch, ev, k * sizeof(*ev));
		s->skel->bss->replay_batch_len = (uint32_t)k;
		if (bpf_prog_test_run_opts(fd, &opts))
			return -errno;
		rejected += opts.retval;
		ev += k;
		n -= k;
	}
	return rejected;
}
