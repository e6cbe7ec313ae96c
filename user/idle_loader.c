/* Skeleton lifecycle for bpf/idle.bpf.c: probe, choose variants with
 * autoload, size maps, attach, snapshot. */
#include "idle_loader.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "idle.skel.h"

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

/* tp_btf needs the tracepoint's btf_trace_<name> typedef in vmlinux BTF. */
static bool btf_has_tracepoint(const struct btf *vmlinux, const char *tp)
{
	char name[128];

	if (!vmlinux)
		return false;
	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	return btf__find_by_name_kind(vmlinux, name, BTF_KIND_TYPEDEF) > 0;
}

static bool tracefs_has_event(const char *group, const char *event)
{
	static const char *roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char path[256];

	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		snprintf(path, sizeof(path), "%s/events/%s/%s", roots[i], group, event);
		if (access(path, F_OK) == 0)
			return true;
	}
	return false;
}

static void set_autoload_all(struct idle_bpf *skel, bool on)
{
	struct bpf_program *p;

	bpf_object__for_each_program(p, skel->obj)
		bpf_program__set_autoload(p, on);
}

int idle_session_open(struct idle_session *s, int nr_cpus, bool replay, char *err, size_t errlen)
{
	struct btf *vmlinux = NULL;
	bool tp_btf;
	int e;

	memset(s, 0, sizeof(*s));
	s->nr_cpus = nr_cpus;
	s->replay = replay;
	if (!libbpf_get_error(NULL))
		libbpf_set_print(libbpf_print);
	s->skel = idle_bpf__open();
	if (!s->skel) {
		snprintf(err, errlen, "cannot open the BPF object: %s", strerror(errno));
		return -1;
	}
	bpf_map__set_max_entries(s->skel->maps.idle_slots, (uint32_t)nr_cpus);
	bpf_map__set_max_entries(s->skel->maps.idle_params, (uint32_t)nr_cpus);
	bpf_map__set_max_entries(s->skel->maps.idle_stats, (uint32_t)nr_cpus * IS_MAX_STATES);

	set_autoload_all(s->skel, false);
	if (replay) {
		bpf_program__set_autoload(s->skel->progs.replay_idle, true);
	} else {
		vmlinux = btf__load_vmlinux_btf();
		if (libbpf_get_error(vmlinux))
			vmlinux = NULL;
		tp_btf = vmlinux && !env_set("IDLESCOPE_NO_TP_BTF");
		s->idle_attach = tp_btf ? "tp_btf" : "raw_tp";
		bpf_program__set_autoload(tp_btf ? s->skel->progs.tp_btf_cpu_idle
						 : s->skel->progs.raw_tp_cpu_idle, true);
		if (env_set("IDLESCOPE_NO_IDLE_MISS")) {
			s->miss_attach = NULL;
		} else if (tp_btf && btf_has_tracepoint(vmlinux, "cpu_idle_miss")) {
			s->miss_attach = "tp_btf";
			bpf_program__set_autoload(s->skel->progs.tp_btf_cpu_idle_miss, true);
		} else if (!tp_btf && (btf_has_tracepoint(vmlinux, "cpu_idle_miss") ||
				       tracefs_has_event("power", "cpu_idle_miss"))) {
			s->miss_attach = "raw_tp";
			bpf_program__set_autoload(s->skel->progs.raw_tp_cpu_idle_miss, true);
		}
		btf__free(vmlinux);
	}

	/* Live sessions count nothing until idle_session_start(). */
	if (!replay)
		s->skel->bss->start_ns = UINT64_MAX;

	if (idle_bpf__load(s->skel)) {
		e = errno;
		if (e == EPERM || e == EACCES)
			snprintf(err, errlen, "need CAP_BPF and CAP_PERFMON to load BPF programs (run as root)");
		else
			snprintf(err, errlen, "cannot load the BPF programs: %s (-v shows libbpf's log)",
				 strerror(e));
		idle_bpf__destroy(s->skel);
		s->skel = NULL;
		return -1;
	}
	return 0;
}

int idle_session_set_params(struct idle_session *s, int cpu, const struct idle_params *p)
{
	uint32_t key = (uint32_t)cpu;

	return bpf_map_update_elem(bpf_map__fd(s->skel->maps.idle_params), &key, p, BPF_ANY);
}

int idle_session_attach(struct idle_session *s, char *err, size_t errlen)
{
	struct bpf_program *p;

	/* Attach one by one so a failure names the program. */
	bpf_object__for_each_program(p, s->skel->obj) {
		struct bpf_link *l;

		if (!bpf_program__autoload(p) || p == s->skel->progs.replay_idle)
			continue;
		l = bpf_program__attach(p);
		if (!l) {
			int e = errno;

			if (p == s->skel->progs.tp_btf_cpu_idle_miss ||
			    p == s->skel->progs.raw_tp_cpu_idle_miss) {
				s->miss_attach = NULL; /* optional: degrade */
				continue;
			}
			snprintf(err, errlen, "cannot attach %s: %s", bpf_program__name(p), strerror(e));
			return -1;
		}
		/* The skeleton destroys links it knows; keep ours in the same place. */
		if (p == s->skel->progs.tp_btf_cpu_idle)
			s->skel->links.tp_btf_cpu_idle = l;
		else if (p == s->skel->progs.raw_tp_cpu_idle)
			s->skel->links.raw_tp_cpu_idle = l;
		else if (p == s->skel->progs.tp_btf_cpu_idle_miss)
			s->skel->links.tp_btf_cpu_idle_miss = l;
		else if (p == s->skel->progs.raw_tp_cpu_idle_miss)
			s->skel->links.raw_tp_cpu_idle_miss = l;
		else
			bpf_link__destroy(l);
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
}

int idle_session_read(struct idle_session *s, struct idle_raw *out)
{
	int slots_fd = bpf_map__fd(s->skel->maps.idle_slots);
	int stats_fd = bpf_map__fd(s->skel->maps.idle_stats);

	memset(out, 0, sizeof(*out));
	out->nr_cpus = s->nr_cpus;
	out->slots = calloc((size_t)s->nr_cpus, sizeof(*out->slots));
	out->stats = calloc((size_t)s->nr_cpus * IS_MAX_STATES, sizeof(*out->stats));
	if (!out->slots || !out->stats) {
		idle_raw_free(out);
		return -ENOMEM;
	}
	for (uint32_t c = 0; c < (uint32_t)s->nr_cpus; c++) {
		if (bpf_map_lookup_elem(slots_fd, &c, &out->slots[c]))
			return -errno;
		for (uint32_t i = 0; i < IS_MAX_STATES; i++) {
			uint32_t key = c * IS_MAX_STATES + i;

			if (bpf_map_lookup_elem(stats_fd, &key, &out->stats[key]))
				return -errno;
		}
	}
	out->cpu_out_of_range = s->skel->bss->cpu_out_of_range;
	return 0;
}

void idle_raw_free(struct idle_raw *r)
{
	free(r->slots);
	free(r->stats);
	r->slots = NULL;
	r->stats = NULL;
}

void idle_session_close(struct idle_session *s)
{
	if (s->skel)
		idle_bpf__destroy(s->skel);
	s->skel = NULL;
}

int idle_session_replay(struct idle_session *s, const struct replay_event *ev)
{
	struct replay_event copy = *ev;
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = &copy, .ctx_size_in = sizeof(copy));
	int err;

	err = bpf_prog_test_run_opts(bpf_program__fd(s->skel->progs.replay_idle), &opts);
	if (err)
		return -errno;
	return (int)opts.retval;
}
