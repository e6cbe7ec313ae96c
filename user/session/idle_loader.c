/* Skeleton lifecycle for bpf/idlescope.bpf.c: probe each event, pick tp_btf
 * or raw_tp with autoload, size the per-CPU maps, attach (the reading is
 * snapshot.c's). */
#include "session/idle_loader.h"

#include <errno.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "sys/cpuidle_sysfs.h"
#include "util/clock.h"
#include "util/env_flag.h"
#include "util/fdlimit.h"
#include "session/kernel_features.h"
#include "session/parts.h"
#include "idlescope.skel.h"
#include "idlescope_nofetch.skel.h"
#include "idlescope_live.skel.h"

static bool verbose;

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (!verbose || level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

void idle_set_verbose(bool v)
{
	verbose = v;
	libbpf_set_print(libbpf_print);
}

/* What a session may need events for; an event attaches when one of the
 * features it serves is on (session_features). */
enum feature {
	F_IDLE = 1 << 0,         /* idle periods: always, and required */
	F_MISS = 1 << 1,         /* the kernel's above/below (record, not hist) */
	F_WAKE = 1 << 2,         /* wakeup attribution */
	F_PACKING = 1 << 3,      /* record --packing */
	F_FREQ = 1 << 4,         /* frequency residency */
	F_RUNQ_LAT = 1 << 5,     /* hist runq-latency */
	F_WAKEUP_LAT = 1 << 6,   /* hist wakeup-latency */
	F_IDLE_SWITCH = 1 << 7,  /* hist idle-entry and idle-exit */
	F_TIMERS = 1 << 8,       /* timer lateness of the wakeups */
	F_DETAILS = 1 << 9,      /* the wakees (and who sent their IPI) */
	F_QOS = 1 << 10,         /* PM QoS changes wake the live session */
	F_HOTPLUG = 1 << 11,     /* so do CPU hotplug steps (live) */
	F_HALTPOLL = 1 << 12,    /* guest halt-polling: the poll limit's moves */
};

/* The one list of events: in the order they attach, which features need
 * each, where it exists. A program is FLAVOUR_EVENT (tp_btf_cpu_idle). */
static const struct event {
	const char *name;
	unsigned int needed_by; /* enum feature bits */
	bool x86_only;
	bool scalar_ptr_arg;    /* tp_btf needs a BTF-typed scalar pointer arg */
} events[] = {
	{ "cpu_idle", F_IDLE, false, false },
	{ "cpu_idle_miss", F_MISS, false, false },
	{ "cpu_frequency", F_FREQ, false, false },
	{ "local_timer_entry", F_WAKE, true, false },
	{ "reschedule_entry", F_WAKE, true, false },
	{ "call_function_entry", F_WAKE, true, false },
	{ "call_function_single_entry", F_WAKE, true, false },
	{ "irq_work_entry", F_WAKE, true, false },
	{ "x86_platform_ipi_entry", F_WAKE, true, false },
	{ "thermal_apic_entry", F_WAKE, true, false },
	{ "irq_handler_entry", F_WAKE, false, false },
	{ "softirq_entry", F_WAKE, false, false },
	{ "hrtimer_expire_entry", F_TIMERS, false, true },
	{ "sched_wakeup", F_DETAILS | F_PACKING | F_RUNQ_LAT | F_WAKEUP_LAT, false, false },
	{ "sched_waking", F_WAKEUP_LAT | F_PACKING, false, false },
	{ "sched_wakeup_new", F_RUNQ_LAT, false, false },
	{ "sched_switch", F_WAKEUP_LAT | F_RUNQ_LAT | F_IDLE_SWITCH | F_PACKING, false, false },
	{ "sched_migrate_task", F_PACKING, false, false },
	{ "sched_overutilized_tp", F_PACKING, false, false },
	{ "pelt_cfs_tp", F_PACKING, false, false },
	{ "sched_wake_idle_without_ipi", F_WAKE, false, false },
	{ "ipi_send_cpu", F_DETAILS, false, false },
	{ "pm_qos_update_target", F_QOS, false, false },
	{ "pm_qos_add_request", F_QOS, false, false },
	{ "pm_qos_update_request", F_QOS, false, false },
	{ "pm_qos_remove_request", F_QOS, false, false },
	{ "dev_pm_qos_add_request", F_QOS, false, true },
	{ "dev_pm_qos_update_request", F_QOS, false, true },
	{ "dev_pm_qos_remove_request", F_QOS, false, true },
	{ "cpuhp_exit", F_HOTPLUG, false, false },
	{ "guest_halt_poll_ns", F_HALTPOLL, false, false },
};
#define NR_EVENTS (sizeof(events) / sizeof(events[0]))

static unsigned int session_features(const struct idle_session *s)
{
	unsigned int f = F_IDLE;
	uint32_t m = s->hist.metric;

	if (m == HM_NONE && !env_flag("IDLESCOPE_NO_IDLE_MISS") && !(s->without & PART_MISS))
		f |= F_MISS;
	if (s->wake)
		f |= F_WAKE;
	if (s->wake && !(s->without & PART_TIMERS))
		f |= F_TIMERS;
	if (s->wake && !(s->without & PART_DETAILS))
		f |= F_DETAILS;
	if (s->packing)
		f |= F_PACKING;
	if (s->freq)
		f |= F_FREQ;
	if (m == HM_RUNQ_LATENCY)
		f |= F_RUNQ_LAT;
	if (m == HM_WAKEUP_LATENCY)
		f |= F_WAKEUP_LAT;
	if (m == HM_IDLE_ENTRY || m == HM_IDLE_EXIT)
		f |= F_IDLE_SWITCH;
	if (s->qos_events && !env_flag("IDLESCOPE_NO_QOS_EVENTS"))
		f |= F_QOS;
	if (s->hotplug_events && (f & F_QOS))
		f |= F_HOTPLUG;
	if (s->haltpoll)
		f |= F_HALTPOLL;
	return f;
}

/* The event a tracepoint program is for (its name past the flavour), or NULL
 * for the other programs (fentry/fexit, replay). */
static const struct event *event_of(const struct bpf_program *p)
{
	const char *name = bpf_program__name(p);

	if (!strncmp(name, "tp_btf_", 7))
		name += 7;
	else if (!strncmp(name, "raw_tp_", 7))
		name += 7;
	else
		return NULL;
	for (size_t i = 0; i < NR_EVENTS; i++)
		if (!strcmp(events[i].name, name))
			return &events[i];
	return NULL;
}

static struct bpf_program *prog_for(struct idlescope_bpf *skel, const char *flavour,
				    const char *event)
{
	char name[96];

	snprintf(name, sizeof(name), "%s_%s", flavour, event);
	return bpf_object__find_program_by_name(skel->obj, name);
}

static void note_missing(struct idle_session *s, const char *event)
{
	size_t n = strlen(s->missing);

	snprintf(s->missing + n, sizeof(s->missing) - n, "%s%s", n ? ", " : "", event);
}

/* Chooses tp_btf or raw_tp for each wanted event this kernel has (the shared
 * probe, kernel_features.c, says which exist). */
static void choose_programs(struct idle_session *s, const struct kernel_features *f)
{
	unsigned int on = session_features(s);
#if defined(__x86_64__)
	const bool x86 = true;
#else
	const bool x86 = false;
#endif

	s->idle_attach = f->tp_btf ? "tp_btf" : "raw_tp";
	for (size_t i = 0; i < NR_EVENTS; i++) {
		const struct event *e = &events[i];

		if (!(e->needed_by & on) || (e->x86_only && !x86))
			continue;
		/* cpu_idle is required: a kernel without it fails at attach */
		if (!(e->needed_by & F_IDLE) && !features_has_event(e->name)) {
			note_missing(s, e->name);
			continue;
		}
		/* poll-resched is taken at the idle exit where the run queue
		 * is reachable (bpf/wake.bpf.h noipi_at_exit): the waker's
		 * event, a read of the target's slot on every such wakeup, is
		 * not hooked then */
		if (!strcmp(e->name, "sched_wake_idle_without_ipi") && f->rq_via_idle_task) {
			s->skel->rodata->noipi_inferred = true;
			continue;
		}
		if (e->needed_by & F_MISS)
			s->miss_attach = s->idle_attach;
		bpf_program__set_autoload(
			prog_for(s->skel, e->scalar_ptr_arg && !f->tp_btf_scalar_ptr ? "raw_tp" : s->idle_attach,
				 e->name),
			true);
	}
}

/* record: the exact idle outcome through fexit where the probe attached one,
 * else the tracepoints alone (idle_fexit_why says why). */
static void choose_idle_fexit(struct idle_session *s, const struct kernel_features *f)
{
	struct bpf_program *p = NULL;

	if (s->without & PART_FEXIT) {
		snprintf(s->idle_fexit_why, sizeof(s->idle_fexit_why), "left out (--without fexit)");
		return;
	}
	if (f->idle_fexit) {
		snprintf(s->idle_fexit_why, sizeof(s->idle_fexit_why), "%s",
			 f->idle_fexit_why[0] ? f->idle_fexit_why : "no vmlinux BTF");
		return;
	}
	if (!strcmp(f->idle_fexit_func, "cpuidle_enter_state"))
		p = s->skel->progs.fexit_cpuidle_enter_state;
	else if (!strcmp(f->idle_fexit_func, "cpuidle_enter"))
		p = s->skel->progs.fexit_cpuidle_enter;
	if (!p)
		return;
	bpf_program__set_autoload(p, true);
	s->idle_fexit_func = f->idle_fexit_func;
	s->idle_fexit_prog = p;
}

/* What the governor was told (bpf/gov.bpf.h): fexit on the sleep-length
 * call and fentry on the two tick decisions, where fentry loads and the
 * functions are in BTF; gov_why says why not. Left out with the fexit
 * part (--without fexit): the same kind of program on the same path. */
static void choose_gov_programs(struct idle_session *s, const struct kernel_features *f)
{
	static const char *const fn[] = { "tick_nohz_get_sleep_length", "tick_nohz_idle_stop_tick",
					   "tick_nohz_idle_retain_tick" };
	struct cpuidle_system sys;

	if (s->without & PART_FEXIT) {
		snprintf(s->gov_why, sizeof(s->gov_why), "left out (--without fexit)");
		return;
	}
	/* only menu and teo ask for the sleep length: elsewhere (haltpoll,
	 * ladder, no driver) the programs would run on every idle entry
	 * for no known period */
	cpuidle_read_system(&sys);
	if (!strcmp(sys.driver, "none")) {
		snprintf(s->gov_why, sizeof(s->gov_why), "no cpuidle driver: no governor chooses");
		return;
	}
	if (strcmp(sys.governor, "menu") && strcmp(sys.governor, "teo")) {
		snprintf(s->gov_why, sizeof(s->gov_why),
			 "the %s governor does not ask for the sleep length",
			 sys.governor[0] ? sys.governor : "current");
		return;
	}
	if (f->fentry) {
		snprintf(s->gov_why, sizeof(s->gov_why), "fentry/fexit refused here (%s on %s)",
			 features_strerror(f->fentry), f->fentry_probe_func ? f->fentry_probe_func : "?");
		return;
	}
	for (size_t i = 0; i < sizeof(fn) / sizeof(fn[0]); i++)
		if (!features_has_func(fn[i])) {
			snprintf(s->gov_why, sizeof(s->gov_why), "no %s in this kernel's BTF", fn[i]);
			return;
		}
	bpf_program__set_autoload(s->skel->progs.gov_sleep_length_fexit, true);
	bpf_program__set_autoload(s->skel->progs.gov_stop_tick_fentry, true);
	bpf_program__set_autoload(s->skel->progs.gov_retain_tick_fentry, true);
	s->skel->rodata->gov_enabled = true;
	s->gov = true;
}

static bool is_gov_program(const struct idle_session *s, const struct bpf_program *p)
{
	return p == s->skel->progs.gov_sleep_length_fexit ||
	       p == s->skel->progs.gov_stop_tick_fentry || p == s->skel->progs.gov_retain_tick_fentry;
}

/* hist path-latency: fentry on --from and --to, fexit on --from. Refused
 * here, before any load, when fentry is not allowed or a function is not in
 * BTF. */
static int choose_path_programs(struct idle_session *s, const struct session_opts *o,
				const struct kernel_features *f, char *err, size_t errlen)
{
	const char *fn[2] = { o->hist.path_from, o->hist.path_to };

	for (int i = 0; i < 2; i++)
		if (!fn[i] || !features_has_func(fn[i])) {
			snprintf(err, errlen, "no function '%s' in this kernel's BTF (--%s)",
				 fn[i] ? fn[i] : "", i ? "to" : "from");
			return -1;
		}
	if (f->fentry) {
		snprintf(err, errlen,
			 "path-latency needs fentry/fexit, which this kernel refuses (%s on %s)",
			 features_strerror(f->fentry), f->fentry_probe_func);
		return -1;
	}
	if (bpf_program__set_attach_target(s->skel->progs.path_from_fentry, 0, o->hist.path_from) ||
	    bpf_program__set_attach_target(s->skel->progs.path_from_fexit, 0, o->hist.path_from) ||
	    bpf_program__set_attach_target(s->skel->progs.path_to_fentry, 0, o->hist.path_to)) {
		snprintf(err, errlen, "cannot target %s/%s: %s", o->hist.path_from, o->hist.path_to,
			 strerror(errno));
		return -1;
	}
	bpf_program__set_autoload(s->skel->progs.path_from_fentry, true);
	bpf_program__set_autoload(s->skel->progs.path_from_fexit, true);
	bpf_program__set_autoload(s->skel->progs.path_to_fentry, true);
	return 0;
}

/* Bits that hold 0..n. */
static uint32_t bits_for(uint32_t n)
{
	uint32_t b = 1;

	while (b < 32 && (n >> b))
		b++;
	return b;
}

/* Whether node g is counted lazily (bpf/group.bpf.h): a top node whose
 * children are at most GROUP_LAZY_MAX CPUs, without packing (which needs
 * each node's change as it happens). Its CPUs into member when given. */
static bool group_lazy_members(const struct groups *gr, uint32_t g, bool packing, __u16 *member)
{
	const struct group_node *n = &gr->node[g];
	int k = 0;

	if (packing || n->parent >= 0 || n->nr_children > GROUP_LAZY_MAX)
		return false;
	for (int c = 0; c < gr->nr_cpus; c++) {
		if (gr->group_of[c] != (int)g)
			continue;
		if (member && k < GROUP_LAZY_MAX)
			member[k] = (__u16)c;
		k++;
	}
	return k == n->nr_children; /* no child group */
}

/* The tree into group_slots and the CPU slots, the packing level into
 * group_of (before attach: every word starts at zero, every CPU busy). */
static int load_groups(struct idle_session *s, const struct session_opts *o)
{
	const struct groups *gr = o->groups;
	int of_fd = bpf_map__fd(s->skel->maps.group_of);
	uint32_t pack_groups = 0, pack_cpus = 0;
	/* which nodes are lazy, for their CPUs' slots */
	bool *lazy = calloc((size_t)gr->nr_groups + 1, sizeof(*lazy));
	int err = -1;

	if (!lazy)
		return -1;

	for (uint32_t c = 0; c < (uint32_t)s->nr_cpus; c++) {
		int p = (int)c < gr->nr_cpus ? gr->pack_of[c] : -1;
		uint32_t g = p < 0 ? IS_NO_GROUP : (uint32_t)p;

		if (bpf_map_update_elem(of_fd, &c, &g, BPF_ANY))
			goto out;
		pack_cpus += p >= 0;
	}
	for (uint32_t g = 0; g < (uint32_t)gr->nr_groups; g++) {
		const struct group_node *n = &gr->node[g];
		struct group_slot gs = { 0 };

		gs.nr_children = (uint32_t)n->nr_children;
		gs.width = bits_for(gs.nr_children);
		gs.fields = GROUP_FIELD_BITS / gs.width;
		if (gs.fields > s->state_slots)
			gs.fields = s->state_slots;
		gs.parent1 = n->parent < 0 ? 0 : (uint32_t)n->parent + 1;
		gs.level = (uint32_t)n->level;
		gs.lazy = group_lazy_members(gr, g, o->packing, gs.member);
		lazy[g] = gs.lazy;
		pack_groups += n->level == gr->pack_level;
		if (bpf_map_update_elem(bpf_map__fd(s->skel->maps.group_slots), &g, &gs, BPF_ANY))
			goto out;
	}
	/* each CPU's slot carries its smallest group, read on every idle event */
	for (uint32_t c = 0; c < (uint32_t)s->nr_cpus; c++) {
		struct idle_cpu_slot slot = { 0 };

		if ((int)c < gr->nr_cpus) {
			slot.group_id1 = gr->group_of[c] < 0 ? 0 : (uint32_t)gr->group_of[c] + 1;
			slot.pack_group1 = gr->pack_of[c] < 0 ? 0 : (uint32_t)gr->pack_of[c] + 1;
			if (gr->group_of[c] >= 0 && lazy[gr->group_of[c]])
				slot.group_lazy = (__u8)(1 + gr->node[gr->group_of[c]].level);
		}
		if (bpf_map_update_elem(bpf_map__fd(s->skel->maps.idle_slots), &c, &slot, BPF_ANY))
			goto out;
	}
	if (o->packing) {
		/* every grouped CPU counts as busy until its first idle entry */
		struct pack_global pg = { 0 };
		uint32_t zero = 0;

		pg.word = PACK_WORD((uint64_t)pack_groups, (uint64_t)pack_cpus, 0);
		if (bpf_map_update_elem(bpf_map__fd(s->skel->maps.pack_global), &zero, &pg, BPF_ANY))
			goto out;
	}
	err = 0;
out:
	free(lazy);
	return err;
}

/* The skeleton over the object this kernel can load: the default one, or
 * before 5.12 the build without atomic fetch ops, whose maps, programs and
 * globals are the same (checked: the skeleton maps the globals by layout). */
/* The object a session opens, as the default skeleton (the Makefile checks
 * that their globals lie where its struct says): the full one for replay,
 * the one without atomic fetch ops on kernels before 5.12 (it keeps the
 * replay code: those kernels are rare), else the live one. */
enum object_variant { OBJ_FULL, OBJ_NOFETCH, OBJ_LIVE };

static enum object_variant object_for(const struct session_opts *o)
{
	const struct kernel_features *f;

	if (o->replay)
		return OBJ_FULL;
	if (features_lack_atomic_fetch())
		return OBJ_NOFETCH;
	f = features_get();
	/* choose_programs takes tp_btf for every event then */
	return f->tp_btf && f->tp_btf_scalar_ptr ? OBJ_LIVE : OBJ_FULL;
}

/* The live object's raw_tp programs are empty: one chosen to load from it
 * would count nothing. */
static bool live_raw_tp_chosen(const struct idle_session *s)
{
	struct bpf_program *p;

	if (s->object != OBJ_LIVE)
		return false;
	bpf_object__for_each_program(p, s->skel->obj)
		if (bpf_program__autoload(p) && !strncmp(bpf_program__name(p), "raw_tp_", 7))
			return true;
	return false;
}

static struct idlescope_bpf *open_skeleton(enum object_variant v)
{
	struct idlescope_bpf *obj;
	int err;

	if (v == OBJ_FULL)
		return idlescope_bpf__open();
	obj = calloc(1, sizeof(*obj));
	if (!obj)
		return NULL;
	err = idlescope_bpf__create_skeleton(obj);
	if (!err) {
		obj->skeleton->data = v == OBJ_NOFETCH ?
			(void *)idlescope_nofetch_bpf__elf_bytes(&obj->skeleton->data_sz) :
			(void *)idlescope_live_bpf__elf_bytes(&obj->skeleton->data_sz);
		err = bpf_object__open_skeleton(obj->skeleton, NULL);
	}
	if (err) {
		idlescope_bpf__destroy(obj);
		errno = -err;
		return NULL;
	}
	return obj;
}

/* Effective CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN (before 5.8): an
 * EPERM at load then comes from the kernel, not from missing privileges. */
static bool have_bpf_caps(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2] = { 0 };
	uint64_t eff;

	if (syscall(SYS_capget, &h, d))
		return false;
	eff = (uint64_t)d[1].effective << 32 | d[0].effective;
	return (eff >> 21 & 1) || ((eff >> 38 & 1) && (eff >> 39 & 1)); /* SYS_ADMIN; PERFMON, BPF */
}

