/* `idlescope info --costs`: what each optional part (session/parts.h) costs
 * on this kernel, measured now: the same live sessions record runs, each
 * configuration over the ping-pong load (cmd/pingpong_load.h), interleaved, with
 * the BPF run time from the kernel's own statistics (BPF_ENABLE_STATS). */
#ifndef IDLESCOPE_COSTS_H
#define IDLESCOPE_COSTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct topology;

#define COST_MAX_CONFIGS 12
#define COST_RUNS 3
/* Round trips per run: what the un-observed load does in COST_RUN_NS. */
#define COST_RUN_NS 500000000ULL

/* One configuration: none (not observed), the default, the default without
 * one part, or with --packing. Figures are medians over the runs. */
struct cost_config {
	char name[24];           /* "none", "default", "without groups", "with packing" */
	const char *part;        /* the part it isolates, or NULL */
	unsigned int without;    /* enum session_part bits */
	bool observed, packing;
	double rounds_per_s;
	double rounds_min, rounds_max; /* the spread over the runs */
	double bpf_ns_per_round; /* every program's run time per round trip */
	double idle_ns_per_event; /* the cpu_idle program's */
	double idle_events_per_round;
};

struct cost_report {
	int cpu_a, cpu_b;
	long rounds;
	int runs;
	int nr;
	struct cost_config c[COST_MAX_CONFIGS];
};

/* Measures every configuration this machine has the parts for. Needs two
 * online CPUs and the BPF privileges record needs. Returns 0, or -1 with a
 * one-line reason in err. */
int costs_measure(const struct topology *t, struct cost_report *rep, char *err, size_t errlen);
/* The configuration without part (or with it, for packing), or NULL. */
const struct cost_config *costs_find(const struct cost_report *rep, const char *name);

#endif
