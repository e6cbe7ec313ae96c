/* `idlescope info`'s PM QoS lines: the holders of /dev/cpu_dma_latency, the
 * limit they leave and the deepest state it leaves reachable, each CPU's
 * resume-latency limit, the haltpoll governor's parameters
 * (sys/qos_holders.h), as info's model (render/render_info.h). */
#ifndef IDLESCOPE_INFO_QOS_H
#define IDLESCOPE_INFO_QOS_H

#include "render/render_info.h"
#include "sys/cpuidle_sysfs.h"
#include "sys/qos_holders.h"

struct info_qos_data {
	struct info_qos view;
	struct qos_holders holders;
	struct info_qos_holder *rows;
	struct info_qos_cpu *cpus;
};

/* Reads it all now; cpu0 is CPU 0's state table (nr_states 0: none),
 * governor the current one. Returns 0, or -1 when out of memory. */
int info_qos_gather(struct info_qos_data *d, int nr_possible, const struct cpuidle_cpu_info *cpu0,
		    const char *governor);
void info_qos_free(struct info_qos_data *d);

#endif
