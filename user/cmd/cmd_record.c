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
#include "cmd/live_prom.h"
#include "sys/group_levels.h"
#include "sys/cpuidle_sysfs.h"
#include "session/idle_loader.h"
#include "session/snapshot.h"
#include "util/clock.h"
#include "session/live.h"
#include "session/live_run.h"
#include "sys/hotplug.h"
#include "sys/interrupts.h"
#include "sys/kallsyms.h"
#include "model/model.h"
#include "render/render.h"
#include "sys/topology.h"
#include "sys/sysfs.h"
#include "session/parts.h"
#include "util/atomic_file.h"
#include "util/workload.h"

struct record {
	struct common_opts o;
	bool wake; /* wakeup attribution (default on; --no-wakeups) */
	const char *topology; /* --topology, NULL = sysfs */
	unsigned int without; /* --without: enum session_part bits */
	struct session_cli session_cli; /* session_argp's view of the three above */
	bool packing;
	int assert_ret;    /* --fail-if: EXIT_OK, EXIT_ASSERT or EXIT_USAGE */
	struct topology topo;
	struct live live; /* tables, groups, BPF session, hotplug (session/live.h) */
	struct cpuidle_counters *k_start, *k_end;
	struct cpuidle_counter_files counter_files; /* the sysfs counters of sel */
	uint64_t edge_from;   /* the first sysfs read before the start */
	uint64_t snapshot_ns; /* first read to start, stop to last read */
	struct cpulist sel;
	uint64_t *dev_id;       /* cpuidle_device_id() at the start */
	uint64_t start;
	FILE *out;
	struct idle_raw prev; /* last interval snapshot */
	uint64_t prev_ns;
	int seq;
	/* --format prom: -o's file, replaced whole (NULL: stdout), and the
	 * snapshots that -i writes into it */
	const char *textfile;
	struct live_prom prom;
};

static const char doc[] =
	"Measure per-CPU idle-state residency and prediction error (too deep / too shallow), "
	"cross-checked against the kernel's cpuidle counters.\v"
	"Runs for -d SECONDS, for the lifetime of COMMAND, or until Ctrl-C/SIGTERM; each prints "
	"a complete summary. With COMMAND, its exit status is idlescope's. --format prom -o "
	"DIR/idlescope.prom writes serve's metric families for node_exporter's textfile "
	"collector, replacing the file whole (write, then rename); with -i it is rewritten "
	"every interval, counters cumulative from the start.";

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
		r->session_cli = (struct session_cli){ &r->wake, &r->topology, &r->without };
		state->child_inputs[1] = &r->session_cli;
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

/* Before the end snapshot, for each CPU hotplug took down and up: the same
 * cpuidle device (counters kept) gets its re-created files opened again; a
 * re-registered one (counters zeroed) or one offline now gets no delta. */
static void reopen_hotplugged(struct record *r)
{
	for (int c = 0; c < r->topo.nr_possible; c++) {
		if (!cpulist_has(&r->sel, c) || !hotplug_events(&r->live.hotplug, c))
			continue;
		if (!r->live.hotplug.cpu[c].offline_since && r->dev_id[c] &&
		    cpuidle_device_id(c) == r->dev_id[c])
			cpuidle_counters_reopen_cpu(&r->counter_files, c, &r->live.info[c]);
		else
			r->dev_id[c] = 0; /* see drop_reset_counters */
	}
}

/* After the end snapshot: no delta for the CPUs reopen_hotplugged gave up on. */
static void drop_reset_counters(struct record *r)
{
	for (int c = 0; c < r->topo.nr_possible; c++)
		if (cpulist_has(&r->sel, c) && hotplug_events(&r->live.hotplug, c) && !r->dev_id[c])
			for (int i = 0; i < IS_MAX_STATES; i++)
				r->k_end[c * IS_MAX_STATES + i].valid = false;
}


/* The interval ends when its counters had been read, so that it holds the
 * periods the read saw end. */
