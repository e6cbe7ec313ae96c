/* `idlescope info` (`idlescope --features`): what this kernel supports, from
 * the same probe record and hist use (kernel_features.c), and what each missing
 * piece costs; plus the cpuidle, cpufreq and topology the reports rest on. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "cmd/cli.h"
#include "cmd/commands.h"
#include "sys/cpuidle_sysfs.h"
#include "cmd/info_costs.h"
#include "cmd/info_qos.h"
#include "cmd/info_wakeups.h"
#include "render/render_info.h"
#include "session/kernel_features.h"
#include "sys/sysfs.h"
#include "sys/group_levels.h"
#include "sys/topology.h"

/* What this build can do (the Makefile's STATIC and BUILD_LACKS). */
#ifndef IDLESCOPE_LINKAGE
#define IDLESCOPE_LINKAGE "unknown"
#endif
#ifndef IDLESCOPE_BUILD_LACKS
#define IDLESCOPE_BUILD_LACKS ""
#endif
#ifdef IDLESCOPE_GNUTLS
#define BUILD_HTTPS 1
#else
#define BUILD_HTTPS 0
#endif
#define BUILD_TRACE_DAT "v6 and v7, uncompressed, zlib and zstd"

struct info_cmd {
	enum out_format format;
	const char *output;
	bool costs; /* --costs: measure what each part costs here */
};

enum { OPT_FORMAT = 0x500, OPT_COSTS };

