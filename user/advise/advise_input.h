/* What the advisor reads from an idlescope/1 summary: per state table
 * (CPUs with the same cpuidle states, exit latencies and targets), each
 * state's residency histogram and timer lateness, summed over those CPUs. */
#ifndef IDLESCOPE_ADVISE_INPUT_H
#define IDLESCOPE_ADVISE_INPUT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "advise/advise.h"
#include "util/cpulist.h"

struct adv_state_in {
	int index;
	char name[64];
	bool disabled, poll;
	uint64_t exit_ns, target_ns; /* declared (sysfs) */
	uint64_t entries, time_ns;
	uint64_t above, below;       /* the measured counters */
	uint64_t below_qos;          /* of below: forced by PM QoS */
	/* the chosen x ideal matrix's row: ideal[k] = periods in this state
	 * whose ideal state was k (0 without a table) */
	uint64_t ideal[ADV_MAX_STATES];
	int nr_bins;
	struct hist_bin *bins;        /* residency histogram */
	uint64_t lat_count;          /* timer-ended periods with a lateness */
	uint64_t lat_min_ns, lat_max_ns; /* their smallest and largest lateness */
	bool lat_range_unknown;      /* a CPU's min/max missing: the buckets' bounds */
	int nr_lat_bins;
	struct hist_bin *lat_bins;    /* their timer lateness histogram */
};

struct adv_table_in {
	struct cpulist cpus;
	int first_cpu, package;      /* package of the first CPU, -1 unknown */
	int nr_states;
	struct adv_state_in st[ADV_MAX_STATES];
};

#define ADV_MAX_TABLES 32

struct adv_input {
	int nr_tables;
	struct adv_table_in tables[ADV_MAX_TABLES];
	int no_driver_cpus;          /* CPUs without a cpuidle driver: skipped */
	int nr_cpus;                 /* CPUs taken from the file */
	uint64_t duration_ns;
	char kernel[65], driver[64], governor[64];
	bool have_wakeups;           /* timer lateness was recorded */
};

/* Fills in from doc, for the CPUs in sel (NULL: all). Returns 0, or -1 with
 * a reason ("cpus[1].states[0].hist[2]: ...") in err. */
int adv_input_load(const json_t *doc, const struct cpulist *sel, struct adv_input *in, char *err,
		   size_t errlen);
void adv_input_free(struct adv_input *in);

/* The q-quantile (0..1) of a state's timer lateness, as record's table
 * computes percentiles (bins_percentile: inside [min, max]); 0 if empty.
 * adv_lat_median is q = 0.5. */
uint64_t adv_lat_quantile(const struct adv_state_in *s, double q);
uint64_t adv_lat_median(const struct adv_state_in *s);

#endif
