/* `idlescope info` (`idlescope --features`): what this kernel supports, from
 * the same probe record and hist use (kernel_features.c), and what each missing
 * piece costs; plus the cpuidle, cpufreq and topology the reports rest on. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include <jansson.h>

#include "cmd/cli.h"
#include "cmd/commands.h"
#include "sys/cpuidle_sysfs.h"
#include "cmd/info_costs.h"
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

/* One probed feature: a stable key (JSON, docs/compat.md), whether the kernel
 * has it, what was found, and what idlescope does without it. */
struct feature_row {
	const char *key;
	const char *label;
	bool available;
	char detail[192];
	const char *cost;
};

enum { OPT_FORMAT = 0x500, OPT_COSTS };

static const struct argp_option options[] = {
	{ "format", OPT_FORMAT, "FMT", 0, "table (default) or json", 0 },
	{ "output", 'o', "FILE", 0, "Write to FILE instead of stdout", 0 },
	{ "costs", OPT_COSTS, NULL, 0,
	  "Also measure what each optional part (record --without) costs on this kernel: "
	  "about 20 s of a ping-pong load between two CPUs, as root", 0 },
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

static int build_rows(const struct kernel_features *f, struct feature_row *r)
{
	int n = 0;

#define ROW(k, l, av, c, ...)                                                \
	do {                                                                 \
		r[n] = (struct feature_row){ .key = k, .label = l, .available = av, .cost = c }; \
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

static json_t *costs_json(const struct cost_report *rep)
{
	const struct cost_config *none = costs_find(rep, "none");
	json_t *configs = json_array(), *parts = json_array();

	for (int i = 0; i < rep->nr; i++) {
		const struct cost_config *c = &rep->c[i];
		double bpf, idle, share, n = none->rounds_per_s > 0 ? none->rounds_per_s : 1;

		json_array_append_new(configs, json_pack("{s:s,s:f,s:[f,f],s:f,s:f,s:f,s:f}", "name",
							 c->name, "round_trips_per_s", c->rounds_per_s,
							 "throughput_ratio_min_max", c->rounds_min / n,
							 c->rounds_max / n, "throughput_ratio",
							 cost_ratio(rep, c), "bpf_ns_per_round_trip",
							 c->bpf_ns_per_round, "cpu_idle_ns_per_event",
							 c->idle_ns_per_event,
							 "cpu_idle_events_per_round_trip",
							 c->idle_events_per_round));
		if (!c->part)
			continue;
		cost_delta(rep, c, &bpf, &idle, &share);
		json_array_append_new(parts, json_pack("{s:s,s:f,s:f,s:f}", "part", c->part,
						       "bpf_ns_per_round_trip", bpf,
						       "share_of_round_trip", share,
						       "cpu_idle_ns_per_event", idle));
	}
	return json_pack("{s:[i,i],s:I,s:i,s:o,s:o}", "cpus", rep->cpu_a, rep->cpu_b,
			 "round_trips", (json_int_t)rep->rounds, "runs", rep->runs, "configurations",
			 configs, "parts", parts);
}

static void costs_table(const struct cost_report *rep, FILE *out)
{
	const struct cost_config *none = costs_find(rep, "none");
	double n = none->rounds_per_s > 0 ? none->rounds_per_s : 1;

	fprintf(out, "costs on this kernel: ping-pong between CPUs %d and %d, %ld round trips, "
		     "each configuration %d times interleaved (medians); BPF time from the "
		     "kernel's run-time statistics\n",
		rep->cpu_a, rep->cpu_b, rep->rounds, rep->runs);
	fprintf(out, "  %-18s %14s %20s %18s %18s\n", "configuration", "round trips/s",
		"vs none [min-max]", "BPF ns/round trip", "cpu_idle ns/event");
	for (int i = 0; i < rep->nr; i++) {
		const struct cost_config *c = &rep->c[i];
		char ratio[48];

		snprintf(ratio, sizeof(ratio), "%.3f [%.2f-%.2f]", cost_ratio(rep, c),
			 c->rounds_min / n, c->rounds_max / n);
		if (!c->observed)
			fprintf(out, "  %-18s %14.0f %20s %18s %18s\n", c->name, c->rounds_per_s,
				ratio, "-", "-");
		else
			fprintf(out, "  %-18s %14.0f %20s %18.0f %18.0f\n", c->name, c->rounds_per_s,
				ratio, c->bpf_ns_per_round, c->idle_ns_per_event);
	}
	fprintf(out, "  what each part adds (record --without PART saves it; packing is opt-in); "
		     "a throughput change within the spread above is noise:\n");
	fprintf(out, "  %-18s %18s %22s %18s\n", "part", "BPF ns/round trip",
		"of a round trip's time", "cpu_idle ns/event");
	for (int i = 0; i < rep->nr; i++) {
		double bpf, idle, share;

		if (!rep->c[i].part)
			continue;
		cost_delta(rep, &rep->c[i], &bpf, &idle, &share);
		fprintf(out, "  %-18s %18.0f %21.2f%% %18.0f\n", rep->c[i].part, bpf, 100 * share,
			idle);
	}
}

int cmd_info(int argc, char **argv)
{
	struct info_cmd c = { .format = FMT_TABLE };
	const struct argp argp = { options, parse_opt, NULL,
				   "What this kernel supports, and what each missing piece costs.",
				   NULL, NULL, NULL };
	struct feature_row rows[16];
	struct cpuidle_system sys;
	struct cpuidle_cpu_info ci = { 0 };
	struct topology topo = { 0 };
	struct groups tree = { 0 };
	static struct cost_report costs;
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
		if (costs_measure(&topo, &costs, cerr, sizeof(cerr))) {
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

	if (c.format == FMT_JSON) {
		json_t *root = json_object(), *feats = json_object();

		json_object_set_new(root, "schema", json_string("idlescope-info/1"));
		json_object_set_new(root, "kernel", json_pack("{s:s,s:s,s:s}", "release", u.release,
							      "version", u.version, "arch", u.machine));
		for (int i = 0; i < nrows; i++)
			json_object_set_new(feats, rows[i].key,
					    json_pack("{s:s,s:b,s:s,s:s}", "label", rows[i].label,
						      "available", rows[i].available, "detail",
						      rows[i].detail, "cost", rows[i].cost));
		json_object_set_new(root, "features", feats);
		json_object_set_new(root, "build",
				    json_pack("{s:s,s:s,s:s,s:b,s:s?}", "version", IDLESCOPE_VERSION,
					      "linkage", IDLESCOPE_LINKAGE, "trace_dat", BUILD_TRACE_DAT,
					      "serve_https", BUILD_HTTPS, "lacks",
					      IDLESCOPE_BUILD_LACKS[0] ? IDLESCOPE_BUILD_LACKS : NULL));
		json_object_set_new(root, "record_idle_path",
				    json_pack("{s:s,s:s?,s:s?}", "source",
					      f->idle_fexit ? "tracepoint" : "fexit", "function",
					      f->idle_fexit ? NULL : f->idle_fexit_func, "fallback_reason",
					      f->idle_fexit ? f->idle_fexit_why : NULL));
		json_object_set_new(root, "cpuidle",
				    json_pack("{s:s,s:s,s:i,s:s}", "driver", sys.driver, "governor",
					      sys.governor, "states", ci.nr_states, "table", states));
		json_object_set_new(root, "cpufreq", json_pack("{s:b,s:s?}", "present", cpufreq[0] != 0,
							      "driver", cpufreq[0] ? cpufreq : NULL));
		json_object_set_new(root, "topology",
				    json_pack("{s:i,s:s,s:i,s:i,s:i,s:s}", "possible_cpus",
					      have_topo ? topo.nr_possible : 0, "online", online,
					      "packages", packages, "dies", dies, "clusters", clusters,
					      "levels", levels));
		if (c.costs)
			json_object_set_new(root, "costs", costs_json(&costs));
		if (json_dumpf(root, out, JSON_INDENT(2)) || fputc('\n', out) == EOF)
			ret = EXIT_RUNTIME;
		json_decref(root);
	} else {
		fprintf(out, "idlescope info: kernel %s %s\n", u.release, u.machine);
		fprintf(out, "build: %s %s; replay reads trace.dat %s; serve HTTPS %s\n",
			IDLESCOPE_VERSION, IDLESCOPE_LINKAGE, BUILD_TRACE_DAT, BUILD_HTTPS ? "yes" : "no");
		if (IDLESCOPE_BUILD_LACKS[0])
			fprintf(out, "this build lacks %s\n", IDLESCOPE_BUILD_LACKS);
		fprintf(out, "  %-32s %-4s %-34s %s\n", "feature", "have", "found", "without it");
		for (int i = 0; i < nrows; i++)
			fprintf(out, "  %-32s %-4s %-34s %s\n", rows[i].label,
				rows[i].available ? "yes" : "no", rows[i].detail,
				rows[i].available ? "-" : rows[i].cost);
		fprintf(out, "record idle path: %s%s%s%s\n", f->idle_fexit ? "tracepoints (" : "fexit on ",
			f->idle_fexit ? f->idle_fexit_why : f->idle_fexit_func, f->idle_fexit ? ")" : "", "");
		fprintf(out, "cpuidle: driver %s, governor %s, %d states%s%s\n", sys.driver,
			sys.governor[0] ? sys.governor : "unknown", ci.nr_states,
			ci.nr_states ? ": " : "", states);
		fprintf(out, "cpufreq: %s\n", cpufreq[0] ? cpufreq : "absent");
		if (have_topo)
			fprintf(out, "topology: %d possible CPUs (online %s), %d package%s, %d die%s, "
				     "%d cluster%s of several CPUs\n",
				topo.nr_possible, online, packages, packages == 1 ? "" : "s", dies,
				dies == 1 ? "" : "s", clusters, clusters == 1 ? "" : "s");
		if (have_topo)
			fprintf(out, "topology groups (record's default): %s\n",
				levels[0] ? levels : "none");
		if (c.costs)
			costs_table(&costs, out);
	}
	if (out != stdout && fclose(out))
		ret = EXIT_RUNTIME;
	topology_free(&topo);
	features_free();
	return ret;
}
