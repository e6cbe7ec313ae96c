/* Who keeps the CPUs out of deep idle now (issue 25, info's part): every
 * process holding /dev/cpu_dma_latency open (each open adds a CPU latency
 * request, at the default until written; the kernel shows only the
 * aggregate, never one request's value), from its /proc/PID/fd links; each
 * CPU's resume-latency limit; and, where the haltpoll governor is built
 * in, its polling parameters. */
#ifndef IDLESCOPE_QOS_HOLDERS_H
#define IDLESCOPE_QOS_HOLDERS_H

#include <stdbool.h>
#include <stdint.h>

struct qos_holder {
	int pid;
	char comm[16];
	int fds; /* its descriptors open on the device */
};

struct qos_holders {
	int nr;
	struct qos_holder *h; /* by pid */
	int unreadable;       /* processes whose descriptors could not be listed */
};

/* Scans proc_root ("/proc", or a fake tree in tests) for descriptors
 * linked to /dev/cpu_dma_latency. A process that exits during the scan is
 * left out. Returns 0, or -1 (proc_root unreadable, out of memory). */
int qos_holders_scan(const char *proc_root, struct qos_holders *out);
void qos_holders_free(struct qos_holders *q);

/* The haltpoll governor's module parameters (drivers/cpuidle/governors/
 * haltpoll.c), from <sysfs>/module/haltpoll/parameters. */
struct haltpoll_params {
	bool present;              /* the governor is built in or loaded */
	uint64_t poll_ns;          /* guest_halt_poll_ns: the poll limit's ceiling */
	uint64_t grow, grow_start; /* guest_halt_poll_grow, _grow_start (ns) */
	uint64_t shrink;           /* guest_halt_poll_shrink (a divisor, 0 = reset) */
	bool allow_shrink;         /* guest_halt_poll_allow_shrink */
};

void haltpoll_params_read(struct haltpoll_params *p);

#endif
