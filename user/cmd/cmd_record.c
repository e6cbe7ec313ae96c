/* `idlescope record`: measure idle-state residency and prediction error for
 * a duration, a command's lifetime or until a signal, then print the summary
 * (and, with -i, a line per interval). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "cmd/cli.h"
#include "model/flatten.h"
#include "cmd/commands.h"
#include "sys/cpuidle_sysfs.h"
#include "session/kernel_features.h"
#include "session/idle_loader.h"
#include "sys/hotplug.h"
#include "model/model.h"
#include "render/render.h"
#include "sys/topology.h"
#include "sys/sysfs.h"
#include "session/window.h"
#include "util/workload.h"

/* How often disable flags and PM QoS limits are re-read into the maps. */
#define QOS_REFRESH_NS 200000000ULL
#define STATE_REFRESH_NS 1000000000ULL

struct record {
	struct common_opts o;
	bool wake; /* wakeup attribution (default on; --no-wakeups) */
	const char *topology; /* --topology, NULL = sysfs */
	struct session_cli sc; /* session_argp's view of the two above */
	bool packing;
	bool freq;         /* cpufreq present: frequency residency */
	int assert_ret;    /* --fail-if: EXIT_OK, EXIT_ASSERT or EXIT_USAGE */
	struct groups groups;
	struct topology topo;
	struct cpuidle_system sys;
	struct cpuidle_cpu_info *info;
	struct idle_params *params;
	struct cpuidle_counters *k_start, *k_end;
	struct cpuidle_counter_files kfiles;
	uint64_t snapshot_ns; /* time spent reading the two snapshots */
	struct idle_session sess;
	struct cpulist sel;
	struct window win;
	struct hotplug hotplug; /* CPUs going offline and online in the window */
	uint64_t *dev_id;       /* cpuidle_device_id() at the start */
	uint64_t start;
	uint64_t next_state_refresh;
	FILE *out;
	struct idle_raw prev; /* last interval snapshot */
	uint64_t prev_ns;
	int seq;
};

static const char doc[] =
	"Measure per-CPU idle-state residency and prediction error (too deep / too shallow), "
	"cross-checked against the kernel's cpuidle counters.\v"
	"Runs for -d SECONDS, for the lifetime of COMMAND, or until Ctrl-C/SIGTERM; each prints "
	"a complete summary. With COMMAND, its exit status is idlescope's.";

enum { OPT_PACKING = 0x200 };

