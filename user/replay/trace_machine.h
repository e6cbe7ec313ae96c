/* The traced machine, never the one running the replay: CPU count, idle-state
 * tables, topology and groups from --profile, an idlestat header, or the trace. */
#ifndef IDLESCOPE_TRACE_MACHINE_H
#define IDLESCOPE_TRACE_MACHINE_H

#include <stdbool.h>

#include "sys/cpuidle_sysfs.h"
#include "sys/group_tree.h"
#include "sys/topology.h"
#include "replay/trace_parse.h"
#include "replay/trace_profile.h"

struct trace_machine {
	/* in */
	const char *file;                 /* the trace, for messages */
	const struct trace_data *td;
	const struct trace_profile *prof; /* --profile, NULL = none */
	const char *topology;             /* --topology custom:LIST or none, NULL = header/profile */
	/* out */
	int nr_cpus;
	struct cpuidle_cpu_info *info;    /* [nr_cpus] */
	struct topology topo;             /* every CPU online, groups as clusters */
	struct groups groups;
	const char *tables_from;          /* "profile", "idlestat header" or "none" */
	bool exit_latency_known;
	bool no_driver;                   /* an idlestat header without any named state */
	int index_tables;                 /* CPUs whose states are known by index only */
};

/* Fills m's outputs from its inputs. Returns 0, or EXIT_USAGE (a state the
 * tables lack, a bad --topology) or EXIT_RUNTIME with the reason printed;
 * free with trace_machine_free either way. */
int trace_machine_build(struct trace_machine *m);
void trace_machine_free(struct trace_machine *m);

#endif