/* Drops the page-table entries of a read-only range of the binary (the
 * kernel keeps the pages in its cache; a later read faults them back). */
static void drop_pages(const void *p, size_t len)
{
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = ((uintptr_t)p + pg - 1) & ~(pg - 1), z = ((uintptr_t)p + len) & ~(pg - 1);

	if (z > a)
		madvise((void *)a, z - a, MADV_DONTNEED);
}

/* After the load, what only loading needed leaves the resident set: the
 * embedded BPF objects (about 1.3 MB each, read once by libbpf) and the
 * heap libbpf freed (the parsed kernel BTF and ELF). A long-running serve
 * or record keeps only what it uses. */
static void release_load_memory(void)
{
	size_t sz;
	const void *b = idlescope_bpf__elf_bytes(&sz);

	drop_pages(b, sz);
	b = idlescope_nofetch_bpf__elf_bytes(&sz);
	drop_pages(b, sz);
	b = idlescope_live_bpf__elf_bytes(&sz);
	drop_pages(b, sz);
	malloc_trim(0);
}

int idle_session_open(struct idle_session *s, int nr_cpus, const struct session_opts *o,
		      char *err, size_t errlen)
{
	const struct kernel_features *f;
	struct bpf_program *p;
	int e;

	memset(s, 0, sizeof(*s));
	s->unknown_at_start = -1;
	s->nr_cpus = nr_cpus;
	s->replay = o->replay;
	s->wake = o->wake || (o->replay && o->hist.metric == HM_NONE) ||
		  o->hist.metric == HM_EXIT_LATENCY;
	s->hist = o->hist;
	s->without = o->without;
	s->qos_events = o->qos_events && !o->replay;
	s->hotplug_events = o->hotplug_events && !o->replay;
	libbpf_set_print(libbpf_print);
	fdlimit_raise();
	/* replay runs on the analysing machine's kernel too */
	s->object = object_for(o);
	s->skel = open_skeleton(s->object);
	if (!s->skel) {
		snprintf(err, errlen, "cannot open the BPF object: %s", strerror(errno));
		return -1;
	}
	bpf_map__set_max_entries(s->skel->maps.idle_slots, (uint32_t)nr_cpus);
	bpf_map__set_max_entries(s->skel->maps.idle_params, (uint32_t)nr_cpus);
	s->state_slots = o->state_slots > 0 && o->state_slots < IS_MAX_STATES ?
			 (uint32_t)o->state_slots : IS_MAX_STATES;
	/* wakeup-latency keeps its parts in the state dimension of hist_data */
	if (o->hist.metric == HM_WAKEUP_LATENCY && s->state_slots < WP_NR_PARTS)
		s->state_slots = WP_NR_PARTS;
	s->skel->rodata->state_slots = s->state_slots;
	s->skel->rodata->qos_self_tgid = (uint32_t)getpid();
	bpf_map__set_max_entries(s->skel->maps.idle_stats, (uint32_t)nr_cpus * s->state_slots);
	bpf_map__set_max_entries(s->skel->maps.wake_stats, (uint32_t)nr_cpus);
	bpf_map__set_max_entries(s->skel->maps.gov_inputs, (uint32_t)nr_cpus);
	bpf_map__set_max_entries(s->skel->maps.wake_lat, (uint32_t)nr_cpus * s->state_slots);
	/* bounded per CPU: memory linear in CPUs, not in run length */
	bpf_map__set_max_entries(s->skel->maps.wake_details,
				 (uint32_t)nr_cpus * IS_WAKE_DETAILS_PER_CPU);
	bpf_map__set_max_entries(s->skel->maps.wake_detail_last, (uint32_t)nr_cpus * WDETAIL_NR);
	/* maps of features not asked for shrink to one entry: memory stays
	 * what this run needs */
	bpf_map__set_max_entries(s->skel->maps.hist_data,
				 o->hist.metric ? (uint32_t)nr_cpus * s->state_slots : 1);
	bpf_map__set_max_entries(s->skel->maps.path_cpus,
				 o->hist.metric == HM_PATH_LATENCY ? (uint32_t)nr_cpus : 1);
	if (o->hist.metric != HM_WAKEUP_LATENCY && o->hist.metric != HM_RUNQ_LATENCY)
		bpf_map__set_max_entries(s->skel->maps.task_ts, 1);
	if (!(o->wake || o->replay || o->hist.metric == HM_EXIT_LATENCY)) {
		bpf_map__set_max_entries(s->skel->maps.wake_details, 1);
		bpf_map__set_max_entries(s->skel->maps.wake_detail_last, 1);
		bpf_map__set_max_entries(s->skel->maps.wake_lat, 1);
		bpf_map__set_max_entries(s->skel->maps.wake_stats, 1);
	}
	/* haltpoll: one line per CPU, and the idle handler's one test of
	 * haltpoll_enabled, where the driver and governor are haltpoll */
	s->haltpoll = o->haltpoll && !(o->hist.metric != HM_NONE);
	bpf_map__set_max_entries(s->skel->maps.haltpoll_cpus, s->haltpoll ? (uint32_t)nr_cpus : 1);
	s->skel->rodata->haltpoll_enabled = s->haltpoll;
	s->freq = o->freq || o->replay;
	bpf_map__set_max_entries(s->skel->maps.freq_cpus, s->freq ? (uint32_t)nr_cpus : 1);
	/* only the never-attached replay programs use it: a live session
	 * does not create it (an mmapable array locks two pages however small) */
	bpf_map__set_max_entries(s->skel->maps.replay_batch, o->replay ? IS_REPLAY_BATCH : 1);
	bpf_map__set_autocreate(s->skel->maps.replay_batch, o->replay);
	if (!o->packing) {
		bpf_map__set_max_entries(s->skel->maps.pack_tasks, 1);
		bpf_map__set_max_entries(s->skel->maps.pack_wakers, 1);
	}
	s->nr_groups = o->groups ? o->groups->nr_groups : 0;
	if (s->nr_groups && !o->replay && features_lack_atomic_fetch()) {
		snprintf(err, errlen, "group rows need BPF atomic fetch ops (kernel 5.12+)");
		idlescope_bpf__destroy(s->skel);
		s->skel = NULL;
		return -1;
	}
	if (s->nr_groups) {
		const struct groups *gr = o->groups;

		bpf_map__set_max_entries(s->skel->maps.group_of, (uint32_t)nr_cpus);
		bpf_map__set_max_entries(s->skel->maps.group_slots, (uint32_t)gr->nr_groups);
		bpf_map__set_max_entries(s->skel->maps.group_stats, (uint32_t)gr->nr_groups);
		for (int g = 0; g < gr->nr_groups && !s->lazy_groups; g++)
			s->lazy_groups = group_lazy_members(gr, (uint32_t)g, o->packing, NULL);
		if (s->lazy_groups)
			bpf_map__set_max_entries(s->skel->maps.group_stats_cpu, (uint32_t)nr_cpus);
		s->skel->rodata->groups_enabled = true;
		s->packing = o->packing;
		s->skel->rodata->packing_enabled = o->packing;
		for (int g = 0; g < gr->nr_groups; g++)
			if (gr->node[g].level == gr->pack_level &&
			    (uint32_t)cpulist_count(&gr->cpus[g]) > s->skel->rodata->pack_max_group_cpus)
				s->skel->rodata->pack_max_group_cpus =
					(uint32_t)cpulist_count(&gr->cpus[g]);
	}
	s->skel->rodata->wake_enabled = s->wake;
	s->skel->rodata->details_enabled = !(o->without & PART_DETAILS);
	s->skel->rodata->hist_metric = o->hist.metric;
	if (o->hist.unit_ns)
		s->skel->rodata->hist_unit_ns = o->hist.unit_ns;
	s->skel->rodata->hist_linear_ns = o->hist.linear_ns;
	s->skel->rodata->targ_tgid = o->hist.tgid;
	if (o->hist.comm) {
		s->skel->rodata->filter_comm = true;
		strncpy((char *)s->skel->rodata->targ_comm, o->hist.comm,
			sizeof(s->skel->rodata->targ_comm) - 1);
	}

	bpf_object__for_each_program(p, s->skel->obj)
		bpf_program__set_autoload(p, false);
	if (s->replay) {
		bpf_program__set_autoload(s->skel->progs.replay_idle, true);
		bpf_program__set_autoload(s->skel->progs.replay_idle_batch, true);
		/* a trace's governor inputs (RE_GOV) are split like live ones */
		s->skel->rodata->gov_enabled = true;
	} else {
		bpf_program__set_autoload(s->skel->progs.poke, true);
		f = features_get();
		if (o->hist.metric == HM_PATH_LATENCY) {
			if (choose_path_programs(s, o, f, err, errlen)) {
				idlescope_bpf__destroy(s->skel);
				s->skel = NULL;
				return -1;
			}
			s->idle_attach = "fentry";
		} else {
			choose_programs(s, f);
		}
		if (o->hist.metric == HM_NONE) {
			choose_idle_fexit(s, f);
			choose_gov_programs(s, f);
		}
		/* Live sessions count nothing until idle_session_start(). */
		s->skel->bss->start_ns = UINT64_MAX;
	}

	if (live_raw_tp_chosen(s)) {
		snprintf(err, errlen, "internal error: a raw_tp program chosen from the live object");
		idlescope_bpf__destroy(s->skel);
		s->skel = NULL;
		return -1;
	}
	e = idlescope_bpf__load(s->skel) ? errno : 0;
	/* loaded (CO-RE relocated): the parsed kernel BTF is not needed any more */
	features_release_btf();
	release_load_memory();
	if (e) {
		if (e == EPERM && have_bpf_caps())
			snprintf(err, errlen, "the kernel refused a BPF program although CAP_BPF and "
				 "CAP_PERFMON are held (lockdown, or its verifier; -v shows libbpf's log)");
		else if (e == EPERM)
			snprintf(err, errlen, "need CAP_BPF and CAP_PERFMON to load BPF programs (run as root)");
		else if (e == EACCES)
			snprintf(err, errlen, "this kernel's verifier refused a BPF program (-v shows libbpf's log)");
		else
			snprintf(err, errlen, "cannot load the BPF programs: %s (-v shows libbpf's log)",
				 strerror(e));
		idlescope_bpf__destroy(s->skel);
		s->skel = NULL;
		return -1;
	}
	if (s->nr_groups && load_groups(s, o)) {
		snprintf(err, errlen, "cannot write the topology groups: %s", strerror(errno));
		idlescope_bpf__destroy(s->skel);
		s->skel = NULL;
		return -1;
	}
	return 0;
}

