/* `replay --profile FILE`: the machine a trace was recorded on, as a small
 * JSON document (docs/replay.md): CPU count, idle-state tables, groups.
 * Traces without a header of their own need it: idlescope never takes these
 * from the machine that analyses the trace. */
#ifndef IDLESCOPE_TRACE_PROFILE_H
#define IDLESCOPE_TRACE_PROFILE_H

#include <stddef.h>

#include "sys/cpuidle_sysfs.h"
#include "util/cpulist.h"
#include "sys/group_tree.h"

#define IS_PROFILE_SCHEMA "idlescope-profile/1"

struct trace_profile {
	int nr_cpus;
	struct cpuidle_cpu_info *info; /* [nr_cpus] */
	char driver[IS_NAME_LEN];      /* "" = not given */
	char governor[IS_NAME_LEN];
	/* topology levels: "levels" [{name, groups}], or "groups" with
	 * "group_level" (default "cluster") as one level */
	int nr_levels;
	struct group_level levels[IS_MAX_LEVELS];
};

/* Parses the JSON text. Returns 0, or -1 with a one-line reason in err. */
int trace_profile_parse(const char *text, size_t len, struct trace_profile *p, char *err,
			size_t errlen);
/* Reads and parses path. Returns 0, or -1 with a one-line reason in err. */
int trace_profile_load(const char *path, struct trace_profile *p, char *err, size_t errlen);
void trace_profile_free(struct trace_profile *p);

#endif