static const struct argp_option record_options[] = {
	{ "packing", OPT_PACKING, NULL, 0,
	  "Packing over the groups: busy-group timeline, spread time, cross-group wakeups, "
	  "runtime per task and group (a shared counter: costs more per idle event)", 0 },
	{ 0 }
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct record *r = state->input;
	struct common_opts *o = &r->o;

	(void)arg;
	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = o;
		r->sc = (struct session_cli){ &r->wake, &r->topology };
		state->child_inputs[1] = &r->sc;
		break;
	case OPT_PACKING:
		r->packing = true;
		break;
	case ARGP_KEY_ARG:
		/* The first non-option starts the command; the rest is its own. */
		o->command = &state->argv[state->next - 1];
		state->next = state->argc;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child children[] = { { &common_argp, 0, NULL, 0 },
					       { &session_argp, 0, NULL, 0 }, { 0 } };
static const struct argp record_argp = { record_options, parse_opt, "[-- COMMAND [ARGS...]]", doc, children,
					 NULL, NULL };

static void push_params(struct record *r, bool all_files)
{
	idle_session_push_cpuidle(&r->sess, &r->sys, r->info, r->params, r->topo.nr_possible,
				  all_files);
}

/* Before the end snapshot, for each CPU hotplug took down and up: the same
 * cpuidle device (counters kept) gets its re-created files opened again; a
 * re-registered one (counters zeroed) or one offline now gets no delta. */
static void reopen_hotplugged(struct record *r)
{
	for (int c = 0; c < r->topo.nr_possible; c++) {
		if (!cpulist_has(&r->sel, c) || !hotplug_events(&r->hotplug, c))
			continue;
		if (!r->hotplug.cpu[c].offline_since && r->dev_id[c] &&
		    cpuidle_device_id(c) == r->dev_id[c])
			cpuidle_counters_reopen_cpu(&r->kfiles, c, &r->info[c]);
		else
			r->dev_id[c] = 0; /* see drop_reset_counters */
	}
}

/* After the end snapshot: no delta for the CPUs reopen_hotplugged gave up on. */
static void drop_reset_counters(struct record *r)
{
	for (int c = 0; c < r->topo.nr_possible; c++)
		if (cpulist_has(&r->sel, c) && hotplug_events(&r->hotplug, c) && !r->dev_id[c])
			for (int i = 0; i < IS_MAX_STATES; i++)
				r->k_end[c * IS_MAX_STATES + i].valid = false;
}

/* Returns how long the snapshot took: periods ending meanwhile are on one
 * side of the window only. */
static uint64_t read_counters(struct record *r, struct cpuidle_counters *k, enum counters_edge edge)
{
	uint64_t t0 = idle_now_ns();

	cpuidle_counters_snapshot(&r->kfiles, k, edge);
	return idle_now_ns() - t0;
}

static void print_interval(struct record *r, uint64_t now, uint64_t start)
{
	struct interval_sample iv = { 0 };
	struct idle_raw cur;

	if (idle_session_read_stats(&r->sess, &cur)) {
		diag_error("cannot read the BPF maps for interval %d", r->seq + 1);
		return;
	}
	iv.seq = ++r->seq;
	iv.offset_ns = now - start;
	iv.duration_ns = now - r->prev_ns;
	iv.nr_cpus = cpulist_count(&r->sel);
	for (int c = 0; c < r->topo.nr_possible; c++) {
		const struct cpuidle_cpu_info *info = &r->info[c];
		int n = info->nr_states ? info->nr_states : 2;

		if (!cpulist_has(&r->sel, c))
			continue;
		for (int i = 0; i < n; i++) {
			const struct idle_state_stats *a = &r->prev.stats[c * IS_MAX_STATES + i];
			const struct idle_state_stats *b = &cur.stats[c * IS_MAX_STATES + i];

			if (i >= iv.nr_states) {
				snprintf(iv.names[i], IS_NAME_LEN, "%s",
					 info->nr_states ? info->states[i].name : default_idle_state_name(i));
				iv.nr_states = i + 1;
			}
			iv.time_ns[i] += b->time_ns - a->time_ns;
			iv.entries[i] += b->entries - a->entries;
			iv.above += b->above - a->above;
			iv.below += b->below - a->below;
		}
	}
	render_interval(r->out, r->o.format, &iv);
	idle_raw_free(&r->prev);
	r->prev = cur;
	r->prev_ns = now;
}

static void on_interval(void *ctx, uint64_t now)
{
	struct record *r = ctx;

	print_interval(r, now, r->start);
}

/* disable flags and PM QoS into the maps; device files every STATE_REFRESH_NS */
static void on_refresh(void *ctx, uint64_t now)
{
	struct record *r = ctx;
	bool all = now >= r->next_state_refresh;

	hotplug_poll(&r->hotplug, now);
	push_params(r, all);
	if (all)
		r->next_state_refresh = now + STATE_REFRESH_NS;
}

/* EAS state as userspace sees it, and which bare tracepoints attached. */
static void eas_context(const struct record *r, struct summary *s)
{
	uint64_t v;
	FILE *f = fopen("/proc/sys/kernel/sched_energy_aware", "re");

	s->sched_energy_aware = -1;
	if (f) {
		if (fscanf(f, "%lu", &v) == 1)
			s->sched_energy_aware = (int)v;
		fclose(f);
	}
	if (!sysfs_exists("kernel/debug/sched") && !sysfs_exists("kernel/debug/tracing") &&
	    !sysfs_exists("kernel/debug/energy_model"))
		s->energy_model = "unknown (debugfs not mounted)";
	else
		s->energy_model = sysfs_exists("kernel/debug/energy_model") ? "present" : "absent";
	s->have_capacity = sysfs_exists("devices/system/cpu/cpu0/cpu_capacity");
	s->have_util = r->packing && !strstr(r->sess.missing, "pelt_cfs_tp");
	s->have_ou = r->packing && !strstr(r->sess.missing, "sched_overutilized_tp");
}

static int emit_summary(struct record *r, uint64_t start, uint64_t stop)
{
	struct window_capture w = { .start_ns = start, .stop_ns = stop, .info = r->info,
				    .groups = r->groups.nr_groups ? &r->groups : NULL,
				    .snapshot_ns = r->snapshot_ns, .hotplug = &r->hotplug,
				    .k_start = r->k_start, .k_end = r->k_end };
	struct summary s = { .sys = r->sys, .topo = &r->topo, .idle_attach = r->sess.idle_attach,
			     .freq_status = r->freq ? "ok" : "no cpufreq on this machine",
			     .miss_attach = r->sess.have_idle_miss ? r->sess.miss_attach : NULL,
			     .wake_enabled = r->sess.wake, .missing_events = r->sess.missing,
			     .idle_fexit_func = r->sess.idle_fexit_func,
			     .idle_fexit_why = r->sess.idle_fexit_why };
	struct idle_raw raw;
	int err;

	if ((err = idle_session_read(&r->sess, &raw))) {
		diag_error("cannot read the BPF maps: %s", strerror(-err));
		return -1;
	}
	w.raw = &raw;
	eas_context(r, &s);
	if (r->freq) {
		struct groups fd;
		char err[256] = "";

		if (!groups_build(&r->topo, "freq-domain", &fd, err, sizeof(err))) {
			for (int i = 0; i < fd.nr_groups && i < 64; i++) {
				snprintf(s.freq_domains[i].name, sizeof(s.freq_domains[i].name), "domain%d", i);
				cpulist_format(&fd.cpus[i], s.freq_domains[i].cpus,
					       sizeof(s.freq_domains[i].cpus));
				s.freq_domains[i].cpu = cpulist_first(&fd.cpus[i]);
				s.nr_freq_domains++;
			}
			groups_free(&fd);
		}
	}
	if (summary_build(&s, &w, &r->sel)) {
		idle_raw_free(&raw);
		diag_error("out of memory");
		return -1;
	}
	switch (r->o.format) {
	case FMT_JSON:
		err = render_json(r->out, &s, r->o.interval_ns != 0);
		break;
	case FMT_CSV:
		render_csv(r->out, &s);
		break;
	default:
		render_table(r->out, &s);
	}
	if (!err && r->o.nr_asserts) {
		json_t *doc = summary_json(&s);

		r->assert_ret = cli_check_asserts(&r->o, doc, flatten_summary, r->out);
		json_decref(doc);
	}
	summary_free(&s);
	idle_raw_free(&raw);
	if (fflush(r->out) || ferror(r->out)) {
		diag_error("cannot write the report: %s", strerror(errno));
		return -1;
	}
	return err;
}

static int alloc_tables(struct record *r)
{
	size_t n = (size_t)r->topo.nr_possible;

	r->info = calloc(n, sizeof(*r->info));
	r->params = calloc(n, sizeof(*r->params));
	r->k_start = calloc(n * IS_MAX_STATES, sizeof(*r->k_start));
	r->k_end = calloc(n * IS_MAX_STATES, sizeof(*r->k_end));
	r->dev_id = calloc(n, sizeof(*r->dev_id));
	return r->info && r->params && r->k_start && r->k_end && r->dev_id ? 0 : -1;
}

int cmd_record(int argc, char **argv)
{
	struct record r = { .o = { .format = FMT_TABLE }, .out = stdout, .wake = true };
	struct window_ticks ticks = { on_interval, on_refresh, &r };
	uint64_t start, stop, qos;
	char err[256];
	int ret = EXIT_RUNTIME, sig = 0;

	argp_parse(&record_argp, argc, argv, ARGP_IN_ORDER, NULL, &r);
	idle_set_verbose(r.o.verbose);
	window_block_signals(); /* a signal from here on: a summary or one error line */

	if ((ret = cli_prepare(&r.o, &r.topo, &r.sel, &r.out)))
		goto cleanup;
	ret = EXIT_RUNTIME;
	if (alloc_tables(&r)) {
		diag_error("out of memory");
		goto cleanup;
	}
	cpuidle_read_system(&r.sys);
	qos = cpuidle_global_qos_ns();
	for (int c = 0; c < r.topo.nr_possible; c++)
		cpuidle_read_cpu(&r.sys, c, &r.info[c], qos);

	err[0] = '\0';
	if (!(r.topology && !strcmp(r.topology, "none")) &&
	    groups_build(&r.topo, r.topology, &r.groups, err, sizeof(err))) {
		diag_error("--topology: %s", err);
		ret = EXIT_USAGE;
		goto cleanup;
	}
	/* frequency residency where cpufreq exists (events only on changes) */
	r.freq = sysfs_exists("devices/system/cpu/cpufreq/policy0") ||
		 sysfs_exists("devices/system/cpu/cpu0/cpufreq/scaling_cur_freq");
	if (r.packing && !r.groups.nr_groups) {
		diag_error("--packing needs topology groups (not --topology none)");
		ret = EXIT_USAGE;
		goto cleanup;
	}
	/* group counters use fetch-and-add, packing cmpxchg: BPF atomics that
	 * return the old value (5.12+); without them the verifier refuses both */
	if (r.groups.nr_groups && features_lack_atomic_fetch()) {
		if (r.packing) {
			diag_error("--packing needs BPF atomic fetch ops (kernel 5.12+); this kernel lacks them");
			goto cleanup;
		}
		fprintf(stderr, "idlescope: no group rows: they need BPF atomic fetch ops (kernel 5.12+)\n");
		groups_free(&r.groups);
		memset(&r.groups, 0, sizeof(r.groups));
	}
	if (idle_session_open(&r.sess, r.topo.nr_possible,
			      &(struct session_opts){ .wake = r.wake, .nr_groups = r.groups.nr_groups,
						      .group_of = r.groups.group_of,
						      .group_cpus = r.groups.cpus,
						      .packing = r.packing, .freq = r.freq,
						      .state_slots = cpuidle_state_slots(r.info, r.topo.nr_possible) },
			      err, sizeof(err))) {
		diag_error("%s", err);
		goto cleanup;
	}
	if (window_check_interrupted()) /* loading took a while */
		goto cleanup;
	push_params(&r, false);
	for (int c = 0; r.freq && c < r.topo.nr_possible; c++) {
		uint64_t khz;

		if (!sysfs_read_u64(&khz, "devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq", c))
			idle_session_set_freq(&r.sess, c, (uint32_t)khz);
	}
	for (int c = 0; c < r.topo.nr_possible; c++)
		r.dev_id[c] = cpulist_has(&r.sel, c) ? cpuidle_device_id(c) : 0;
	if (cpuidle_counters_open(&r.kfiles, r.topo.nr_possible, &r.sel, r.info)) {
		diag_error("out of memory");
		goto cleanup;
	}
	if (idle_session_attach(&r.sess, err, sizeof(err))) {
		diag_error("%s", err);
		goto cleanup;
	}
	if (window_check_interrupted())
		goto cleanup;

	r.win.duration_ns = r.o.duration_ns;
	r.win.interval_ns = r.o.interval_ns;
	r.win.refresh_ns = QOS_REFRESH_NS;
	if ((ret = window_prepare(&r.win, r.o.command)))
		goto cleanup;
	ret = EXIT_RUNTIME;

	r.snapshot_ns = read_counters(&r, r.k_start, COUNTERS_BEFORE_START);
	start = idle_now_ns();
	r.start = start;
	{
		struct cpulist online;

		/* no online mask: no hotplug tracking (offline_ns stays 0) */
		if (!hotplug_read_online(&online) &&
		    hotplug_begin(&r.hotplug, r.topo.nr_possible, start, &online)) {
			diag_error("out of memory");
			goto cleanup;
		}
	}
	r.next_state_refresh = start + STATE_REFRESH_NS;
	idle_session_start(&r.sess, start);
	if (r.o.interval_ns) {
		idle_session_read_stats(&r.sess, &r.prev);
		r.prev_ns = start;
	}
	if ((ret = window_release(&r.win, r.o.command)))
		goto cleanup;
	ret = EXIT_RUNTIME;

	sig = window_wait(&r.win, start, &ticks);

	/* the last hotplug poll before stop: between stop and the counter read
	 * only the read itself may pass, which the edge allowance measures */
	hotplug_poll(&r.hotplug, idle_now_ns());
	reopen_hotplugged(&r);
	stop = idle_now_ns();
	idle_session_stop(&r.sess, stop);
	r.snapshot_ns += read_counters(&r, r.k_end, COUNTERS_AFTER_STOP);
	drop_reset_counters(&r);
	if (emit_summary(&r, start, stop))
		goto cleanup;
	ret = window_finish(&r.win, sig);
	/* a failed assertion (3) or an unknown metric (2) outranks the
	 * command's own status */
	if (r.assert_ret)
		ret = r.assert_ret;

cleanup:
	window_cleanup(&r.win);
	idle_session_close(&r.sess);
	cpuidle_counters_close(&r.kfiles);
	idle_raw_free(&r.prev);
	if (r.out && r.out != stdout)
		fclose(r.out);
	free(r.info);
	free(r.params);
	free(r.k_start);
	free(r.k_end);
	free(r.dev_id);
	groups_free(&r.groups);
	hotplug_free(&r.hotplug);
	topology_free(&r.topo);
	return ret;
}
