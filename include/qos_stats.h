/* PM QoS records and costs shared by bpf/qos.bpf.h and the loader
 * (user/session/qos_ledger.c). __u* only, so the skeleton header compiles
 * in userspace. */
#ifndef IDLESCOPE_QOS_STATS_H
#define IDLESCOPE_QOS_STATS_H

/* Ledger slots whose forced periods BPF counts (idle_params.qos_slot);
 * slot 0 takes what no holder is known for. */
#define QOS_SLOTS 32

/* qos_event.what */
#define QOS_NOTIFY_QOS 1     /* a limit's aggregate moved: the limits read again */
#define QOS_NOTIFY_HOTPLUG 2 /* a CPU hotplug step ended */
#define QOS_NOTIFY_REQUEST 4 /* a request was added, updated or removed */

/* qos_event.action */
#define QOS_ADD 1
#define QOS_UPDATE 2
#define QOS_REMOVE 3

/* qos_event.scope */
#define QOS_SCOPE_CPU_LATENCY 1 /* /dev/cpu_dma_latency and drivers: every CPU */
#define QOS_SCOPE_RESUME 2      /* one device's resume latency (dev: its name) */

/* One record of qos_ring. */
struct qos_event {
	__u64 ts_ns;   /* bpf_ktime_get_ns() */
	__u32 what;    /* QOS_NOTIFY_* */
	__s32 value;   /* the request's value (us; raw as the tracepoint has it) */
	__u32 tgid;    /* the task that made the request */
	__u32 pid;
	__u8 action;   /* QOS_* for QOS_NOTIFY_REQUEST */
	__u8 scope;    /* QOS_SCOPE_* */
	__u16 pad;
	char comm[16];
	char dev[12];  /* QOS_SCOPE_RESUME: the device ("cpu3") */
};

/* Per CPU (a per-CPU array) and ledger slot: the periods the kernel's rule
 * calls too shallow because the deeper state was barred by the PM QoS
 * limit the slot's holder set (below_qos, bpf/idle.bpf.h), and their idle
 * time. */
struct qos_cost {
	__u64 periods;
	__u64 idle_ns;
};

#endif
