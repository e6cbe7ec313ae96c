/* Skeleton lifecycle for bpf/idlescope.bpf.c: probe each event, pick tp_btf
 * or raw_tp with autoload, size the per-CPU maps, attach, snapshot. */
#include "session/idle_loader.h"

#include <errno.h>
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
#include "util/fdlimit.h"
#include "session/kernel_features.h"
#include "idlescope.skel.h"
#include "idlescope_nofetch.skel.h"

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

uint64_t idle_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static bool env_set(const char *name)
{
	const char *v = getenv(name);

	return v && *v && strcmp(v, "0");
}

/* The events, in the order they attach. */
enum ev_group { EV_IDLE, EV_MISS, EV_WAKE, EV_SCHED, EV_FREQ };
static const struct event {
	const char *name;
	enum ev_group group;
	const char *arch; /* NULL: every arch */
} events[] = {
	{ "cpu_idle", EV_IDLE, NULL },
	{ "cpu_idle_miss", EV_MISS, NULL },
	{ "cpu_frequency", EV_FREQ, NULL },
	{ "local_timer_entry", EV_WAKE, "x86" },
	{ "reschedule_entry", EV_WAKE, "x86" },
	{ "call_function_entry", EV_WAKE, "x86" },
	{ "call_function_single_entry", EV_WAKE, "x86" },
	{ "irq_work_entry", EV_WAKE, "x86" },
	{ "x86_platform_ipi_entry", EV_WAKE, "x86" },
	{ "thermal_apic_entry", EV_WAKE, "x86" },
	{ "irq_handler_entry", EV_WAKE, NULL },
	{ "softirq_entry", EV_WAKE, NULL },
	{ "hrtimer_expire_entry", EV_WAKE, NULL },
	{ "sched_wakeup", EV_WAKE, NULL },
	{ "sched_waking", EV_SCHED, NULL },
	{ "sched_wakeup_new", EV_SCHED, NULL },
	{ "sched_switch", EV_SCHED, NULL },
	{ "sched_migrate_task", EV_SCHED, NULL },
	{ "sched_overutilized_tp", EV_SCHED, NULL },
	{ "pelt_cfs_tp", EV_SCHED, NULL },
	{ "sched_wake_idle_without_ipi", EV_WAKE, NULL },
	{ "ipi_send_cpu", EV_WAKE, NULL },
};

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

static bool wanted(const struct idle_session *s, const struct event *e)
{
	uint32_t m = s->hist_metric;

	if (e->group == EV_MISS)
		return s->hist_metric == HM_NONE && !env_set("IDLESCOPE_NO_IDLE_MISS");
	if (e->group == EV_FREQ)
		return s->freq;
	if (!strcmp(e->name, "sched_wakeup"))
		return s->wake || s->packing || m == HM_RUNQ_LATENCY || m == HM_WAKEUP_LATENCY;
	if (!strcmp(e->name, "sched_wakeup_new"))
		return m == HM_RUNQ_LATENCY;
	if (!strcmp(e->name, "sched_waking"))
		return m == HM_WAKEUP_LATENCY || s->packing;
	if (!strcmp(e->name, "sched_switch"))
		return m == HM_WAKEUP_LATENCY || m == HM_RUNQ_LATENCY || m == HM_IDLE_ENTRY ||
		       m == HM_IDLE_EXIT || s->packing;
	if (!strcmp(e->name, "sched_migrate_task") || !strcmp(e->name, "sched_overutilized_tp") ||
	    !strcmp(e->name, "pelt_cfs_tp"))
		return s->packing;
	if (e->group == EV_WAKE)
		return s->wake;
	return true;
}

/* Chooses tp_btf or raw_tp for each wanted event this kernel has (the shared
 * probe, kernel_features.c, says which exist). */
