/* PM QoS changes and CPU hotplug, seen where the kernel makes them: one
 * record in qos_ring (its value what changed: QOS_NOTIFY_*) wakes the live
 * session, which then re-reads the limits it pushes or the online mask. */
#ifndef IDLESCOPE_QOS_BPF_H
#define IDLESCOPE_QOS_BPF_H

/* pm_qos_update_target runs after every change of a constraint's aggregate
 * (the CPU latency QoS of /dev/cpu_dma_latency and each device's resume
 * latency alike: both go through it), with the new value already set. It
 * also runs for frequency QoS and latency tolerance, and carries no pointer
 * to its constraint: those changes wake the reader too, which finds nothing
 * new. Only a moved aggregate (prev_value != curr_value) is sent. A page
 * holds far more records than changes arrive between reads. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} qos_ring SEC(".maps");

#define QOS_NOTIFY_QOS 1
#define QOS_NOTIFY_HOTPLUG 2

/* every change seen (-v); an atomic add without fetch: loads before 5.12 too */
__u64 qos_changes;
/* The reader's own process: reading /dev/cpu_dma_latency opens it, which
 * adds a request (at the default, changing nothing) and removes it at the
 * close; those must not wake it again. */
const volatile __u32 qos_self_tgid = 0;

static __always_inline void handle_qos_change(__s32 prev, __s32 curr)
{
	__u64 what = QOS_NOTIFY_QOS;

	/* a request added, changed or removed without moving the aggregate
	 * (any reader of /dev/cpu_dma_latency: its open adds one at the
	 * default) changes no limit */
	if (prev == curr)
		return;
	if (qos_self_tgid && bpf_get_current_pid_tgid() >> 32 == qos_self_tgid)
		return;

	__sync_fetch_and_add(&qos_changes, 1);
	/* flags 0: wakes the reader only when it has caught up (adaptive) */
	bpf_ringbuf_output(&qos_ring, &what, sizeof(what), 0);
}

/* cpuhp_exit: a step of a CPU going up or down ended. The online mask
 * changes at one of them; the steps after it wake the reader again, so its
 * last read sees the mask as it ends (a full ring drops records, not the
 * wakeup the reader is owed). */
static __always_inline void handle_hotplug_step(void)
{
	__u64 what = QOS_NOTIFY_HOTPLUG;

	bpf_ringbuf_output(&qos_ring, &what, sizeof(what), 0);
}

#endif
