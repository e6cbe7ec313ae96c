/* What this kernel supports, probed once per process and shared by the loader
 * (which program variants to autoload) and `idlescope info` (what is missing
 * and what that costs). */
#ifndef IDLESCOPE_KERNEL_FEATURES_H
#define IDLESCOPE_KERNEL_FEATURES_H

#include <stdbool.h>

struct btf;

/* The functions fexit can take the idle path's outcome from, best first:
 * cpuidle_enter_state became noinstr (untraceable) in 6.3, cpuidle_enter,
 * its caller with the same arguments and return value, stayed traceable. */
#define IS_IDLE_FEXIT_FUNCS { "cpuidle_enter_state", "cpuidle_enter" }

struct kernel_features {
	bool btf;            /* vmlinux BTF (/sys/kernel/btf/vmlinux) */
	bool tp_btf;         /* tp_btf usable: BTF, and IDLESCOPE_NO_TP_BTF unset */
	bool cpu_idle_miss;  /* power:cpu_idle_miss (6.0, backported to some 5.x) */
	bool ipi_send_cpu;   /* ipi:ipi_send_cpu (6.4) */
	bool sched_switch_prev_state; /* sched_switch passes prev_state (5.18) */
	bool overutilized;   /* bare sched_overutilized_tp */
	bool pelt_cfs;       /* bare pelt_cfs_tp */
	/* tp_btf may read an argument that points to a non-struct (hrtimer_expire_entry's
	 * ktime_t *now); 5.10's verifier refuses, raw_tp is used for that event then */
	bool tp_btf_scalar_ptr;
	/* the idle task's root cfs_rq leads to its run queue (sched_entity.cfs_rq,
	 * cfs_rq.rq: CONFIG_FAIR_GROUP_SCHED), so an idle exit can see queued
	 * work and poll-resched is inferred there (bpf/wake.bpf.h) */
	bool rq_via_idle_task;
	int atomic_fetch;    /* 0: BPF atomics returning the old value load (5.12), else -errno */
	int fentry;          /* 0: an fentry program loads and attaches, else -errno */
	const char *fentry_probe_func; /* the function that probe used */
	int idle_fexit;      /* 0: fexit on idle_fexit_func attaches, else -errno */
	const char *idle_fexit_func;  /* function used (or last tried); NULL without BTF */
	char idle_fexit_why[128];     /* why there is no idle fexit, "" when there is */
};

/* The kernel lacks BPF atomic fetch ops (not just: the probe was not allowed
 * to load, when the real load will say what is missing). */
bool features_lack_atomic_fetch(void);

/* Probes on first call (BPF program loads need CAP_BPF/CAP_PERFMON; without
 * them the BPF probes read -EPERM) and returns the cached result. */
const struct kernel_features *features_get(void);
/* vmlinux BTF, or NULL (owned by this module). */
const struct btf *features_btf(void);
/* The tracepoint exists: its btf_trace_<name> typedef, or a tracefs event. */
bool features_has_event(const char *name);
/* name is a function in vmlinux BTF. */
bool features_has_func(const char *name);
/* 0 when an fentry (exit = false) or fexit program attaches to func, else
 * -errno (-ENOENT: not in BTF). */
int features_probe_trace(const char *func, bool exit);
/* strerror, with ENOTSUPP (524: no BPF trampoline for the function or arch,
 * e.g. arm64 before 6.4) spelled out. */
const char *features_strerror(int e);
/* Frees the cached BTF. */
/* Frees the parsed kernel BTF (several MB) and keeps the answers; a later
 * BTF question parses it again. */
void features_release_btf(void);
void features_free(void);

#endif
