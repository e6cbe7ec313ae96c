/* PM QoS and CPU hotplug, seen where the kernel makes them: records in
 * qos_ring (struct qos_event) wake the live session, which then re-reads the
 * limits it pushes or the online mask and keeps the ledger of who asked
 * for what (user/session/qos_ledger.c); qos_cost charges each period a
 * limit forced shallower to the request behind the limit. */
#ifndef IDLESCOPE_QOS_BPF_H
#define IDLESCOPE_QOS_BPF_H

#include "qos_stats.h"

/* pm_qos_update_target runs after every change of a constraint's aggregate
 * (the CPU latency QoS of /dev/cpu_dma_latency and each device's resume
 * latency alike: both go through it), with the new value already set. It
 * also runs for frequency QoS and latency tolerance, and carries no pointer
 * to its constraint: those changes wake the reader too, which finds nothing
 * new. Only a moved aggregate (prev_value != curr_value) is sent. The
 * request events before it name the task; a page holds ~50 records, far
 * more than arrive between two reads (the reader wakes at the first). */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} qos_ring SEC(".maps");

/* Indexed by idle_params.qos_slot, per CPU: no atomics on the idle path. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, QOS_SLOTS);
	__type(key, __u32);
	__type(value, struct qos_cost);
} qos_cost SEC(".maps");

/* every change seen (-v); an atomic add without fetch: loads before 5.12 too */
__u64 qos_changes;
/* request records the ring had no room for: the ledger may be stale */
__u64 qos_lost;
/* The reader's own process: reading /dev/cpu_dma_latency opens it, which
 * adds a request (at the default, changing nothing) and removes it at the
 * close; those must not wake it again, nor enter its ledger. */
const volatile __u32 qos_self_tgid = 0;

static __always_inline bool qos_from_self(void)
{
	return qos_self_tgid && bpf_get_current_pid_tgid() >> 32 == qos_self_tgid;
}

static __always_inline void qos_notify(__u32 what)
{
	struct qos_event e = { .what = what };

	/* forced: an adaptive wakeup (flags 0) is skipped while records the
	 * reader was not woken for wait in the ring (qos_wake_flags) */
	bpf_ringbuf_output(&qos_ring, &e, sizeof(e), BPF_RB_FORCE_WAKEUP);
}

static __always_inline void handle_qos_change(__s32 prev, __s32 curr)
{
	/* a request added, changed or removed without moving the aggregate
	 * (any reader of /dev/cpu_dma_latency: its open adds one at the
	 * default) changes no limit */
	if (prev == curr || qos_from_self())
		return;
	__sync_fetch_and_add(&qos_changes, 1);
	qos_notify(QOS_NOTIFY_QOS);
}

/* A reader of /dev/cpu_dma_latency opens it (a request added at
 * PM_QOS_DEFAULT_VALUE, -1: the default) and closes it (removed, the
 * value -1 again): records that change
 * no limit must not wake the session (issue 23), so they wait in the ring
 * for the next record that does, or for a half-full ring. A holder's
 * remove that lifts a limit is followed by pm_qos_update_target's record,
 * which wakes. */
#define QOS_CPU_LATENCY_DEFAULT 2000000000 /* PM_QOS_CPU_LATENCY_DEFAULT_VALUE (us) */

static __always_inline __u64 qos_wake_flags(__u8 action, __u8 scope, __s32 value)
{
	if (scope != QOS_SCOPE_CPU_LATENCY || action == QOS_UPDATE ||
	    (value >= 0 && value < QOS_CPU_LATENCY_DEFAULT))
		return BPF_RB_FORCE_WAKEUP;
	return bpf_ringbuf_query(&qos_ring, BPF_RB_AVAIL_DATA) > 2048 ? BPF_RB_FORCE_WAKEUP
									: BPF_RB_NO_WAKEUP;
}

/* A CPU latency request (pm_qos_{add,update,remove}_request: value only;
 * the remove's is -1, the default) or a device's resume-latency request
 * (dev_pm_qos_*: dev the device's name, CPUs only): who, what, when. */
static __always_inline void handle_qos_request(__u8 action, __u8 scope, __s32 value,
					       const char *dev)
{
	struct qos_event e = { .what = QOS_NOTIFY_REQUEST, .action = action, .scope = scope,
			       .value = value };
	__u64 id = bpf_get_current_pid_tgid();

	if (qos_from_self())
		return;
	if (dev) {
		bpf_probe_read_kernel_str(e.dev, sizeof(e.dev), dev);
		/* other devices' resume latency limits no CPU's idle */
		if (e.dev[0] != 'c' || e.dev[1] != 'p' || e.dev[2] != 'u')
			return;
	}
	e.ts_ns = bpf_ktime_get_ns();
	e.tgid = (__u32)(id >> 32);
	e.pid = (__u32)id;
	bpf_get_current_comm(e.comm, sizeof(e.comm));
	if (bpf_ringbuf_output(&qos_ring, &e, sizeof(e), qos_wake_flags(action, scope, value)))
		__sync_fetch_and_add(&qos_lost, 1);
}

/* dev_pm_qos_*_request: only resume latency bounds idle states */
static __always_inline void handle_dev_qos_request(__u8 action, const char *name, __u32 type,
						   __s32 value)
{
	if (type != bpf_core_enum_value(enum dev_pm_qos_req_type, DEV_PM_QOS_RESUME_LATENCY))
		return;
	handle_qos_request(action, QOS_SCOPE_RESUME, value, name);
}

/* A period the PM QoS limit kept shallower (below_qos): charged to the
 * slot of the request behind the CPU's limit, which the reader keeps in
 * idle_params. */
static __always_inline void qos_charge(__u32 slot, __u64 r)
{
	struct qos_cost *c;

	if (slot >= QOS_SLOTS)
		slot = 0;
	c = bpf_map_lookup_elem(&qos_cost, &slot);
	if (!c)
		return;
	c->periods++;
	c->idle_ns += r;
}

/* cpuhp_exit: a step of a CPU going up or down ended. The online mask
 * changes at one of them; the steps after it wake the reader again, so its
 * last read sees the mask as it ends (a full ring drops records, not the
 * wakeup the reader is owed). */
static __always_inline void handle_hotplug_step(void)
{
	qos_notify(QOS_NOTIFY_HOTPLUG);
}

#endif