int idle_session_set_freq(struct idle_session *s, int cpu, uint32_t khz)
{
	struct freq_cpu f = { .cur_khz = khz };
	uint32_t key = (uint32_t)cpu;

	return bpf_map_update_elem(bpf_map__fd(s->skel->maps.freq_cpus), &key, &f, BPF_ANY);
}

int idle_session_set_params(struct idle_session *s, int cpu, const struct idle_params *p)
{
	uint32_t key = (uint32_t)cpu;

	return bpf_map_update_elem(bpf_map__fd(s->skel->maps.idle_params), &key, p, BPF_ANY);
}

void idle_session_push_cpuidle(struct idle_session *s, const struct cpuidle_system *sys,
			       struct cpuidle_cpu_info *info, struct idle_params *prev, int n,
			       bool all_files)
{
	uint64_t qos = cpuidle_global_qos_ns();

	for (int c = 0; c < n; c++) {
		struct idle_params p;

		if (all_files)
			cpuidle_refresh_cpu(sys, c, &info[c], qos);
		else if (info[c].nr_states)
			cpuidle_apply_qos(&info[c], qos); /* device files: next full pass */
		cpuidle_to_params(&info[c], &p);
		if (s->ledger && info[c].nr_states)
			p.qos_slot = qos_ledger_slot(s->ledger, c, qos, info[c].dev_qos_ns);
		if (memcmp(&p, &prev[c], sizeof(p))) {
			idle_session_set_params(s, c, &p);
			prev[c] = p;
		}
	}
}

