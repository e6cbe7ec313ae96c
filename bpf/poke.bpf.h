/* The poke: run once on each CPU whose state is still unknown right after
 * attaching (session/idle_loader.c, idle_session_poke), by BPF_PROG_TEST_RUN
 * with BPF_F_TEST_RUN_ON_CPU. Never attached. */
#ifndef IDLESCOPE_POKE_BPF_H
#define IDLESCOPE_POKE_BPF_H

#include "maps.bpf.h"

/* The test run reaches the CPU as a function-call IPI (or, where it polls
 * in idle, as need_resched): an idle CPU leaves idle (an exit without a
 * seen entry, before the window) and enters it again, now seen, so group
 * counters and edges know it is idle. Here, in the IPI, a CPU running a task
 * is busy: known now. On the idle task its exit and entry follow. Returns
 * 1 when the CPU was running a task. */
SEC("raw_tp")
int poke(struct bpf_raw_tracepoint_args *ctx)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct idle_cpu_slot *slot;

	(void)ctx;
	if ((__u32)bpf_get_current_pid_tgid() == 0)
		return 0; /* the idle task (pid 0) */
	slot = bpf_map_lookup_elem(&idle_slots, &cpu);
	if (slot)
		slot->known = 1;
	return 1;
}

#endif
