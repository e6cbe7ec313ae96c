/* Kernel feature probes: BTF lookups for tracepoints and functions, and tiny
 * raw BPF programs for what only the verifier or an attach can tell (atomic
 * fetch ops, fentry/fexit). Probed once; the loader and `info` share it. */
#include "session/kernel_features.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "util/env_flag.h"

static struct kernel_features feat;
static bool probed;
static struct btf *vmlinux;
static bool vmlinux_failed;

/* The kernel's BTF, parsed on first use: several MB, so sessions release it
 * once their programs are loaded (features_release_btf) and a later
 * question parses it again. */
static struct btf *vmlinux_btf(void)
{
	if (!vmlinux && !vmlinux_failed) {
		vmlinux = btf__load_vmlinux_btf();
		if (libbpf_get_error(vmlinux)) {
			vmlinux = NULL;
			vmlinux_failed = true;
		}
	}
	return vmlinux;
}

const struct btf *features_btf(void)
{
	return vmlinux_btf();
}

static bool btf_has(const char *name, int kind)
{
	return vmlinux_btf() && btf__find_by_name_kind(vmlinux, name, kind) > 0;
}

/* struct sname has a member mname (at its top level) in vmlinux BTF. */
static bool btf_has_member(const char *sname, const char *mname)
{
	const struct btf_member *m;
	const struct btf_type *t;
	int id;

	if (!vmlinux_btf())
		return false;
	id = btf__find_by_name_kind(vmlinux, sname, BTF_KIND_STRUCT);
	if (id <= 0)
		return false;
	t = btf__type_by_id(vmlinux, (__u32)id);
	m = btf_members(t);
	for (int i = 0; i < btf_vlen(t); i++, m++) {
		const char *n = btf__name_by_offset(vmlinux, m->name_off);

		if (n && !strcmp(n, mname))
			return true;
	}
	return false;
}

bool features_has_func(const char *name)
{
	features_get();
	return btf_has(name, BTF_KIND_FUNC);
}

static bool tracefs_has_event(const char *event)
{
	static const char *roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	static const char *groups[] = { "power", "irq", "irq_vectors", "timer", "sched", "ipi" };
	char path[256];

	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++)
		for (size_t g = 0; g < sizeof(groups) / sizeof(groups[0]); g++) {
			snprintf(path, sizeof(path), "%s/events/%s/%s", roots[i], groups[g], event);
			if (access(path, F_OK) == 0)
				return true;
		}
	return false;
}

bool features_has_event(const char *name)
{
	char tn[128];

	features_get();
	/* tp_btf (and bare tracepoints) need the btf_trace_<name> typedef */
	snprintf(tn, sizeof(tn), "btf_trace_%s", name);
	return btf_has(tn, BTF_KIND_TYPEDEF) || tracefs_has_event(name);
}

/* sched_switch's probe gained a 5th argument, prev_state, in 5.18:
 * typedef void (*btf_trace_sched_switch)(void *, bool, prev, next, prev_state). */
static bool sched_switch_has_prev_state(void)
{
	const struct btf_type *t;
	int id;

	if (!vmlinux_btf())
		return false;
	id = btf__find_by_name_kind(vmlinux, "btf_trace_sched_switch", BTF_KIND_TYPEDEF);
	if (id <= 0)
		return false;
	t = btf__type_by_id(vmlinux, (__u32)id);
	while (t && (btf_is_typedef(t) || btf_is_ptr(t)))
		t = btf__type_by_id(vmlinux, t->type);
	return t && btf_is_func_proto(t) && btf_vlen(t) >= 5;
}

#define INSN(c, d, s, o, i)                                                           \
	((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), \
			    .imm = (i) })

/* A socket filter doing one fetch-and-add on its stack: the verifier of a
 * kernel before 5.12 rejects BPF_FETCH. */
static int probe_atomic_fetch(void)
{
	const struct bpf_insn insns[] = {
		INSN(BPF_ST | BPF_DW | BPF_MEM, BPF_REG_10, 0, -8, 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_1, 0, 0, 1),
		INSN(BPF_STX | BPF_DW | BPF_ATOMIC, BPF_REG_10, BPF_REG_1, -8, BPF_ADD | BPF_FETCH),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};
	int fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, NULL, "GPL", insns,
			       sizeof(insns) / sizeof(insns[0]), NULL);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* A tp_btf program reading hrtimer_expire_entry's second argument (ktime_t *). */
