/* What observing costs, as `serve` exports it about itself (bpftop and
 * ebpf_exporter style): each BPF program's runs and run time (counted by
 * the kernel while kernel.bpf_stats_enabled is on), the maps' memory, and
 * the process's CPU time and resident memory. */
#ifndef IDLESCOPE_SELF_COST_H
#define IDLESCOPE_SELF_COST_H

#include <stdbool.h>
#include <stdint.h>

struct idle_session;

#define SELF_MAX_PROGS 64

struct self_cost {
	bool stats_enabled; /* kernel.bpf_stats_enabled: the run counts advance */
	int nr_progs;
	struct {
		char name[64];
		uint64_t runs, run_ns;
	} progs[SELF_MAX_PROGS]; /* the loaded programs, attached or not */
	uint64_t map_bytes;      /* memlock of the session's maps (fdinfo) */
	uint64_t cpu_ns;         /* user + system time of this process */
	uint64_t rss_bytes;      /* resident set of this process (VmRSS) */
	/* The same, shared pages divided among their mappers (Pss) and pages
	 * no other process maps (Private_Clean + Private_Dirty), from
	 * /proc/self/smaps_rollup (/proc/self/smaps before 4.14). VmRSS counts
	 * libc's shared pages whole, which every process maps: Pss is what
	 * this process adds. */
	uint64_t pss_bytes, private_bytes;
};

/* Reads it now. Fields that cannot be read stay 0. */
void self_cost_read(struct idle_session *s, struct self_cost *c);

#endif
