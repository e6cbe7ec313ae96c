/* Energy models for the advisor: idlestat's energy model file (parsed from
 * a buffer, no I/O) and the kernel's energy model in debugfs. */
#ifndef IDLESCOPE_ENERGY_MODEL_H
#define IDLESCOPE_ENERGY_MODEL_H

#include <stdbool.h>
#include <stddef.h>

#define EM_NAME_LEN 64
#define EM_MAX_CLUSTERS 26 /* clusterA .. clusterZ */

struct em_pstate {
	double speed; /* MHz */
	double cluster_power, core_power;
};

struct em_cstate {
	char name[EM_NAME_LEN];
	double cluster_power, core_power;
	bool have_tr;     /* idlescope's optional fourth column */
	double tr_energy; /* entry + exit energy, power unit x us */
};

struct em_cluster {
	int nr_pstates, nr_cstates; /* as declared */
	int got_pstates, got_cstates;
	struct em_pstate *pstates;
	struct em_cstate *cstates;
	bool have_wakeup;
	double wakeup_cluster, wakeup_core;
};

struct energy_model {
	int nr_clusters;
	struct em_cluster clusters[EM_MAX_CLUSTERS];
};

/* Parses an idlestat 0.8 energy model file held in buf[0..len): `clusters
 * N`, then per cluster `clusterX: N cap states M C states`, `P-states:`
 * (speed cluster-power core-power), `C-states:` (name cluster-power
 * core-power [entry+exit energy]) and `wakeup CLUSTER CORE`; `#` lines and
 * blank lines are ignored. Returns 0, or -1 with "line N: ..." in err (em
 * is then empty). */
int energy_model_parse(const char *buf, size_t len, struct energy_model *em, char *err,
		       size_t errlen);
void energy_model_free(struct energy_model *em);

/* The C-state of cluster c named like a cpuidle state: case-insensitive,
 * with ' ', '-' and '_' equal (model names cannot hold spaces). NULL if none. */
const struct em_cstate *energy_model_cstate(const struct energy_model *em, int c,
					    const char *name);

/* The kernel's energy model (debugfs energy_model/): performance domains
 * and their P-states; no idle-state powers. */
struct kernel_em_domain {
	char name[64];
	char cpus[128];
	int nr_pstates;
	struct { unsigned long long khz, power; } pstates[64];
};

struct kernel_em {
	int nr_domains;
	struct kernel_em_domain domains[16];
};

/* Reads root (normally /sys/kernel/debug/energy_model). Returns 1 when
 * found, 0 when absent. */
int kernel_em_read(const char *root, struct kernel_em *k);

#endif