static const struct argp_option options[] = {
	{ "format", OPT_FORMAT, "FMT", 0, "table (default) or json", 0 },
	{ "output", 'o', "FILE", 0, "Write to FILE instead of stdout", 0 },
	{ "costs", OPT_COSTS, NULL, 0,
	  "Also measure what each optional part (record --without) costs on this kernel "
	  "(about 20 s of a ping-pong load between two CPUs) and the wakeups each live "
	  "command adds to this machine (about 70 s), as root", 0 },
	{ 0 }
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct info_cmd *c = state->input;

	switch (key) {
	case OPT_FORMAT:
		if (parse_format(arg, &c->format) || c->format == FMT_CSV || c->format == FMT_PROM)
			argp_error(state, "unknown format '%s' (table or json)", arg);
		break;
	case 'o':
		c->output = arg;
		break;
	case OPT_COSTS:
		c->costs = true;
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s'", arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const char *errname(int e)
{
	switch (-e) {
	case 0: return "ok";
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case EINVAL: return "EINVAL";
	case ENOENT: return "ENOENT";
	case ENOTSUP: return "ENOTSUP";
	case 524: return "ENOTSUPP";
	case EBUSY: return "EBUSY";
	default: return "error";
	}
}

static int build_rows(const struct kernel_features *f, struct info_feature *r)
{
	int n = 0;

#define ROW(k, l, av, c, ...)                                                \
	do {                                                                 \
		r[n] = (struct info_feature){ .key = k, .label = l, .available = av, .cost = c }; \
		snprintf(r[n].detail, sizeof(r[n].detail), __VA_ARGS__);     \
		n++;                                                         \
	} while (0)

	ROW("btf", "vmlinux BTF", f->btf, "nothing loads: CO-RE needs CONFIG_DEBUG_INFO_BTF",
	    "%s", f->btf ? "/sys/kernel/btf/vmlinux" : "absent");
	ROW("tp_btf", "tp_btf programs", f->tp_btf,
	    "raw_tp programs instead: the same events and numbers",
	    "%s", f->tp_btf ? "used" : f->btf ? "off (IDLESCOPE_NO_TP_BTF)" : "no BTF");
	ROW("tp_btf_scalar_ptr", "tp_btf int-pointer arguments", f->tp_btf_scalar_ptr,
	    "hrtimer_expire_entry (timer lateness) through raw_tp: the same numbers", "%s",
	    f->tp_btf_scalar_ptr ? "hrtimer_expire_entry via tp_btf" : "refused by the verifier");
	ROW("cpu_idle_miss", "power:cpu_idle_miss (6.0)", f->cpu_idle_miss,
	    "above/below from idlescope's own classification only (no kernel-exact miss column)",
	    "%s", f->cpu_idle_miss ? "present" : "absent");
	ROW("ipi_send_cpu", "ipi:ipi_send_cpu (6.4)", f->ipi_send_cpu,
	    "IPI wakeups are not traced to the sending CPU",
	    "%s", f->ipi_send_cpu ? "present" : "absent");
	ROW("sched_switch_prev_state", "sched_switch prev_state (5.18)", f->sched_switch_prev_state,
	    "runq-latency reads the task state from task_struct (racy for a task that just slept)",
	    "%s", f->sched_switch_prev_state ? "argument" : "task_struct state");
	ROW("sched_overutilized_tp", "sched_overutilized_tp (bare)", f->overutilized,
	    "record --packing: no overutilized time", "%s", f->overutilized ? "present" : "absent");
	ROW("pelt_cfs_tp", "pelt_cfs_tp (bare)", f->pelt_cfs,
	    "record --packing: no per-CPU utilization", "%s", f->pelt_cfs ? "present" : "absent");
	ROW("atomic_fetch", "BPF atomic fetch ops (5.12)", !f->atomic_fetch,
	    "no group rows (all-idle time per cluster/package) and no --packing",
	    "%s", f->atomic_fetch ? errname(f->atomic_fetch) : "ok");
	ROW("fentry", "fentry/fexit", !f->fentry,
	    "no exact entered/rejected counts per state; hist path-latency refused",
	    "%s on %s", errname(f->fentry), f->fentry_probe_func);
	ROW("idle_fexit", "fexit on the cpuidle entry", !f->idle_fexit,
	    "record counts entries from the tracepoints (rejected ones included)", "%s%s%s",
	    f->idle_fexit ? errname(f->idle_fexit) : "", f->idle_fexit ? " on " : "",
	    f->idle_fexit_func ? f->idle_fexit_func : "-");
#undef ROW
	return n;
}

static void count_topology(const struct topology *t, int *packages, int *dies)
{
	int pk[256], dk[256], np = 0, nd = 0;

	for (int i = 0; i < t->nr_cpus; i++) {
		int p = t->cpus[i].package, d = t->cpus[i].package * 1024 + t->cpus[i].die, j;

		if (p < 0)
			continue;
		for (j = 0; j < np && pk[j] != p; j++)
			;
		if (j == np && np < 256)
			pk[np++] = p;
		if (t->cpus[i].die < 0)
			continue;
		for (j = 0; j < nd && dk[j] != d; j++)
			;
		if (j == nd && nd < 256)
			dk[nd++] = d;
	}
	*packages = np;
	*dies = nd;
}

static void states_text(const struct cpuidle_cpu_info *ci, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	for (int i = 0; i < ci->nr_states && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s %llu/%lluus", i ? ", " : "",
				      ci->states[i].name,
				      (unsigned long long)(ci->states[i].exit_latency_ns / 1000),
				      (unsigned long long)(ci->states[i].target_residency_ns / 1000));
}

/* Throughput relative to the un-observed runs, 0 when unknown. */
static double cost_ratio(const struct cost_report *rep, const struct cost_config *c)
{
	const struct cost_config *none = costs_find(rep, "none");

	return none && none->rounds_per_s > 0 ? c->rounds_per_s / none->rounds_per_s : 0;
}

/* The part's marginal cost: the default minus the default without it, or
 * with it (packing) minus the default; per round trip, and as a share of
 * the default's round trip. */
static void cost_delta(const struct cost_report *rep, const struct cost_config *c, double *bpf,
		       double *idle, double *share)
{
	const struct cost_config *d = costs_find(rep, "default");
	const struct cost_config *lo = c->packing ? d : c, *hi = c->packing ? c : d;

	*bpf = hi->bpf_ns_per_round - lo->bpf_ns_per_round;
	*idle = hi->idle_ns_per_event - lo->idle_ns_per_event;
	*share = d->rounds_per_s > 0 ? *bpf * d->rounds_per_s / 1e9 : 0;
}

/* The measured costs as info's model: each configuration's throughput
 * against the un-observed runs, and what each part adds. */
static void costs_model(const struct cost_report *rep, struct info_cost_config *configs,
			struct info_cost_part *parts, struct info_costs *out)
{
	const struct cost_config *none = costs_find(rep, "none");
	double n = none->rounds_per_s > 0 ? none->rounds_per_s : 1;

	*out = (struct info_costs){ .cpu_a = rep->cpu_a, .cpu_b = rep->cpu_b, .rounds = rep->rounds,
				    .runs = rep->runs, .configs = configs, .parts = parts };
	for (int i = 0; i < rep->nr; i++) {
		const struct cost_config *c = &rep->c[i];
		struct info_cost_part *p = &parts[out->nr_parts];

		configs[out->nr_configs++] = (struct info_cost_config){
			.name = c->name, .observed = c->observed, .rounds_per_s = c->rounds_per_s,
			.ratio = cost_ratio(rep, c), .ratio_min = c->rounds_min / n,
			.ratio_max = c->rounds_max / n, .bpf_ns_per_round = c->bpf_ns_per_round,
			.idle_ns_per_event = c->idle_ns_per_event,
			.idle_events_per_round = c->idle_events_per_round };
		if (!c->part)
			continue;
		p->part = c->part;
		cost_delta(rep, c, &p->bpf_ns_per_round, &p->idle_ns_per_event, &p->share);
		out->nr_parts++;
	}
}

/* The measured wakeups as info's model. */
static void wakeups_model(const struct wake_cost_report *rep, struct info_wake_cost *rows,
			  struct info_wakeups *out)
{
	*out = (struct info_wakeups){ .oracle = rep->oracle, .nr_cpus = rep->nr_cpus,
				      .reps = rep->reps, .window_s = rep->window_s,
				      .settle_s = rep->settle_s,
				      .base_per_s_cpu = rep->base_per_s_cpu, .nr = rep->nr,
				      .c = rows };
	for (int i = 0; i < rep->nr; i++)
		rows[i] = (struct info_wake_cost){ .command = rep->c[i].command,
						   .reference = rep->c[i].reference,
						   .tick_cost = rep->c[i].tick_cost,
						   .beyond = rep->c[i].beyond,
						   .ticks_per_s = rep->c[i].ticks_per_s,
						   .own_per_s = rep->c[i].own_per_s,
						   .added = rep->c[i].added,
						   .added_min = rep->c[i].added_min,
						   .added_max = rep->c[i].added_max };
}

int cmd_info(int argc, char **argv)
{
	struct info_cmd c = { .format = FMT_TABLE };
	const struct argp argp = { options, parse_opt, NULL,
				   "What this kernel supports, and what each missing piece costs.",
				   NULL, NULL, NULL };
	struct info_feature rows[16];
	struct cpuidle_system sys;
	struct cpuidle_cpu_info ci = { 0 };
	struct topology topo = { 0 };
	struct groups tree = { 0 };
	static struct cost_report costs;
	static struct wake_cost_report wake_costs;
	struct info_wake_cost wake_rows[WAKE_COST_CMDS];
	struct info_wakeups wake_view;
	struct info_cost_config cost_configs[COST_MAX_CONFIGS];
	struct info_cost_part cost_parts[COST_MAX_CONFIGS];
	struct info_costs cost_view;
	struct info_report r;
	struct info_qos_data qos;
	char levels[160] = "", terr[256];
	const struct kernel_features *f;
	struct utsname u;
	char online[CPULIST_STR_MAX] = "", cpufreq[64], states[512];
	int nrows, packages = 0, dies = 0, clusters = 0, ret = EXIT_OK;
	bool have_topo;
	FILE *out = stdout;

	argp_parse(&argp, argc, argv, 0, NULL, &c);
	have_topo = !topology_read(&topo);
	if (c.costs) {
		char cerr[256];

		if (!have_topo) {
			diag_error("--costs: cannot read the CPU topology");
			return EXIT_RUNTIME;
		}
		if (costs_measure(&topo, &costs, cerr, sizeof(cerr)) ||
		    wake_costs_measure(&topo, &wake_costs, cerr, sizeof(cerr))) {
			diag_error("--costs: %s", cerr);
			topology_free(&topo);
			return EXIT_RUNTIME;
		}
	}
	if (c.output && !(out = fopen(c.output, "we"))) {
		diag_error("cannot write '%s': %s", c.output, strerror(errno));
		return EXIT_RUNTIME;
	}
	uname(&u);
	f = features_get();
	nrows = build_rows(f, rows);
	cpuidle_read_system(&sys);
	cpuidle_read_cpu(&sys, 0, &ci, cpuidle_global_qos_ns());
	states_text(&ci, states, sizeof(states));
	if (info_qos_gather(&qos, have_topo ? topo.nr_possible : 1, &ci, sys.governor)) {
		diag_error("out of memory");
		return EXIT_RUNTIME;
	}
	if (have_topo) {
		cpulist_format(&topo.online, online, sizeof(online));
		count_topology(&topo, &packages, &dies);
		/* clusters that group CPUs (sysfs gives every CPU one on some x86) */
		for (int i = 0; i < topo.nr_clusters; i++)
			clusters += cpulist_count(&topo.clusters[i]) > 1;
		/* the levels record shows by default: "core 16, package 2" */
		if (!groups_build(&topo, NULL, &tree, terr, sizeof(terr)))
			for (int l = 0; l < tree.nr_levels; l++) {
				int n = 0;

				for (int g = 0; g < tree.nr_groups; g++)
					n += tree.node[g].level == l;
				snprintf(levels + strlen(levels), sizeof(levels) - strlen(levels), "%s%s %d",
					 l ? ", " : "", tree.levels[l], n);
			}
		groups_free(&tree);
	}
	if (sysfs_read_str(cpufreq, sizeof(cpufreq), "devices/system/cpu/cpufreq/policy0/scaling_driver") &&
	    sysfs_read_str(cpufreq, sizeof(cpufreq), "devices/system/cpu/cpu0/cpufreq/scaling_driver"))
		cpufreq[0] = 0;

	if (c.costs) {
		costs_model(&costs, cost_configs, cost_parts, &cost_view);
		wakeups_model(&wake_costs, wake_rows, &wake_view);
	}
	r = (struct info_report){
		.release = u.release, .version = u.version, .machine = u.machine,
		.build_version = IDLESCOPE_VERSION, .linkage = IDLESCOPE_LINKAGE,
		.trace_dat = BUILD_TRACE_DAT, .lacks = IDLESCOPE_BUILD_LACKS, .https = BUILD_HTTPS,
		.nr_features = nrows, .features = rows, .idle_fexit = !f->idle_fexit,
		.idle_func = f->idle_fexit_func, .idle_why = f->idle_fexit_why,
		.driver = sys.driver, .governor = sys.governor, .nr_states = ci.nr_states,
		.states = states, .cpufreq = cpufreq, .have_topo = have_topo,
		.possible_cpus = have_topo ? topo.nr_possible : 0, .online = online,
		.packages = packages, .dies = dies, .clusters = clusters, .levels = levels,
		.qos = &qos.view, .costs = c.costs ? &cost_view : NULL, .wakeups = c.costs ? &wake_view : NULL };
	if (render_info(out, c.format, &r))
		ret = EXIT_RUNTIME;
	if (out != stdout && fclose(out))
		ret = EXIT_RUNTIME;
	info_qos_free(&qos);
	topology_free(&topo);
	features_free();
	return ret;
}
