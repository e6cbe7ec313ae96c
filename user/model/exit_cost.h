/* Exit cost: the time CPUs spend getting out of idle, estimated twice (from
 * the declared exit latencies, from the measured timer lateness), and the
 * time of early periods, shorter than their state's target residency
 * (docs/metrics.md#exit-cost). */
#ifndef IDLESCOPE_EXIT_COST_H
#define IDLESCOPE_EXIT_COST_H

#include <stdbool.h>
#include <stdint.h>

struct exit_cost {
	/* entries x exit_latency; known where every state with entries has a
	 * declared exit latency (a driver's table) */
	bool declared_known;
	uint64_t declared_ns;
	/* entries x mean timer lateness, over the states with lateness
	 * samples (measured_periods of the entries); unknown without any */
	bool measured_known;
	uint64_t measured_ns;
	uint64_t measured_periods;
	uint64_t lateness_samples; /* the timer-ended periods measured */
	/* periods shorter than the state's target residency, and their time;
	 * known where the state has a target residency */
	bool early_known;
	uint64_t early, early_ns;
};

/* What a state's periods give: its entries and early periods, its table
 * (known: the driver declares exit latency and target residency), and the
 * timer lateness of the periods a timer ended. */
struct exit_cost_input {
	uint64_t entries, early, early_ns;
	bool table;
	uint64_t exit_latency_ns;
	uint64_t lateness_samples, lateness_sum_ns;
};

/* One state's exit cost. */
struct exit_cost exit_cost_of(const struct exit_cost_input *in);

/* Adds s into t (a CPU's states, or CPUs into the totals). Start t with
 * exit_cost_none(). */
void exit_cost_add(struct exit_cost *t, const struct exit_cost *s);

/* The sum over nothing: known and zero, measured unknown. */
struct exit_cost exit_cost_none(void);

/* part / window, 0 for an empty window. */
double exit_cost_share(uint64_t part_ns, uint64_t window_ns);

#endif