static int on_qos_record(void *ctx, void *data, size_t size)
{
	struct idle_session *s = ctx;
	struct qos_event ev = { 0 };

	memcpy(&ev, data, size < sizeof(ev) ? size : sizeof(ev));
	s->qos_pending |= ev.what;
	if (s->ledger)
		qos_ledger_apply(s->ledger, &ev);
	return 0;
}

/* The reader of qos_ring: without it (no memory) the PM QoS limits are
 * polled as before. */
static void open_qos_ring(struct idle_session *s)
{
	s->qos_rb = ring_buffer__new(bpf_map__fd(s->skel->maps.qos_ring), on_qos_record, s, NULL);
	if (!s->qos_rb)
		note_missing(s, "pm_qos_update_target (no ring buffer reader)");
}

int idle_session_qos_fd(const struct idle_session *s)
{
	return s->qos_rb ? ring_buffer__epoll_fd(s->qos_rb) : -1;
}

unsigned int idle_session_qos_changed(struct idle_session *s)
{
	unsigned int changed;

	if (!s->qos_rb)
		return 0;
	s->qos_pending = 0;
	ring_buffer__consume(s->qos_rb);
	changed = s->qos_pending;
	s->qos_pending = 0;
	return changed;
}

uint64_t idle_session_qos_changes(const struct idle_session *s)
{
	return s->skel && s->skel->bss ? s->skel->bss->qos_changes : 0;
}

