/* The PM QoS ledger (issue 25): every CPU latency request and CPU
 * resume-latency limit live during a session, who made it, its value,
 * since when, and the slot BPF charges the periods it forces shallower to
 * (include/qos_stats.h). Fed with the holders of /dev/cpu_dma_latency at
 * the start (sys/qos_holders.h: their values are not shown by the kernel)
 * and then with the request records of bpf/qos.bpf.h. Pure logic: no I/O. */
#ifndef IDLESCOPE_QOS_LEDGER_H
#define IDLESCOPE_QOS_LEDGER_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/types.h>

#include "qos_stats.h"

#define QOS_LEDGER_ROWS 64
/* The CPU latency default (PM_QOS_CPU_LATENCY_DEFAULT_VALUE): no limit. */
#define QOS_CPU_LATENCY_NONE_US 2000000000LL
/* A device's "no constraint" (PM_QOS_RESUME_LATENCY_NO_CONSTRAINT, S32_MAX). */
#define QOS_RESUME_NONE_US 2147483647LL

struct qos_entry {
	uint8_t scope;     /* QOS_SCOPE_CPU_LATENCY (every CPU) or QOS_SCOPE_RESUME */
	int cpu;           /* QOS_SCOPE_RESUME: the CPU; -1 otherwise */
	int pid;           /* the holding process (CPU latency) or the writer; 0 unknown */
	char comm[16];
	int requests;      /* CPU latency: its requests open now */
	int64_t value_us;  /* -1: unknown (held before the ledger began); NONE: no limit */
	bool before;       /* held when the ledger began */
	bool open;
	bool limited;      /* its value limited idle at some time: a row to show */
	uint64_t first_ns; /* it first limited idle at (CLOCK_MONOTONIC), 0: before the ledger */
	uint64_t since_ns; /* its current value set at, 0: before the ledger */
	uint64_t until_ns; /* closed at, 0: open */
	uint32_t changes;  /* values written after the first */
	uint32_t slot;     /* its qos_cost slot, 0: none (yet) */
};

struct qos_ledger {
	int nr;
	struct qos_entry e[QOS_LEDGER_ROWS];
	uint32_t next_slot;  /* the next qos_cost slot to hand out (from 1) */
	uint64_t dropped;    /* rows the table had no room for */
	uint64_t unslotted;  /* rows that limited idle after the slots ran out: charged to slot 0 */
	uint64_t unmatched;  /* removes of a request this ledger never saw */
	bool events;         /* fed by the request records (else only the start's holders) */
};

void qos_ledger_init(struct qos_ledger *l);
/* A process holding /dev/cpu_dma_latency open at the start (requests: its
 * descriptors). */
void qos_ledger_seed_holder(struct qos_ledger *l, int pid, const char *comm, int requests);
/* A CPU's resume-latency limit at the start (ns, UINT64_MAX none). */
void qos_ledger_seed_resume(struct qos_ledger *l, int cpu, uint64_t limit_ns);
/* After the seeds: the CPU latency aggregate then (ns, UINT64_MAX none).
 * With one holder its value is the aggregate; with none limiting, all are
 * at the default. */
void qos_ledger_seeded(struct qos_ledger *l, uint64_t global_ns);
/* One record of qos_ring (QOS_NOTIFY_REQUEST; others are ignored). */
void qos_ledger_apply(struct qos_ledger *l, const struct qos_event *ev);
/* The slot cpu's limit is charged to: the open request whose value is the
 * limit in force (the device's when lower than the global one, as
 * cpuidle_governor_latency_req), the earliest of equals; 0 when none is
 * known (several held before the start, or no limit). */
uint32_t qos_ledger_slot(struct qos_ledger *l, int cpu, uint64_t global_ns, uint64_t dev_ns);

#endif
