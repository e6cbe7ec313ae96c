/* The replay event vocabulary: one kind per traced event, emitted by the trace
 * parser and the replay tests, fed through BPF_PROG_TEST_RUN (bpf/replay.bpf.h). */
#ifndef IDLESCOPE_REPLAY_EVENT_H
#define IDLESCOPE_REPLAY_EVENT_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* What happened, and which fields of struct replay_event say more. Every kind
 * has kind, cpu and now_ns; cpu is the CPU the event happened on unless noted. */
enum replay_kind {
	/* power */
	RE_IDLE = 1,      /* power:cpu_idle: idle.state entered, IS_PWR_EVENT_EXIT = exit */
	RE_IDLE_MISS,     /* power:cpu_idle_miss: miss.state, miss.below (1 below, 0 above) */
	RE_FREQ,          /* power:cpu_frequency: freq.khz */
	/* what may have ended an idle period, on the woken CPU: wake.detail */
	RE_LOCAL_TIMER,   /* x86 local timer vector, arm64 timer broadcast IPI */
	RE_RESCHED,       /* reschedule IPI */
	RE_CALL,          /* function-call IPI */
	RE_CALL_SINGLE,   /* single-target function-call IPI (ttwu wakelist) */
	RE_IRQ_WORK,      /* irq_work IPI */
	RE_OTHER_VECTOR,  /* x86 platform and thermal vectors, other arm64 IPIs */
	RE_IRQ,           /* device IRQ: wake.detail = irq, wake.name from the trace */
	RE_SOFTIRQ,       /* wake.detail = softirq vector */
	RE_NO_IPI,        /* polling CPU told to reschedule: cpu = target, wake.detail = waker */
	RE_IPI_SEND,      /* ipi_send_cpu: cpu = target, wake.detail = sender */
	/* timers (timer.*) */
	RE_HRTIMER_START, /* hrtimer_start: timer.hrtimer, timer.expires; only for the
			   * hrtimer matching in userspace, never fed to BPF */
	RE_HRTIMER,       /* hrtimer_expire_entry: timer.fn, timer.expires and timer.now on
			   * the hrtimer clock; a trace gives timer.hrtimer and timer.now,
			   * the matching adds expires from that timer's last start */
	/* scheduler (task.*, sw.*) */
	RE_SCHED_WAKEUP,  /* sched_wakeup: cpu = target; task.pid, task.comm, task.waker_cpu */
	RE_TASK_READY,    /* hist: a task became runnable: task.pid, task.tgid, task.comm */
	RE_TASK_WAKEUP,   /* hist wakeup-latency: sched_wakeup of task.pid */
	RE_SWITCH,        /* hist: sw.prev_pid (also its tgid), sw.next_pid, sw.prev_runnable */
	/* the governor's inputs (bpf/gov.bpf.h): gov.sleep_ns as
	 * tick_nohz_get_sleep_length() returned it, gov.tick_kept the tick
	 * decision that followed (1 retained, 0 stopped, 2 none seen) */
	RE_GOV,
	/* guest halt-polling */
	RE_HALT_POLL,     /* power:guest_halt_poll_ns: halt.grow (1 grow, 0 shrink),
			   * halt.new_ns, halt.old_ns: the poll limit of cpu */
	RE_NR_KINDS
};

/* What the kernel's state said at an idle exit, which a live session reads
 * then and a replay event brings with it (bpf/wake.bpf.h noipi_at_exit). */
#define RE_EXIT_NOIPI 0x1 /* a state whose wakers need no IPI, no interrupt
			   * seen in the period, work on the run queue */

/* One event. Its size is a multiple of 8 bytes (a raw_tp test-run context is
 * read as u64 words) and at most 12 words. */
struct replay_event {
	__u32 kind;   /* enum replay_kind */
	__u32 cpu;
	__u64 now_ns; /* the replay clock (a trace's own timestamps until the feeding) */
	union {
		struct {
			__u64 state;
			__u64 facts; /* an exit's RE_EXIT_* bits (a trace has none: 0) */
		} idle;
		struct {
			__u64 state;
			__u64 below;
		} miss;
		struct {
			__u64 khz;
		} freq;
		struct {
			__u64 detail;
			char name[16];
		} wake;
		struct {
			__u64 fn;      /* function: an address, or 1 + a trace's name index */
			__u64 hrtimer; /* the timer (a trace's hashed pointer) */
			__u64 expires;
			__u64 now;
		} timer;
		struct {
			__u32 pid;
			__u32 tgid;
			__u32 waker_cpu;
			__u32 pad;
			char comm[16];
		} task;
		struct {
			__u64 grow;
			__u64 new_ns;
			__u64 old_ns;
		} halt;
		struct {
			__u32 prev_pid;
			__u32 next_pid;
			__u64 prev_runnable;
		} sw;
		struct {
			__u64 sleep_ns;
			__u64 tick_kept;
		} gov;
	};
};

/* Events per replay_idle_batch run (entries of the replay_batch map). */
#define IS_REPLAY_BATCH 4096

#endif