static bool probe_tp_btf_scalar_ptr(void)
{
	const struct bpf_insn insns[] = {
		INSN(BPF_LDX | BPF_DW | BPF_MEM, BPF_REG_2, BPF_REG_1, 8, 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = BPF_TRACE_RAW_TP);
	int id, fd;

	if (!vmlinux_btf())
		return false;
	id = btf__find_by_name_kind(vmlinux, "btf_trace_hrtimer_expire_entry", BTF_KIND_TYPEDEF);
	if (id <= 0)
		return false;
	opts.attach_btf_id = (__u32)id;
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, NULL, "GPL", insns,
			   sizeof(insns) / sizeof(insns[0]), &opts);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

int features_probe_trace(const char *func, bool exit)
{
	const struct bpf_insn insns[] = {
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts,
		    .expected_attach_type = exit ? BPF_TRACE_FEXIT : BPF_TRACE_FENTRY);
	int id, fd, link, e;

	features_get();
	if (!vmlinux_btf())
		return -ENOENT;
	id = btf__find_by_name_kind(vmlinux, func, BTF_KIND_FUNC);
	if (id <= 0)
		return -ENOENT;
	opts.attach_btf_id = (__u32)id;
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, NULL, "GPL", insns,
			   sizeof(insns) / sizeof(insns[0]), &opts);
	if (fd < 0)
		return -errno;
	/* the attach is where an untraceable (noinstr) function or a kernel
	 * without ftrace direct calls fails */
	link = bpf_raw_tracepoint_open(NULL, fd);
	e = link < 0 ? -errno : 0;
	if (link >= 0)
		close(link);
	close(fd);
	return e;
}

static void probe_idle_fexit(void)
{
	static const char *const funcs[] = IS_IDLE_FEXIT_FUNCS;
	char *w = feat.idle_fexit_why;
	size_t n = sizeof(feat.idle_fexit_why);
	int e = -ENOENT;

	feat.idle_fexit = -ENOENT;
	if (env_flag("IDLESCOPE_NO_FEXIT")) {
		feat.idle_fexit = -EPERM;
		snprintf(w, n, "IDLESCOPE_NO_FEXIT set");
		return;
	}
	for (size_t i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++) {
		int l = (int)strlen(w);

		e = features_probe_trace(funcs[i], true);
		feat.idle_fexit_func = funcs[i];
		if (!e) {
			feat.idle_fexit = 0;
			w[0] = 0;
			return;
		}
		snprintf(w + l, n - (size_t)l, "%s%s: %s", l ? "; " : "", funcs[i],
			 e == -ENOENT ? "not in BTF" : features_strerror(e));
		feat.idle_fexit = e;
		if (e == -EPERM || e == -EACCES)
			return; /* fexit is not allowed at all: the next one fails alike */
	}
}

const struct kernel_features *features_get(void)
{
	if (probed)
		return &feat;
	probed = true;
	feat.btf = vmlinux_btf() != NULL;
	feat.tp_btf = feat.btf && !env_flag("IDLESCOPE_NO_TP_BTF");
	feat.cpu_idle_miss = features_has_event("cpu_idle_miss");
	feat.ipi_send_cpu = features_has_event("ipi_send_cpu");
	feat.overutilized = features_has_event("sched_overutilized_tp");
	feat.pelt_cfs = features_has_event("pelt_cfs_tp");
	feat.sched_switch_prev_state = sched_switch_has_prev_state();
	feat.tp_btf_scalar_ptr = feat.tp_btf && probe_tp_btf_scalar_ptr();
	feat.rq_via_idle_task = !env_flag("IDLESCOPE_NO_NOIPI_INFER") &&
				btf_has_member("sched_entity", "cfs_rq") &&
				btf_has_member("cfs_rq", "rq") && btf_has_member("rq", "nr_running");
	feat.atomic_fetch = env_flag("IDLESCOPE_NO_ATOMIC_FETCH") ? -EINVAL : probe_atomic_fetch();
	feat.fentry_probe_func = "vfs_read";
	feat.fentry = features_probe_trace(feat.fentry_probe_func, false);
	probe_idle_fexit();
	return &feat;
}

const char *features_strerror(int e)
{
	if (e < 0)
		e = -e;
	if (e == 524)
		return "not supported here (ENOTSUPP: no BPF trampoline)";
	return strerror(e);
}

bool features_lack_atomic_fetch(void)
{
	int e = features_get()->atomic_fetch;

	return e && e != -EPERM;
}

void features_release_btf(void)
{
	btf__free(vmlinux);
	vmlinux = NULL;
}

void features_free(void)
{
	features_release_btf();
	vmlinux_failed = false;
	probed = false;
	memset(&feat, 0, sizeof(feat));
}
