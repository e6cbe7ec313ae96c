/* Maps and window globals shared by every concern in idlescope.bpf.c. The
 * loader sizes the per-CPU arrays to the possible CPUs (replay: to the CPUs
 * it simulates). */
#ifndef IDLESCOPE_MAPS_BPF_H
#define IDLESCOPE_MAPS_BPF_H

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct idle_cpu_slot);
} idle_slots SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct idle_params);
} idle_params SEC(".maps");

/* Indexed by cpu * state_slots + state. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, IS_MAX_STATES);
	__type(key, __u32);
	__type(value, struct idle_state_stats);
} idle_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct wake_cpu_stats);
} wake_stats SEC(".maps");

/* Indexed by cpu * state_slots + state. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, IS_MAX_STATES);
	__type(key, __u32);
	__type(value, struct wake_lat_stats);
} wake_lat SEC(".maps");

/* IRQs, softirqs, timer functions and wakees by count, keyed per CPU; an
 * existing entry is updated in place without locks. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, IS_WAKE_DETAILS);
	__type(key, struct wake_detail_key);
	__type(value, struct wake_detail_val);
} wake_details SEC(".maps");

/* The last detail of each kind per CPU (cpu * WDETAIL_NR + kind), counted in
 * place until a different key of that kind comes, then added to
 * wake_details: a steady timer or wakee costs no hash lookup. Userspace
 * adds these to what it reads from the table. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, WDETAIL_NR);
	__type(key, __u32);
	__type(value, struct wake_detail);
} wake_detail_last SEC(".maps");

/* Topology groups: the packing level's group of each CPU (loader-written,
 * read for other CPUs too), the nodes' shared words, and the statistics.
 * Sized by the loader; 1 entry when groups are off. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} group_of SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct group_slot);
} group_slots SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct group_stats);
} group_stats SEC(".maps");

/* A lazy node's statistics, one copy per member CPU (key: the CPU), kept
 * by the exits that claim its intervals: no line of them moves between
 * CPUs; the reader sums a node's members (session/snapshot.c). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct group_stats);
} group_stats_cpu SEC(".maps");

/* Packing: the global busy-group state (one entry) and runtime per task
 * and group. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pack_global);
} pack_global SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, IS_PACK_TASKS);
	__type(key, struct pack_task_key);
	__type(value, struct pack_task_val);
} pack_tasks SEC(".maps");

/* The waker's CPU of each task between sched_waking and sched_wakeup. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, IS_PACK_TASKS);
	__type(key, __u32);
	__type(value, __u32);
} pack_wakers SEC(".maps");

/* Frequency residency per CPU (1 entry when off). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct freq_cpu);
} freq_cpus SEC(".maps");

/* `idlescope hist` histograms, indexed by cpu * state_slots + state. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, IS_MAX_STATES);
	__type(key, __u32);
	__type(value, struct hist_slot);
} hist_data SEC(".maps");

/* When a task became runnable, for wakeup and run-queue latency. LRU: a
 * task that exits before it runs cannot fill the map. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct task_ready);
} task_ts SEC(".maps");

/* Trace import: a batch of replay events, written by userspace through
 * mmap and run by replay_idle_batch (1 entry outside replay sessions). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct replay_event);
} replay_batch SEC(".maps");
/* path-latency: pending FROM entries per CPU (1 entry when off). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct path_cpu);
} path_cpus SEC(".maps");

/* The window: exits before start_ns are not counted; from stop_ns on the
 * handlers do nothing, so map reads after it see a frozen picture, including
 * the period each CPU had in flight. 0 = unset. */
__u64 start_ns;
__u64 stop_ns;
/* record: from here to start_ns (the start snapshot of the sysfs counters)
 * and after stop_ns the exits are counted as edge exits; 0 = not before
 * start. */
__u64 edge_from_ns;
/* A live reader's cut (top): the first idle event of each CPU after it
 * keeps that CPU's state at the cut, and ends after it are counted apart as
 * well (idle.bpf.h), so that reads spread over milliseconds give every CPU
 * and group as at this instant. 0 = none. */
__u64 cut_ns;
/* Set with stop_ns: lets the interrupt-path handlers stop without a clock
 * read. */
__u32 stopped;
/* Events for a CPU beyond the maps (should stay 0; printed if not). */
__u64 cpu_out_of_range;

/* Knobs set by the loader before load. */
const volatile bool wake_enabled = false;
/* The per-IRQ, timer-function and wakee tables (--without details: off). */
const volatile bool details_enabled = true;
/* How long after an idle exit the first event still counts as its cause
 * (MWAIT/WFI-style states handle the waking interrupt after the exit). */
const volatile __u64 wake_window_ns = 50000;
/* A live session takes poll-resched at the exit (wake.bpf.h noipi_at_exit)
 * instead of hooking the waker's sched_wake_idle_without_ipi. */
const volatile bool noipi_inferred = false;
const volatile bool groups_enabled = false;
const volatile bool packing_enabled = false;
const volatile __u32 pack_max_group_cpus = 0; /* CPUs of the packing level's largest group */
/* `idlescope hist`: the metric (enum hist_metric, HM_NONE for record), its
 * display unit or linear step, and the task filter (-p tgid, -c comm). */
/* states per CPU in the per-state maps (their stride): the most any CPU has */
const volatile __u32 state_slots = IS_MAX_STATES;
const volatile __u32 hist_metric = HM_NONE;
const volatile __u64 hist_unit_ns = 1000;
const volatile __u64 hist_linear_ns = 0;
const volatile __u32 targ_tgid = 0;
const volatile bool filter_comm = false;
const volatile char targ_comm[16] = {};

#endif
