/* BPF_PROG_TEST_RUN of the replay programs: one event as the raw_tp context
 * (tests), or a batch written into the mmapped replay_batch map (trace import). */
#include "session/replay_drive.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

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

int replay_batch_open(struct replay_batch *b, struct idle_session *s)
{
	void *p;

	memset(b, 0, sizeof(*b));
	b->len = IS_REPLAY_BATCH * sizeof(struct replay_event);
	p = mmap(NULL, b->len, PROT_READ | PROT_WRITE, MAP_SHARED,
		 bpf_map__fd(s->skel->maps.replay_batch), 0);
	if (p == MAP_FAILED)
		return -errno;
	b->sess = s;
	b->ev = p;
	return 0;
}

void replay_batch_close(struct replay_batch *b)
{
	if (b->ev)
		munmap(b->ev, b->len);
	memset(b, 0, sizeof(*b));
}

long replay_batch_run(struct replay_batch *b, const struct replay_event *ev, size_t n)
{
	struct idle_session *s = b->sess;
	int fd = bpf_program__fd(s->skel->progs.replay_idle_batch);
	long rejected = 0;

	while (n) {
		size_t k = n < IS_REPLAY_BATCH ? n : IS_REPLAY_BATCH;
		LIBBPF_OPTS(bpf_test_run_opts, opts);

		memcpy(b->ev, ev, k * sizeof(*ev));
		s->skel->bss->replay_batch_len = (uint32_t)k;
		if (bpf_prog_test_run_opts(fd, &opts))
			return -errno;
		rejected += opts.retval;
		ev += k;
		n -= k;
	}
	return rejected;
}