uint64_t idle_session_qos_lost(const struct idle_session *s)
{
	return s->skel && s->skel->bss ? s->skel->bss->qos_lost : 0;
}

int idle_session_attach(struct idle_session *s, char *err, size_t errlen)
{
	struct bpf_program *p;
	bool qos_attached = false;

	/* One by one: a required failure names its program, an optional one
	 * degrades with a note. */
	bpf_object__for_each_program(p, s->skel->obj) {
		const char *name = bpf_program__name(p);
		struct bpf_link *l;

		if (!bpf_program__autoload(p) || p == s->skel->progs.replay_idle ||
		    p == s->skel->progs.poke)
			continue;
		l = bpf_program__attach(p);
		if (!l && !strncmp(name, "path_", 5)) {
			snprintf(err, errlen, "cannot attach %s to %s: %s (not traceable here?)", name,
				 p == s->skel->progs.path_to_fentry ? s->hist.path_to : s->hist.path_from,
				 strerror(errno));
			return -1;
		}
		if (!l && is_gov_program(s, p)) {
			/* the periods' inputs stay unknown: no split, said */
			snprintf(s->gov_why, sizeof(s->gov_why), "%s: attach failed: %s", name,
				 strerror(errno));
			s->gov = false;
			continue;
		}
		if (!l && p == s->idle_fexit_prog) {
			/* the probe attached, this did not: fall back to tracepoints */
			snprintf(s->idle_fexit_why, sizeof(s->idle_fexit_why),
				 "fexit on %s: attach failed: %s", s->idle_fexit_func, strerror(errno));
			s->idle_fexit_func = NULL;
			s->idle_fexit_prog = NULL;
			continue;
		}
		if (!l) {
			int e = errno;
			const struct event *ev = event_of(p);

			/* the idle events are required; the rest degrade with a note */
			if (!ev || (ev->needed_by & F_IDLE)) {
				snprintf(err, errlen, "cannot attach %s: %s", name, strerror(e));
				return -1;
			}
			if (ev->needed_by & F_MISS)
				s->miss_attach = NULL;
			note_missing(s, ev->name);
			continue;
		}
		if (s->nr_links < IS_MAX_LINKS)
			s->links[s->nr_links++] = l;
		if (event_of(p) && (event_of(p)->needed_by & F_QOS))
			qos_attached = true;
		if (event_of(p) && (event_of(p)->needed_by & F_HOTPLUG))
			s->hotplug_attached = true;
	}
	s->have_idle_miss = s->miss_attach != NULL;
	if (qos_attached)
		open_qos_ring(s);
	if (!s->qos_rb)
		s->hotplug_attached = false;
	return 0;
}