static void choose_programs(struct idle_session *s, const struct kernel_features *f)
{
	s->idle_attach = f->tp_btf ? "tp_btf" : "raw_tp";
	for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++) {
		const struct event *e = &events[i];
		bool have;

		if (!wanted(s, e))
			continue;
#if defined(__x86_64__)
		if (e->arch && strcmp(e->arch, "x86"))
			continue;
#else
		if (e->arch && !strcmp(e->arch, "x86"))
			continue;
#endif
		have = features_has_event(e->name);
		if (e->group == EV_IDLE)
			have = true; /* required: attach reports the error */
		if (!have) {
			note_missing(s, e->name);
			continue;
		}
		if (e->group == EV_MISS)
			s->miss_attach = s->idle_attach;
		bpf_program__set_autoload(prog_for(s->skel, !strcmp(e->name, "hrtimer_expire_entry") &&
							    !f->tp_btf_scalar_ptr ? "raw_tp" : s->idle_attach,
						   e->name),
					  true);
	}
}

/* record: the exact idle outcome through fexit where the probe attached one,
 * else the tracepoints alone (idle_fexit_why says why). */
static void choose_idle_fexit(struct idle_session *s, const struct kernel_features *f)
{
	struct bpf_program *p = NULL;

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

/* hist path-latency: fentry on --from and --to, fexit on --from. Refused
 * here, before any load, when fentry is not allowed or a function is not in
 * BTF. */
static int choose_path_programs(struct idle_session *s, const struct session_opts *o,
				const struct kernel_features *f, char *err, size_t errlen)
{
	const char *fn[2] = { o->path_from, o->path_to };

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
	if (bpf_program__set_attach_target(s->skel->progs.path_from_fentry, 0, o->path_from) ||
	    bpf_program__set_attach_target(s->skel->progs.path_from_fexit, 0, o->path_from) ||
	    bpf_program__set_attach_target(s->skel->progs.path_to_fentry, 0, o->path_to)) {
		snprintf(err, errlen, "cannot target %s/%s: %s", o->path_from, o->path_to,
			 strerror(errno));
		return -1;
	}
	bpf_program__set_autoload(s->skel->progs.path_from_fentry, true);
	bpf_program__set_autoload(s->skel->progs.path_from_fexit, true);
	bpf_program__set_autoload(s->skel->progs.path_to_fentry, true);
	return 0;
}

/* Membership into group_of / group_members (before attach: the counters
 * start at zero with every CPU assumed busy). */
static int load_groups(struct idle_session *s, const struct session_opts *o)
{
	int of_fd = bpf_map__fd(s->skel->maps.group_of);
	int mem_fd = bpf_map__fd(s->skel->maps.group_members);

	for (uint32_t c = 0; c < (uint32_t)s->nr_cpus; c++) {
		uint32_t g = o->group_of[c] < 0 ? IS_NO_GROUP : (uint32_t)o->group_of[c];

		if (bpf_map_update_elem(of_fd, &c, &g, BPF_ANY))
			return -1;
	}
	for (uint32_t g = 0; g < (uint32_t)o->nr_groups; g++) {
		struct group_members m = { 0 };
		struct group_slot gs = { 0 };

		for (int c = 0; c < s->nr_cpus; c++) {
			if (!cpulist_has(&o->group_cpus[g], c))
				continue;
			if (m.nr_cpus < IS_GROUP_MAX_CPUS)
				m.cpus[m.nr_cpus] = (uint32_t)c;
			m.nr_cpus++; /* all members count; the first 64 give the state */
		}
		gs.nr_cpus = m.nr_cpus;
		if (bpf_map_update_elem(mem_fd, &g, &m, BPF_ANY) ||
		    bpf_map_update_elem(bpf_map__fd(s->skel->maps.group_slots), &g, &gs, BPF_ANY))
			return -1;
	}
	/* each CPU's slot carries its group, read on every idle event */
	for (uint32_t c = 0; c < (uint32_t)s->nr_cpus; c++) {
		struct idle_cpu_slot slot = { 0 };

		slot.group_id1 = o->group_of[c] < 0 ? 0 : (uint32_t)o->group_of[c] + 1;
		if (bpf_map_update_elem(bpf_map__fd(s->skel->maps.idle_slots), &c, &slot, BPF_ANY))
			return -1;
	}
	if (o->packing) {
		/* every grouped CPU counts as busy until its first idle entry */
		struct pack_global pg = { 0 };
		uint32_t zero = 0, cpus = 0;

		for (int c = 0; c < s->nr_cpus; c++)
			cpus += o->group_of[c] >= 0;
		pg.word = PACK_WORD((uint64_t)o->nr_groups, (uint64_t)cpus, 0);
		if (bpf_map_update_elem(bpf_map__fd(s->skel->maps.pack_global), &zero, &pg, BPF_ANY))
			return -1;
	}
	return 0;
}

/* The skeleton over the object this kernel can load: the default one, or
 * before 5.12 the build without atomic fetch ops, whose maps, programs and
 * globals are the same (checked: the skeleton maps the globals by layout). */
static struct idlescope_bpf *open_skeleton(bool nofetch)
{
	struct idlescope_bpf *obj;
	int err;

	if (!nofetch)
		return idlescope_bpf__open();
	obj = calloc(1, sizeof(*obj));
	if (!obj)
		return NULL;
	err = idlescope_bpf__create_skeleton(obj);
	if (!err) {
		obj->skeleton->data = (void *)idlescope_nofetch_bpf__elf_bytes(&obj->skeleton->data_sz);
		err = bpf_object__open_skeleton(obj->skeleton, NULL);
	}
	if (!err) {
		/* the globals must lie where the default object's do */
		size_t sz;
		const void *bytes = idlescope_bpf__elf_bytes(&sz);
		struct bpf_object *def = bpf_object__open_mem(bytes, sz, NULL);
		struct bpf_map *ro = def ? bpf_object__find_map_by_name(def, ".rodata") : NULL;
		struct bpf_map *bss = def ? bpf_object__find_map_by_name(def, ".bss") : NULL;

		if (!ro || !bss || bpf_map__value_size(ro) != bpf_map__value_size(obj->maps.rodata) ||
		    bpf_map__value_size(bss) != bpf_map__value_size(obj->maps.bss))
			err = -EINVAL;
		bpf_object__close(def);
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

int idle_session_open(struct idle_session *s, int nr_cpus, const struct session_opts *o,
		      char *err, size_t errlen)
{
	const struct kernel_features *f;
	struct bpf_program *p;
	int e;

	memset(s, 0, sizeof(*s));
	s->nr_cpus = nr_cpus;
	s->replay = o->replay;
	s->wake = o->wake || (o->replay && o->hist_metric == HM_NONE) ||
		  o->hist_metric == HM_EXIT_LATENCY;
	s->hist_metric = o->hist_metric;
	s->path_from = o->path_from;
	s->path_to = o->path_to;
	libbpf_set_print(libbpf_print);
	fdlimit_raise();
	/* replay runs on the analysing machine's kernel too */
	s->skel = open_skeleton(!o->replay ? features_lack_atomic_fetch() : false);
	if (!s->skel) {
		snprintf(err, errlen, "cannot open the BPF object: %s", strerror(errno));
		return -1;
	}
	bpf_map__set_max_entries(s->skel->maps.idle_slots, (uint32_t)nr_cpus);
	bpf_map__set_max_entries(s->skel->maps.idle_params, (uint32_t)nr_cpus);
	s->state_slots = o->state_slots > 0 && o->state_slots < IS_MAX_STATES ?
			 (uint32_t)o->state_slots : IS_MAX_STATES;
	/* wakeup-latency keeps its parts in the state dimension of hist_data */
	if (o->hist_metric == HM_WAKEUP_LATENCY && s->state_slots < WP_NR_PARTS)
		s->state_slots = WP_NR_PARTS;
	s->skel->rodata->state_slots = s->state_slots;
	bpf_map__set_max_entries(s->skel->maps.idle_stats, (uint32_t)nr_cpus * s->state_slots);
	bpf_map__set_max_entries(s->skel->maps.wake_stats, (uint32_t)nr_cpus);
	bpf_map__set_max_entries(s->skel->maps.wake_lat, (uint32_t)nr_cpus * s->state_slots);
	/* bounded per CPU: memory linear in CPUs, not in run length */
	bpf_map__set_max_entries(s->skel->maps.wake_details,
				 (uint32_t)nr_cpus * IS_WAKE_DETAILS_PER_CPU);
	bpf_map__set_max_entries(s->skel->maps.wake_detail_last, (uint32_t)nr_cpus * WDETAIL_NR);
	/* maps of features not asked for shrink to one entry: memory stays
	 * what this run needs */
	bpf_map__set_max_entries(s->skel->maps.hist_data,
				 o->hist_metric ? (uint32_t)nr_cpus * s->state_slots : 1);
	bpf_map__set_max_entries(s->skel->maps.path_cpus,
				 o->hist_metric == HM_PATH_LATENCY ? (uint32_t)nr_cpus : 1);
	if (o->hist_metric != HM_WAKEUP_LATENCY && o->hist_metric != HM_RUNQ_LATENCY)
		bpf_map__set_max_entries(s->skel->maps.task_ts, 1);
	if (!(o->wake || o->replay || o->hist_metric == HM_EXIT_LATENCY)) {
		bpf_map__set_max_entries(s->skel->maps.wake_details, 1);
		bpf_map__set_max_entries(s->skel->maps.wake_detail_last, 1);
		bpf_map__set_max_entries(s->skel->maps.wake_lat, 1);
		bpf_map__set_max_entries(s->skel->maps.wake_stats, 1);
	}
	s->freq = o->freq || o->replay;
	bpf_map__set_max_entries(s->skel->maps.freq_cpus, s->freq ? (uint32_t)nr_cpus : 1);
	bpf_map__set_max_entries(s->skel->maps.replay_batch, o->replay ? IS_REPLAY_BATCH : 1);
	if (!o->packing) {
		bpf_map__set_max_entries(s->skel->maps.pack_tasks, 1);
		bpf_map__set_max_entries(s->skel->maps.pack_wakers, 1);
	}
	s->nr_groups = o->nr_groups;
	if (o->nr_groups && !o->replay && features_lack_atomic_fetch()) {
		snprintf(err, errlen, "group rows need BPF atomic fetch ops (kernel 5.12+)");
		idlescope_bpf__destroy(s->skel);
		s->skel = NULL;
		return -1;
	}
	if (o->nr_groups) {
		bpf_map__set_max_entries(s->skel->maps.group_of, (uint32_t)nr_cpus);
		bpf_map__set_max_entries(s->skel->maps.group_members, (uint32_t)o->nr_groups);
		bpf_map__set_max_entries(s->skel->maps.group_slots, (uint32_t)o->nr_groups);
		bpf_map__set_max_entries(s->skel->maps.group_stats, (uint32_t)o->nr_groups);
		s->skel->rodata->groups_enabled = true;
		s->packing = o->packing;
		s->skel->rodata->packing_enabled = o->packing;
		for (int g = 0; g < o->nr_groups; g++)
			if ((uint32_t)cpulist_count(&o->group_cpus[g]) >
			    s->skel->rodata->pack_max_group_cpus)
				s->skel->rodata->pack_max_group_cpus =
					(uint32_t)cpulist_count(&o->group_cpus[g]);
	}
	s->skel->rodata->wake_enabled = s->wake;
	s->skel->rodata->hist_metric = o->hist_metric;
	if (o->hist_unit_ns)
		s->skel->rodata->hist_unit_ns = o->hist_unit_ns;
	s->skel->rodata->hist_linear_ns = o->hist_linear_ns;
	s->skel->rodata->targ_tgid = o->tgid;
	if (o->comm) {
		s->skel->rodata->filter_comm = true;
		strncpy((char *)s->skel->rodata->targ_comm, o->comm,
			sizeof(s->skel->rodata->targ_comm) - 1);
	}

	bpf_object__for_each_program(p, s->skel->obj)
		bpf_program__set_autoload(p, false);
	if (s->replay) {
		bpf_program__set_autoload(s->skel->progs.replay_idle, true);
		bpf_program__set_autoload(s->skel->progs.replay_idle_batch, true);
	} else {
		f = features_get();
		if (o->hist_metric == HM_PATH_LATENCY) {
			if (choose_path_programs(s, o, f, err, errlen)) {
				idlescope_bpf__destroy(s->skel);
				s->skel = NULL;
				return -1;
			}
			s->idle_attach = "fentry";
		} else {
			choose_programs(s, f);
		}
		if (o->hist_metric == HM_NONE)
			choose_idle_fexit(s, f);
		/* Live sessions count nothing until idle_session_start(). */
		s->skel->bss->start_ns = UINT64_MAX;
	}

	e = idlescope_bpf__load(s->skel) ? errno : 0;
	/* loaded (CO-RE relocated): the parsed kernel BTF is not needed any more */
	features_release_btf();
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
	if (s->replay) {
		s->batch_len = IS_REPLAY_BATCH * sizeof(struct replay_event);
		s->batch = mmap(NULL, s->batch_len, PROT_READ | PROT_WRITE, MAP_SHARED,
				bpf_map__fd(s->skel->maps.replay_batch), 0);
		if (s->batch == MAP_FAILED) {
			snprintf(err, errlen, "cannot map the replay batch: %s", strerror(errno));
			s->batch = NULL;
			idlescope_bpf__destroy(s->skel);
			s->skel = NULL;
			return -1;
		}
	}
	if (o->nr_groups && load_groups(s, o)) {
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
		if (memcmp(&p, &prev[c], sizeof(p))) {
			idle_session_set_params(s, c, &p);
			prev[c] = p;
		}
	}
}

int idle_session_attach(struct idle_session *s, char *err, size_t errlen)
{
	struct bpf_program *p;

	/* One by one: a required failure names its program, an optional one
	 * degrades with a note. */
	bpf_object__for_each_program(p, s->skel->obj) {
		const char *name = bpf_program__name(p);
		struct bpf_link *l;

		if (!bpf_program__autoload(p) || p == s->skel->progs.replay_idle)
			continue;
		l = bpf_program__attach(p);
		if (!l && !strncmp(name, "path_", 5)) {
			snprintf(err, errlen, "cannot attach %s to %s: %s (not traceable here?)", name,
				 p == s->skel->progs.path_to_fentry ? s->path_to : s->path_from,
				 strerror(errno));
			return -1;
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
			const char *event = strchr(name + strlen("raw_tp"), '_') + 1;

			if (strstr(name, "_cpu_idle") && !strstr(name, "cpu_idle_miss")) {
				snprintf(err, errlen, "cannot attach %s: %s", name, strerror(e));
				return -1;
			}
			if (strstr(name, "cpu_idle_miss"))
				s->miss_attach = NULL;
			note_missing(s, event);
			continue;
		}
		if (s->nr_links < IS_MAX_LINKS)
			s->links[s->nr_links++] = l;
	}
	s->have_idle_miss = s->miss_attach != NULL;
	return 0;
}

void idle_session_start(struct idle_session *s, uint64_t start_ns)
{
	s->skel->bss->start_ns = start_ns;
}

void idle_session_stop(struct idle_session *s, uint64_t stop_ns)
{
	s->skel->bss->stop_ns = stop_ns;
	s->skel->bss->stopped = 1;
}

void *idle_calloc(size_t n, size_t size)
{
	size_t bytes;
	void *p;

	if (size && n > SIZE_MAX / size)
		return NULL;
	bytes = (n * size + 63) / 64 * 64;
	p = aligned_alloc(64, bytes ? bytes : 64);
	if (p)
		memset(p, 0, bytes);
	return p;
}

static int read_array(int fd, uint32_t n, void *out, size_t value_size)
{
	for (uint32_t k = 0; k < n; k++)
		if (bpf_map_lookup_elem(fd, &k, (char *)out + k * value_size))
			return -errno;
	return 0;
}

/* A per-state map (stride state_slots) into the [cpu * IS_MAX_STATES + state]
 * layout the rest of the program uses; deeper states stay zero. */
static int read_state_array(const struct idle_session *s, int fd, void *out, size_t value_size)
{
	for (uint32_t c = 0; c < (uint32_t)s->nr_cpus; c++)
		for (uint32_t i = 0; i < s->state_slots; i++) {
			uint32_t k = c * s->state_slots + i;

			if (bpf_map_lookup_elem(fd, &k,
						(char *)out + (c * IS_MAX_STATES + i) * value_size))
				return -errno;
		}
	return 0;
}

static struct wake_detail *detail_append(struct idle_raw *out, int *cap)
{
	struct wake_detail *d;

	if (out->nr_details == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		d = realloc(out->details, (size_t)*cap * sizeof(*d));
		if (!d)
			return NULL;
		out->details = d;
	}
	return &out->details[out->nr_details];
}

/* Adds a CPU's last detail of one kind, not in the table yet, to what was
 * read from the table. */
static int detail_merge_last(struct idle_raw *out, int *cap, const struct wake_detail *last)
{
	struct wake_detail *d;

	for (int i = 0; i < out->nr_details; i++) {
		d = &out->details[i];
		if (!memcmp(&d->key, &last->key, sizeof(d->key))) {
			d->val.count += last->val.count;
			d->val.early += last->val.early;
			memcpy(d->val.comm, last->val.comm, sizeof(d->val.comm)); /* the newer */
			return 0;
		}
	}
	if (!(d = detail_append(out, cap)))
		return -ENOMEM;
	*d = *last;
	out->nr_details++;
	return 0;
}

/* The per-CPU last-detail slots; -errno on failure. */
static int read_last_slots(struct idle_session *s, struct wake_detail *last, uint32_t n)
{
	int fd = bpf_map__fd(s->skel->maps.wake_detail_last);

	for (uint32_t k = 0; k < n; k++)
		if (bpf_map_lookup_elem(fd, &k, &last[k]))
			return -errno;
	return 0;
}

/* Counts move from a last slot to the table only when its key changes: if
 * no key changed around the table read, the slots read after it hold
 * exactly what the table lacks. Live readers (top, intervals) retry the
 * rare read a move overlapped; once the handlers stopped it is exact. */
static int read_details(struct idle_session *s, struct idle_raw *out)
{
	int fd = bpf_map__fd(s->skel->maps.wake_details);
	uint32_t n = (uint32_t)s->nr_cpus * WDETAIL_NR;
	struct wake_detail *before, *after;
	int cap = 0, err = 0;

	before = calloc(n, sizeof(*before));
	after = calloc(n, sizeof(*after));
	if (!before || !after) {
		err = -ENOMEM;
		goto out;
	}
	for (int attempt = 0; attempt < 3; attempt++) {
		struct wake_detail_key key, next, *prev = NULL;
		bool moved = false;

		out->nr_details = 0;
		if ((err = read_last_slots(s, before, n)))
			goto out;
		while (bpf_map_get_next_key(fd, prev, &next) == 0) {
			struct wake_detail *d = detail_append(out, &cap);

			if (!d) {
				err = -ENOMEM;
				goto out;
			}
			d->key = next;
			if (bpf_map_lookup_elem(fd, &next, &d->val) == 0)
				out->nr_details++;
			key = next;
			prev = &key;
		}
		if ((err = read_last_slots(s, after, n)))
			goto out;
		for (uint32_t k = 0; k < n && !moved; k++)
			moved = memcmp(&before[k].key, &after[k].key, sizeof(before[k].key)) ||
				after[k].val.count < before[k].val.count;
		if (!moved)
			break;
	}
	for (uint32_t k = 0; k < n; k++)
		if (after[k].val.count && (err = detail_merge_last(out, &cap, &after[k])))
			goto out;
out:
	free(before);
	free(after);
	return err;
}

static int read_groups(struct idle_session *s, struct idle_raw *out)
{
	uint32_t n = (uint32_t)s->nr_groups;

	if (!n)
		return 0;
	out->groups = idle_calloc(n, sizeof(*out->groups));
	out->group_slots = idle_calloc(n, sizeof(*out->group_slots));
	if (!out->groups || !out->group_slots)
		return -ENOMEM;
	out->nr_groups = s->nr_groups;
	if (read_array(bpf_map__fd(s->skel->maps.group_stats), n, out->groups, sizeof(*out->groups)))
		return -errno;
	if (s->packing) {
		int fd = bpf_map__fd(s->skel->maps.pack_tasks);
		struct pack_task_key key, next, *prev = NULL;
		uint32_t zero = 0;
		int cap = 0;

		if (bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.pack_global), &zero, &out->pack))
			return -errno;
		out->have_pack = true;
		while (bpf_map_get_next_key(fd, prev, &next) == 0) {
			if (out->nr_pack_tasks == cap) {
				void *k, *v;

				cap = cap ? 2 * cap : 64;
				k = realloc(out->pack_keys, (size_t)cap * sizeof(*out->pack_keys));
				v = k ? realloc(out->pack_vals, (size_t)cap * sizeof(*out->pack_vals)) : NULL;
				if (k)
					out->pack_keys = k;
				if (!v)
					return -ENOMEM;
				out->pack_vals = v;
			}
			if (!bpf_map_lookup_elem(fd, &next, &out->pack_vals[out->nr_pack_tasks]))
				out->pack_keys[out->nr_pack_tasks++] = next;
			key = next;
			prev = &key;
		}
	}
	return read_array(bpf_map__fd(s->skel->maps.group_slots), n, out->group_slots,
			  sizeof(*out->group_slots));
}

static int read_freq(struct idle_session *s, struct idle_raw *out)
{
	out->freq = idle_calloc((size_t)s->nr_cpus, sizeof(*out->freq));
	if (!out->freq)
		return -ENOMEM;
	return read_array(bpf_map__fd(s->skel->maps.freq_cpus), (uint32_t)s->nr_cpus, out->freq,
			  sizeof(*out->freq));
}

int idle_session_read(struct idle_session *s, struct idle_raw *out)
{
	uint32_t n = (uint32_t)s->nr_cpus;
	int err;

	memset(out, 0, sizeof(*out));
	out->nr_cpus = s->nr_cpus;
	out->slots = idle_calloc(n, sizeof(*out->slots));
	out->stats = idle_calloc((size_t)n * IS_MAX_STATES, sizeof(*out->stats));
	out->wake = idle_calloc(n, sizeof(*out->wake));
	out->lat = idle_calloc((size_t)n * IS_MAX_STATES, sizeof(*out->lat));
	if (!out->slots || !out->stats || !out->wake || !out->lat) {
		idle_raw_free(out);
		return -ENOMEM;
	}
	if ((err = read_array(bpf_map__fd(s->skel->maps.idle_slots), n, out->slots,
			      sizeof(*out->slots))) ||
	    (err = read_state_array(s, bpf_map__fd(s->skel->maps.idle_stats), out->stats,
				    sizeof(*out->stats))) ||
	    (s->wake && (err = read_array(bpf_map__fd(s->skel->maps.wake_stats), n, out->wake,
					  sizeof(*out->wake)))) ||
	    (s->wake && (err = read_state_array(s, bpf_map__fd(s->skel->maps.wake_lat), out->lat,
						sizeof(*out->lat)))) ||
	    (s->wake && (err = read_details(s, out))) || (err = read_groups(s, out)) ||
	    (s->freq && (err = read_freq(s, out)))) {
		idle_raw_free(out);
		return err;
	}
	out->cpu_out_of_range = s->skel->bss->cpu_out_of_range;
	return 0;
}

int idle_session_read_stats(struct idle_session *s, struct idle_raw *out)
{
	uint32_t n = (uint32_t)s->nr_cpus;
	int err;

	memset(out, 0, sizeof(*out));
	out->nr_cpus = s->nr_cpus;
	out->stats = idle_calloc((size_t)n * IS_MAX_STATES, sizeof(*out->stats));
	if (!out->stats)
		return -ENOMEM;
	if ((err = read_state_array(s, bpf_map__fd(s->skel->maps.idle_stats), out->stats,
				    sizeof(*out->stats)))) {
		idle_raw_free(out);
		return err;
	}
	return 0;
}

int idle_session_read_hist(struct idle_session *s, struct hist_slot *out, bool reset)
{
	int fd = bpf_map__fd(s->skel->maps.hist_data);
	int err = read_state_array(s, fd, out, sizeof(*out));
	static const struct hist_slot zero;

	/* Zeroing races with handlers adding to the slot (lost counts of one
	 * update at most); libbpf-tools clear the same way. */
	for (uint32_t c = 0; !err && reset && c < (uint32_t)s->nr_cpus; c++)
		for (uint32_t i = 0; !err && i < s->state_slots; i++) {
			uint32_t k = c * s->state_slots + i;

			if (out[c * IS_MAX_STATES + i].count &&
			    bpf_map_update_elem(fd, &k, &zero, BPF_ANY))
				err = -errno;
		}
	return err;
}

void idle_raw_free(struct idle_raw *r)
{
	free(r->slots);
	free(r->stats);
	free(r->wake);
	free(r->lat);
	free(r->details);
	free(r->groups);
	free(r->group_slots);
	free(r->freq);
	r->freq = NULL;
	free(r->pack_keys);
	free(r->pack_vals);
	r->pack_keys = NULL;
	r->pack_vals = NULL;
	r->nr_pack_tasks = 0;
	r->groups = NULL;
	r->group_slots = NULL;
	r->nr_groups = 0;
	r->slots = NULL;
	r->stats = NULL;
	r->wake = NULL;
	r->lat = NULL;
	r->details = NULL;
	r->nr_details = 0;
}

void idle_session_close(struct idle_session *s)
{
	for (int i = 0; i < s->nr_links; i++)
		bpf_link__destroy(s->links[i]);
	s->nr_links = 0;
	if (s->batch)
		munmap(s->batch, s->batch_len);
	s->batch = NULL;
	if (s->skel)
		idlescope_bpf__destroy(s->skel);
	s->skel = NULL;
}

int idle_session_read_path(struct idle_session *s, struct path_cpu *sum)
{
	int fd = bpf_map__fd(s->skel->maps.path_cpus);

	memset(sum, 0, sizeof(*sum));
	for (uint32_t c = 0; c < (uint32_t)s->nr_cpus; c++) {
		struct path_cpu p;

		if (bpf_map_lookup_elem(fd, &c, &p))
			return -errno;
		sum->unmatched_to += p.unmatched_to;
		sum->replaced += p.replaced;
		sum->overflow += p.overflow;
		sum->depth += p.depth; /* FROMs still pending at the end */
	}
	return 0;
}
