/* `idlescope info --costs`, its second half: does the observer wake what it
 * watches? Each live command (record, hist, serve, top) runs for a window on
 * this machine, each beside an un-observed window of the same length, and
 * the idle periods per second per CPU are counted from the kernel's own
 * counters: the cpuidle driver's usage, or without a driver each CPU's
 * /proc/interrupts count. The command's own wakeups (the voluntary context
 * switches of its threads) are counted too: exact, where the machine-wide
 * count carries every other process's noise. A command that ticks (top's
 * -i 1) is judged beyond what a minimal 1 Hz ticker (a child of ours that
 * sleeps a second and writes a line, no BPF) adds in the same repetition:
 * a wake costs more than itself (the kernel keeps the tick on after it).
 * tests/bench/wakeups.sh is the longer measurement of the same (make
 * bench-wakeups). */
#ifndef IDLESCOPE_INFO_WAKEUPS_H
#define IDLESCOPE_INFO_WAKEUPS_H

#include <stdbool.h>
#include <stddef.h>

struct topology;

#define WAKE_COST_CMDS 5
#define WAKE_COST_REPS 2
#define WAKE_COST_WINDOW_NS 3000000000ULL
/* the command's start-up, and its teardown, not counted */
#define WAKE_COST_SETTLE_NS 1500000000ULL

struct wake_cost {
	const char *command;   /* as a user types it, "record -d N" */
	bool reference;        /* the 1 Hz ticker, not idlescope: what a tick costs */
	double ticks_per_s;    /* its own ticks (top -i 1: 1), allowed */
	double own_per_s;      /* its threads' voluntary switches per second (median) */
	double added, added_min, added_max; /* idle periods /s/CPU observed - un-observed */
	/* what its ticks cost (ticks x the reference's added in the same
	 * repetition), and added minus that (medians over the repetitions);
	 * the reference's own beyond is NAN */
	double tick_cost, beyond;
};

struct wake_cost_report {
	const char *oracle;    /* "cpuidle usage" or "/proc/interrupts" */
	int nr_cpus;           /* the CPUs counted (online) */
	int reps;
	double window_s, settle_s;
	double base_per_s_cpu; /* un-observed, median over every window */
	int nr;
	struct wake_cost c[WAKE_COST_CMDS];
};

/* Runs each command from self (this binary, /proc/self/exe) and measures.
 * Returns 0, or -1 with a one-line reason in err. */
int wake_costs_measure(const struct topology *t, struct wake_cost_report *rep, char *err,
		       size_t errlen);

#endif