/* 1 when cpu's state is known, 0 when not, -1 when its slot is unreadable;
 * its slot's sequence count in *seq. */
static int cpu_known(struct idle_session *s, uint32_t cpu, uint16_t *seq)
{
	struct idle_cpu_slot slot;

	if (bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.idle_slots), &cpu, &slot))
		return -1;
	if (seq)
		*seq = slot.seq;
	return slot.known != 0;
}

int idle_session_unknown(struct idle_session *s, const struct cpulist *online)
{
	int n = 0, k;

	for (int c = 0; c < s->nr_cpus; c++) {
		if (!cpulist_has(online, c))
			continue;
		if ((k = cpu_known(s, (uint32_t)c, NULL)) < 0)
			return -1;
		n += !k;
	}
	return n;
}

/* An idle CPU's exit and entry follow its IPI within microseconds; a
 * vCPU the host has not run yet may take longer. */
#define POKE_WAIT_NS 100000000ULL

/* The CPUs poked on their idle task whose slot has seen an exit and an
 * entry since (its sequence count moved by 4 from seq[cpu]), marked done. */
static int count_woken(struct idle_session *s, const uint16_t *seq, bool *idle, bool *done)
{
	int n = 0;

	for (int c = 0; c < s->nr_cpus; c++) {
		uint16_t now;

		if (idle[c] && !done[c] && cpu_known(s, (uint32_t)c, &now) >= 0)
			done[c] = (uint16_t)(now - seq[c]) >= 4;
		n += idle[c] && done[c];
	}
	return n;
}

