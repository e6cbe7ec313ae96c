/* Map value layout of guest halt-polling (bpf/haltpoll.bpf.h), shared with the
 * loader and snapshot (user/session/). __u* only. */
#ifndef IDLESCOPE_HALTPOLL_STATS_H
#define IDLESCOPE_HALTPOLL_STATS_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* The haltpoll driver's polling state: cpuidle_poll_state_init() puts POLL
 * at index 0 (drivers/cpuidle/cpuidle-haltpoll.c) */
#define IS_HALTPOLL_POLL_STATE 0

/* Per CPU, one cache line, written only by that CPU: at the idle entry
 * after a counted POLL period, and at each power:guest_halt_poll_ns. */
struct haltpoll_cpu {
	/* how the CPU's POLL periods ended, told by its next idle entry
	 * (bpf/haltpoll.bpf.h): POLL again = need_resched ended it (woken);
	 * the halt state = poll_idle() hit its time limit (timed out) */
	__u64 woken;
	__u64 timed_out;
	/* power:guest_halt_poll_ns inside the window, by direction */
	__u64 grow;
	__u64 shrink;
	/* the per-CPU poll limit (dev->poll_limit_ns): after the last event,
	 * before the first one, and the least and most it was over the window
	 * (both counting the first event's old value); valid when grow + shrink */
	__u64 limit_ns;
	__u64 limit_first_ns;
	__u64 limit_min_ns;
	__u64 limit_max_ns;
} __attribute__((aligned(64)));

#endif