static void print_interval(struct record *r, uint64_t start)
{
	struct interval_sample iv = { 0 };
	struct idle_raw cur;
	uint64_t now;

	if (idle_session_read_stats(&r->live.sess, &cur)) {
		diag_error("cannot read the BPF maps for interval %d", r->seq + 1);
		return;
	}
	now = idle_now_ns();
	iv.seq = ++r->seq;
	iv.offset_ns = now - start;
	iv.duration_ns = now - r->prev_ns;
	iv.nr_cpus = cpulist_count(&r->sel);
	for (int c = 0; c < r->topo.nr_possible; c++) {
		const struct cpuidle_cpu_info *info = &r->live.info[c];
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

/* --format prom: the Prometheus text into -o's file, replaced whole, or
 * onto stdout. s and raw: record's final summary; NULL: the maps now. */
static int write_prom(struct record *r, struct summary *s, const struct idle_raw *raw,
		      uint64_t t0)
{
	struct atomic_file af;
	FILE *f = r->out;
	int err;

	if (r->textfile && (err = atomic_file_begin(&af, r->textfile)))
		goto fail;
	if (r->textfile)
		f = af.f;
	err = s ? live_prom_write(&r->prom, s, raw, t0, f) : live_prom_snapshot(&r->prom, f);
	if (r->textfile && err)
		atomic_file_abort(&af);
	else if (r->textfile)
		err = atomic_file_commit(&af);
	else if (!err && (fflush(f) || ferror(f)))
		err = -EIO;
	if (!err)
		return 0;
fail:
	diag_error("cannot write '%s': %s", r->textfile ? r->textfile : "stdout", strerror(-err));
	return -1;
}

static bool on_interval(void *ctx, uint64_t now)
{
	struct record *r = ctx;

	(void)now; /* the tick's time: the interval ends at its read */
	if (r->textfile)
		write_prom(r, NULL, NULL, 0); /* an error said; the next interval tries again */
	else
		print_interval(r, r->start);
	return false;
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
	s->have_util = r->packing && !strstr(r->live.sess.missing, "pelt_cfs_tp");
	s->have_ou = r->packing && !strstr(r->live.sess.missing, "sched_overutilized_tp");
}

static int emit_summary(struct record *r, uint64_t start, uint64_t stop)
{
	struct window_capture w = { .start_ns = start, .stop_ns = stop, .info = r->live.info,
				    .groups = r->live.groups.nr_groups ? &r->live.groups : NULL,
				    .snapshot_ns = r->snapshot_ns, .hotplug = &r->live.hotplug,
				    .k_start = r->k_start, .k_end = r->k_end,
				    .irq_name = irq_name, .ksym_resolve = kallsyms_resolve };
	struct summary s = { .sys = r->live.sys, .topo = &r->topo, .idle_attach = r->live.sess.idle_attach,
			     .freq_status = r->live.freq ? "ok" : "no cpufreq on this machine",
			     .miss_attach = r->live.sess.have_idle_miss ? r->live.sess.miss_attach : NULL,
			     .wake_enabled = r->live.sess.wake, .missing_events = r->live.sess.missing,
			     .idle_fexit_func = r->live.sess.idle_fexit_func,
			     .idle_fexit_why = r->live.sess.idle_fexit_why,
			     .gov_inputs = r->live.sess.gov,
			     .gov_why = r->live.sess.gov_why,
			     .start_state = { .live = true,
					      .unknown_cpus = r->live.sess.unknown_at_start,
					      .poked = r->live.sess.poke.cpus,
					      .poked_busy = r->live.sess.poke.busy,
					      .poked_woken = r->live.sess.poke.woken,
					      .poke_ns = r->live.sess.poke.ns,
					      .poke_why = r->live.sess.poke.why } };
	struct idle_raw raw;
	char without[96];
	uint64_t t0 = idle_now_ns();
	json_t *doc;
	int err;

	parts_format(r->without, without, sizeof(without));
	s.without = without;
	if ((err = idle_session_read(&r->live.sess, &raw))) {
		diag_error("cannot read the BPF maps: %s", strerror(-err));
		return -1;
	}
	w.raw = &raw;
	if (r->live.sess.ledger) {
		idle_session_qos_changed(&r->live.sess); /* the last request records in */
		w.ledger = r->live.sess.ledger;
		w.qos_lost = idle_session_qos_lost(&r->live.sess);
	}
	eas_context(r, &s);
	if (r->live.freq) {
		struct groups fd;
		char err[256] = "";

		if (!groups_build(&r->topo, "freq-domain", &fd, err, sizeof(err))) {
			for (int i = 0; i < fd.nr_groups && i < 64; i++) {
				snprintf(s.freq_domains[i].name, sizeof(s.freq_domains[i].name), "domain%d", i);
				if (!(s.freq_domains[i].cpus = cpulist_str(&fd.cpus[i])))
					break;
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
	/* --fail-if sees the summary as JSON has it: the prom write below holds
	 * its counters monotonic in place */
	doc = r->o.nr_asserts ? summary_json(&s) : NULL;
	if (r->o.format == FMT_PROM)
		err = write_prom(r, &s, &raw, t0);
	else
		err = render_summary(r->out, r->o.format, &s, NULL, r->o.interval_ns != 0);
	if (!err && r->o.nr_asserts)
		r->assert_ret = cli_check_asserts(&r->o, doc, flatten_summary, r->out);
	json_decref(doc);
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

	r->k_start = calloc(n * IS_MAX_STATES, sizeof(*r->k_start));
	r->k_end = calloc(n * IS_MAX_STATES, sizeof(*r->k_end));
	r->dev_id = calloc(n, sizeof(*r->dev_id));
	return r->k_start && r->k_end && r->dev_id ? 0 : -1;
}

static int setup(void *ctx, int argc, char **argv, struct live_plan *plan)
{
	struct record *r = ctx;
	int ret;

	cli_takes(CLI_ALL | CLI_CSV | CLI_PROM, NULL);
	argp_parse(&record_argp, argc, argv, ARGP_IN_ORDER, NULL, r);
	idle_set_verbose(r->o.verbose);
	if (r->o.format == FMT_PROM) {
		if (r->o.interval_ns && !r->o.output) {
			diag_error("--format prom -i rewrites a file: give it with -o FILE");
			return EXIT_USAGE;
		}
		/* not opened by cli_prepare: replaced whole at each write */
		r->textfile = r->o.output;
		r->o.output = NULL;
	}
	if ((ret = cli_prepare(&r->o, &r->topo, &r->sel, &r->out)))
		return ret;
	if (r->textfile && (ret = atomic_file_check(r->textfile))) {
		diag_error("cannot write '%s': %s", r->textfile, strerror(-ret));
		return EXIT_RUNTIME;
	}
	if (alloc_tables(r)) {
		diag_error("out of memory");
		return EXIT_RUNTIME;
	}
	*plan = (struct live_plan){ .live = &r->live, .topo = &r->topo,
				    .opts = { .topology = r->topology, .wake = r->wake,
					      .without = r->without, .packing = r->packing,
					      .freq = true, .track_hotplug = true,
					      .verbose = r->o.verbose },
				    .duration_ns = r->o.duration_ns, .interval_ns = r->o.interval_ns,
				    .command = r->o.command };
	return EXIT_OK;
}

/* the Prometheus snapshots and the sysfs counters, before the attach */
static int loaded(void *ctx)
{
	struct record *r = ctx;

	if (r->o.format == FMT_PROM &&
	    live_prom_init(&r->prom, &r->live, &r->sel, 0,
			   &(struct prom_scrape){ .wake = r->live.sess.wake, .textfile = true,
						  .no_timers = (r->without & PART_TIMERS) != 0 })) {
		diag_error("out of memory");
		return EXIT_RUNTIME;
	}
	for (int c = 0; c < r->topo.nr_possible; c++)
		r->dev_id[c] = cpulist_has(&r->sel, c) ? cpuidle_device_id(c) : 0;
	if (cpuidle_counters_open(&r->counter_files, r->topo.nr_possible, &r->sel, r->live.info)) {
		diag_error("out of memory");
		return EXIT_RUNTIME;
	}
	return EXIT_OK;
}

/* Periods ending between a CPU's sysfs reads and the window's edges are on
 * one side only: the time from the first read to start, and from stop to
 * the last read, is measured edge to edge (snapshot_ns), and BPF counts the
 * exits meanwhile (edge exits), for the cross-check. */
static void before_start(void *ctx)
{
	struct record *r = ctx;

	r->edge_from = idle_now_ns();
	idle_session_edge_from(&r->live.sess, r->edge_from);
	cpuidle_counters_snapshot(&r->counter_files, r->k_start, COUNTERS_BEFORE_START);
}

static int started(void *ctx, uint64_t start)
{
	struct record *r = ctx;

	r->snapshot_ns = start - r->edge_from;
	r->start = start;
	r->prom.start = start;
	/* the textfile exists from the start */
	if (r->o.interval_ns && r->textfile && write_prom(r, NULL, NULL, 0))
		return EXIT_RUNTIME;
	if (r->o.interval_ns && !r->textfile) {
		idle_session_read_stats(&r->live.sess, &r->prev);
		r->prev_ns = start;
	}
	return EXIT_OK;
}

/* the last hotplug poll before stop: between stop and the counter read
 * only the read itself may pass, which the edge allowance measures */
static void before_stop(void *ctx)
{
	struct record *r = ctx;

	hotplug_poll(&r->live.hotplug, idle_now_ns());
	reopen_hotplugged(r);
}

static int finish(void *ctx, uint64_t start, uint64_t stop)
{
	struct record *r = ctx;

	cpuidle_counters_snapshot(&r->counter_files, r->k_end, COUNTERS_AFTER_STOP);
	r->snapshot_ns += idle_now_ns() - stop;
	drop_reset_counters(r);
	if (emit_summary(r, start, stop))
		return -1;
	return r->assert_ret;
}

static void cleanup(void *ctx)
{
	struct record *r = ctx;

	cpuidle_counters_close(&r->counter_files);
	idle_raw_free(&r->prev);
	live_prom_free(&r->prom);
	if (r->out && r->out != stdout)
		fclose(r->out);
	free(r->k_start);
	free(r->k_end);
	free(r->dev_id);
}

static const struct live_ops record_ops = {
	.setup = setup, .loaded = loaded, .before_start = before_start, .started = started,
	.on_interval = on_interval, .before_stop = before_stop, .finish = finish,
	.cleanup = cleanup,
};

int cmd_record(int argc, char **argv)
{
	struct record r = { .o = { .format = FMT_TABLE }, .out = stdout, .wake = true };
	int ret = live_run(&record_ops, &r, argc, argv);

	topology_free(&r.topo); /* after live_run's live_close */
	return ret;
}