void idle_session_poke(struct idle_session *s, const struct cpulist *online)
{
	int fd = bpf_program__fd(s->skel->progs.poke), idle_poked = 0;
	uint64_t t0 = idle_now_ns(), deadline;
	bool all = env_flag("IDLESCOPE_POKE_ALL");
	uint16_t *seq = calloc((size_t)s->nr_cpus, sizeof(*seq));
	bool *idle = calloc((size_t)s->nr_cpus, 2 * sizeof(*idle)), *done = idle + s->nr_cpus;

	s->poke.why[0] = '\0';
	s->poke.cpus = s->poke.busy = s->poke.woken = 0;
	s->unknown_at_start = -1;
	if (env_flag("IDLESCOPE_NO_POKE"))
		snprintf(s->poke.why, sizeof(s->poke.why), "IDLESCOPE_NO_POKE set");
	else if (!seq || !idle)
		snprintf(s->poke.why, sizeof(s->poke.why), "out of memory");
	for (int c = 0; !s->poke.why[0] && c < s->nr_cpus; c++) {
		LIBBPF_OPTS(bpf_test_run_opts, opts, .flags = BPF_F_TEST_RUN_ON_CPU,
			    .cpu = (uint32_t)c);
		int k;

		if (!cpulist_has(online, c) || (k = cpu_known(s, (uint32_t)c, &seq[c])) < 0 ||
		    (k && !all))
			continue; /* known (or unreadable, which the count says) */
		if (bpf_prog_test_run_opts(fd, &opts)) {
			if (errno == ENXIO)
				continue; /* went offline since the mask was read */
			/* before 5.10 raw_tp programs have no test run on a CPU */
			snprintf(s->poke.why, sizeof(s->poke.why),
				 "BPF_PROG_TEST_RUN on CPU %d: %s", c, strerror(errno));
			break;
		}
		s->poke.cpus++;
		s->poke.busy += opts.retval == 1;
		idle[c] = opts.retval != 1;
		idle_poked += idle[c];
	}
	/* until every CPU's state is known and every CPU poked on its idle
	 * task has left idle and entered it again */
	deadline = idle_now_ns() + POKE_WAIT_NS;
	while (s->poke.cpus && idle_now_ns() < deadline &&
	       ((s->poke.woken = count_woken(s, seq, idle, done)) < idle_poked ||
		idle_session_unknown(s, online) > 0)) {
		struct timespec ts = { 0, 50000 };

		nanosleep(&ts, NULL);
	}
	s->poke.ns = idle_now_ns() - t0;
	free(seq);
	free(idle);
}

void idle_session_edge_from(struct idle_session *s, uint64_t edge_from_ns)
{
	s->skel->bss->edge_from_ns = edge_from_ns;
}

void idle_session_start(struct idle_session *s, uint64_t start_ns)
{
	s->skel->bss->start_ns = start_ns;
}

void idle_session_cut(struct idle_session *s, uint64_t cut_ns)
{
	s->skel->bss->cut_ns = cut_ns;
	/* out of this CPU's store buffer before the cut comes: a handler
	 * whose clock read is past it must see it */
	__sync_synchronize();
}

void idle_session_stop(struct idle_session *s, uint64_t stop_ns)
{
	s->skel->bss->stop_ns = stop_ns;
	s->skel->bss->stopped = 1;
}

void idle_session_close(struct idle_session *s)
{
	ring_buffer__free(s->qos_rb);
	s->qos_rb = NULL;
	for (int i = 0; i < s->nr_links; i++)
		bpf_link__destroy(s->links[i]);
	s->nr_links = 0;
	if (s->skel)
		idlescope_bpf__destroy(s->skel);
	s->skel = NULL;
}
