/* The replay programs: never attached; BPF_PROG_TEST_RUN hands them struct
 * replay_event (include/replay_event.h) and the same handlers run with the event's cpu and clock. */
#ifndef IDLESCOPE_REPLAY_BPF_H
#define IDLESCOPE_REPLAY_BPF_H

#include "maps.bpf.h"
#include "idle.bpf.h"
#include "wake.bpf.h"
#include "freq.bpf.h"
#include "sched.bpf.h"
#include "haltpoll.bpf.h"

#ifndef IS_LIVE_OBJECT
/* The idle handler as a global function: the verifier checks it once, on
 * its own, instead of once per path through replay_one's switch (inlined
 * there, the batch program passed the verifier's 1M-instruction limit on a
 * 6.18 kernel with groups on). Scalar arguments only: kernels from 5.6. */
__noinline int replay_handle_idle(__u32 cpu, __u64 now, __u32 state, __u32 facts)
{
	handle_idle(cpu, now, state, 0, facts);
	return 0;
}

/* One event through its handler, with the arguments its live wrapper would
 * pass; 0 = handled, 1 = a kind the handlers do not take. */
static __always_inline int replay_one(const struct replay_event *e)
{
	__u32 cpu = e->cpu;
	__u64 now = e->now_ns;
	char comm[16];

	switch (e->kind) {
	case RE_IDLE:
		replay_handle_idle(cpu, now, (__u32)e->idle.state, (__u32)e->idle.facts);
		return 0;
	case RE_IDLE_MISS:
		handle_idle_miss(cpu, (__u32)e->miss.state, (__u32)(e->miss.below & 1));
		return 0;
	case RE_FREQ:
		handle_cpu_frequency(cpu, now, (__u32)e->freq.khz);
		return 0;
	case RE_LOCAL_TIMER:
		handle_wake_event(cpu, now, WAKE_TIMER, e->wake.detail);
		return 0;
	case RE_RESCHED:
		handle_wake_event(cpu, now, WAKE_IPI_RESCHED, e->wake.detail);
		return 0;
	case RE_CALL:
		handle_wake_event(cpu, now, WAKE_IPI_CALL, e->wake.detail);
		return 0;
	case RE_CALL_SINGLE:
		handle_wake_event(cpu, now, WAKE_IPI_CALL_SINGLE, e->wake.detail);
		return 0;
	case RE_IRQ_WORK:
		handle_wake_event(cpu, now, WAKE_IPI_IRQ_WORK, e->wake.detail);
		return 0;
	case RE_OTHER_VECTOR:
		handle_wake_event(cpu, now, WAKE_IPI_OTHER, e->wake.detail);
		return 0;
	case RE_IRQ:
		handle_wake_event(cpu, now, WAKE_IRQ, e->wake.detail);
		return 0;
	case RE_SOFTIRQ:
		handle_wake_event(cpu, now, WAKE_SOFTIRQ, e->wake.detail);
		return 0;
	case RE_NO_IPI:
		handle_no_ipi(cpu, now, (__u32)e->wake.detail);
		return 0;
	case RE_IPI_SEND:
		handle_ipi_send((__u32)e->wake.detail, cpu);
		return 0;
	case RE_HRTIMER:
		handle_hrtimer(cpu, e->timer.fn, (__s64)e->timer.expires, (__s64)e->timer.now);
		return 0;
	case RE_SCHED_WAKEUP:
		__builtin_memcpy(comm, e->task.comm, sizeof(comm));
		handle_sched_wakeup(e->task.waker_cpu, cpu, e->task.pid, comm);
		return 0;
	case RE_TASK_READY:
		__builtin_memcpy(comm, e->task.comm, sizeof(comm));
		handle_task_ready(now, e->task.pid, e->task.tgid, comm);
		return 0;
	case RE_TASK_WAKEUP:
		handle_task_wakeup(now, e->task.pid);
		return 0;
	case RE_GOV:
		gov_sleep_length(cpu, now, (__s64)e->gov.sleep_ns);
		if (e->gov.tick_kept < 2)
			gov_tick(cpu, e->gov.tick_kept & 1);
		return 0;
	case RE_SWITCH:
		/* replayed tasks lead their own thread group */
		__builtin_memset(comm, 0, sizeof(comm));
		handle_switch(cpu, now, e->sw.prev_pid, e->sw.prev_pid, comm, e->sw.prev_runnable & 1,
			      e->sw.next_pid);
		return 0;
	case RE_HALT_POLL:
		handle_halt_poll(cpu, now, e->halt.grow & 1, (__u32)e->halt.new_ns,
				 (__u32)e->halt.old_ns);
		return 0;
	}
	return 1;
}

/* One event per test run (the replay tests): the context is the event, read
 * as the u64 words a raw_tp context allows. */
SEC("raw_tp")
int replay_idle(struct bpf_raw_tracepoint_args *ctx)
{
	union {
		__u64 w[sizeof(struct replay_event) / 8];
		struct replay_event e;
	} u;

#pragma unroll
	for (int i = 0; i < sizeof(u.w) / 8; i++)
		u.w[i] = ctx->args[i];
	return replay_one(&u.e);
}

/* Trace import: replay_batch_len events from the mmapped replay_batch map in
 * one BPF_PROG_TEST_RUN (one syscall per event would cap the rate at the
 * syscall cost). The callback runs the same handlers as replay_idle. */
__u32 replay_batch_len = 0; /* defined here, not tentatively: first in .bss in both objects */

static long replay_batch_cb(__u32 i, void *ctx)
{
	const struct replay_event *e = bpf_map_lookup_elem(&replay_batch, &i);

	if (!e)
		return 1;
	if (replay_one(e))
		(*(__u64 *)ctx)++;
	return 0;
}

SEC("raw_tp")
int replay_idle_batch(struct bpf_raw_tracepoint_args *ctx)
{
	__u64 rejected = 0;

	(void)ctx;
	bpf_loop(replay_batch_len, replay_batch_cb, &rejected, 0);
	return (int)rejected;
}

#else
/* The live object (Makefile: idlescope_live.bpf.o) keeps the entry points'
 * names and the batch length, so that its skeleton is the full object's,
 * and none of their code: a live session never loads them, and their
 * instructions and line info were a third of its heap (a replay session
 * opens the full object). */
__u32 replay_batch_len = 0;

SEC("raw_tp")
int replay_idle(struct bpf_raw_tracepoint_args *ctx)
{
	(void)ctx;
	return -1;
}

SEC("raw_tp")
int replay_idle_batch(struct bpf_raw_tracepoint_args *ctx)
{
	(void)ctx;
	return -1;
}
#endif

#endif
