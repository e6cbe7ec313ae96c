/* `idlescope replay FILE`: a recorded trace (trace-cmd report, ftrace text,
 * idlestat's trace file) through the same BPF handlers as `record`, in
 * batches through BPF_PROG_TEST_RUN, rendered like `record`. The machine the
 * trace came from is described by the file's header or --profile, never by
 * the machine running the replay. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cmd/cli.h"
#include "cmd/commands.h"
#include "model/flatten.h"
#include "session/idle_loader.h"
#include "session/snapshot.h"
#include "util/clock.h"
#include "model/model.h"
#include "render/render.h"
#include "render/render_replay.h"
#include "replay/replay_feed.h"
#include "replay/timer_match.h"
#include "replay/trace_dat.h"
#include "replay/trace_gaps.h"
#include "replay/trace_idle_task.h"
#include "replay/trace_machine.h"
#include "replay/trace_parse.h"
#include "replay/trace_profile.h"
#include "util/units.h"

#define MAX_TRACE_BYTES (16ULL << 30)

struct replay {
	struct common_opts o;
	const char *file;
	const char *profile_path;
	const char *topology; /* none, custom:..., NULL = header/profile */
	const char *instance; /* a trace.dat's buffer, NULL = all */
	bool wake;
	int assert_ret;
	char *buf;
	size_t len;
	struct trace_data td;
	struct trace_profile prof;
	bool have_prof;
	struct trace_machine m; /* the traced machine */
	struct cpulist sel;
	struct idle_session sess;
	struct timer_match timers;
	struct replay_feed fed;
	uint64_t parse_ns; /* reading and parsing the file, sorting */
	FILE *out;
};

static const char doc[] =
	"Replay a recorded trace (trace-cmd's trace.dat or its report text, the ftrace trace "
	"file, or an idlestat trace file) through the same BPF handlers as record, and print the same summary.\v"
	"The idle-state tables and groups come from the file's idlestat header or from "
	"--profile FILE (docs/replay.md), never from this machine; without either, states are "
	"reported by index.";

enum { OPT_PROFILE = 0x300, OPT_NO_WAKEUPS, OPT_TOPOLOGY, OPT_INSTANCE };

static const struct argp_option options[] = {
	{ "profile", OPT_PROFILE, "FILE", 0,
	  "The traced machine: CPU count, idle-state tables, groups (JSON, docs/replay.md)", 0 },
	{ "no-wakeups", OPT_NO_WAKEUPS, NULL, 0, "Skip wakeup attribution", 0 },
	{ "topology", OPT_TOPOLOGY, "SPEC", 0,
	  "Groups: from the header or profile (default), custom:0-3,4-7, or none", 0 },
	{ "instance", OPT_INSTANCE, "NAME", 0,
	  "A trace.dat's buffer: top, or NAME of trace-cmd record -B NAME (default: all, merged)", 0 },
	{ 0 }
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct replay *r = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &r->o;
		break;
	case OPT_PROFILE:
		r->profile_path = arg;
		break;
	case OPT_NO_WAKEUPS:
		r->wake = false;
		break;
	case OPT_TOPOLOGY:
		r->topology = arg;
		break;
	case OPT_INSTANCE:
		r->instance = arg;
		break;
	case ARGP_KEY_ARG:
		if (r->file)
			argp_error(state, "one trace file at a time");
		r->file = arg;
		break;
	case ARGP_KEY_END:
		if (!r->file)
			argp_error(state, "which trace? (idlescope replay FILE)");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child children[] = { { &common_argp, 0, NULL, 0 }, { 0 } };
static const struct argp replay_argp = { options, parse_opt, "FILE", doc, children, NULL, NULL };

static int read_file(struct replay *r)
{
	FILE *f = strcmp(r->file, "-") ? fopen(r->file, "re") : stdin;
	size_t cap = 1 << 20;

	if (!f) {
		diag_error("cannot read '%s': %s", r->file, strerror(errno));
		return -1;
	}
	r->buf = malloc(cap);
	while (r->buf) {
		size_t n = fread(r->buf + r->len, 1, cap - r->len, f);

		r->len += n;
		if (n == 0)
			break;
		if (r->len == cap) {
			char *b = cap < MAX_TRACE_BYTES ? realloc(r->buf, cap * 2) : NULL;

			if (!b) {
				free(r->buf);
				r->buf = NULL;
				break;
			}
			r->buf = b;
			cap *= 2;
		}
	}
	if (!r->buf || ferror(f)) {
		diag_error("cannot read '%s': %s", r->file, r->buf ? strerror(errno) : "out of memory");
		if (f != stdin)
			fclose(f);
		return -1;
	}
	if (f != stdin)
		fclose(f);
	return 0;
}

static double events_per_s(const struct replay *r)
{
	return r->fed.feed_ns ? (double)r->fed.replayed * 1e9 / (double)r->fed.feed_ns : 0.0;
}

/* Including reading, parsing and sorting the file. */
static double total_events_per_s(const struct replay *r)
{
	uint64_t ns = r->fed.feed_ns + r->parse_ns;

	return ns ? (double)r->fed.replayed * 1e9 / (double)ns : 0.0;
}

/* The parser's findings, as summary warnings (table, JSON, CSV alike). */
static void warn_trace(const struct replay *r, struct summary *s)
{
	const struct trace_data *td = &r->td;

	if (td->garbled) {
		const char *unit = td->format == TF_TRACE_DAT ? "record" : "line";

		summary_warn(s, "%s: %" PRIu64 " %s%s not understood (first: %s %u), skipped",
			     r->file, td->garbled, unit, td->garbled == 1 ? "" : "s", unit,
			     td->first_garbled_line);
	}
	if (td->truncated)
		summary_warn(s, "%s: the last line (line %u) has no newline: not replayed (truncated "
				"file?)", r->file, td->truncated_line);
	if (td->lost_events)
		summary_warn(s, "%s: the tracer lost %" PRIu64 " events: periods around them are "
				"wrong or missing", r->file, td->lost_events);
	if (td->drop_markers)
		summary_warn(s, "%s: the tracer dropped events %" PRIu64 " time%s ([EVENTS DROPPED]): "
				"periods around them are wrong or missing", r->file, td->drop_markers,
			     td->drop_markers == 1 ? "" : "s");
	if (td->overwritten)
		summary_warn(s, "%s: the ring buffer overwrote its oldest %" PRIu64 " events "
				"(entries-written > entries-in-buffer): each CPU's events begin at its "
				"own first one, so idle at the window's start (edge idle) is uncertain",
			     r->file, td->overwritten);
	if (td->gap_periods)
		summary_warn(s, "%s: %" PRIu64 " idle period%s open across lost events dropped "
				"(length unknown; the CPU counts as busy there)", r->file,
			     td->gap_periods, td->gap_periods == 1 ? "" : "s");
	if (td->out_of_order)
		summary_warn(s, "%s: %" PRIu64 " events earlier than the previous one of their CPU; "
				"%" PRIu64 " lines replayed before a line above them, %" PRIu64
				" kept after their CPU's previous line at its time", r->file,
			     td->out_of_order, td->reordered, td->held_back);
	else if (td->reordered || td->held_back)
		summary_warn(s, "%s: %" PRIu64 " lines replayed before a line above them (the CPUs' "
				"buffers merged by time), %" PRIu64 " kept after their CPU's previous "
				"line at its time", r->file, td->reordered, td->held_back);
	if (td->dropped_states)
		summary_warn(s, "%s: %" PRIu64 " idle states beyond %d per CPU ignored", r->file,
			     td->dropped_states, IS_MAX_STATES);
	if (td->unknown_residency)
		summary_warn(s, "%s: %" PRIu64 " idle states with target residency -1 in the header, "
				"taken as 0", r->file, td->unknown_residency);
	if (r->m.index_tables)
		summary_warn(s, "%s: no idle-state table for %d CPU%s (give --profile FILE): states "
				"named by index, without target residencies or above/below", r->file,
			     r->m.index_tables, r->m.index_tables == 1 ? "" : "s");
	else if (!r->m.exit_latency_known && !r->m.no_driver)
		summary_warn(s, "idlestat traces carry no exit latencies: taken as 0 for below "
				"(give --profile for the real table)");
	if (r->timers.unmatched)
		summary_warn(s, "%" PRIu64 " hrtimer_expire_entry events without an hrtimer_start of "
				"their timer in the trace: their timer and lateness are not known",
			     r->timers.unmatched);
	if (!td->idle_events)
		summary_warn(s, "%s: no power:cpu_idle events: idle states were not recorded, idle "
				"and busy time are unknown; %s", r->file,
			     td->idle_task ? "shown instead: the time the idle task ran (sched_switch)"
					   : "no sched_switch either");
	if (td->idle_task_dropped)
		summary_warn(s, "%s: %" PRIu64 " runs of the idle task of unknown length (a "
				"sched_switch lost: its prev is not what the previous switch ran; or "
				"lost events): not counted in idle_task_ns", r->file,
			     td->idle_task_dropped);
	if (r->fed.rejected)
		summary_warn(s, "%" PRIu64 " events were rejected by the replay program",
			     r->fed.rejected);
	if (!r->fed.replayed)
		summary_warn(s, "%s: no events to replay", r->file);
}

/* What summary_build took from this machine, replaced by the trace's view. */
static void trace_view(struct replay *r, struct summary *s)
{
	snprintf(s->kernel, sizeof(s->kernel), "unknown (replayed trace)");
	for (int i = 0; i < s->nr_warnings; i++)
		if (!strncmp(s->warnings[i], "power:cpu_idle_miss is not available", 36)) {
			char *w = strdup("the trace has no power:cpu_idle_miss events: above/below are "
					 "the BPF classification only");

			if (w) {
				free(s->warnings[i]);
				s->warnings[i] = w;
			}
		}
	s->have_capacity = false;
	for (int c = 0; c < s->nr_cpus; c++)
		s->cpus[c].capacity = -1;
	for (int i = 0; i < s->nr_wake_rows; i++) {
		struct wake_row *w = &s->wake_rows[i];

		if (w->kind == WDETAIL_TIMER_FN) {
			snprintf(w->name, sizeof(w->name), "%s",
				 w->detail >= 1 && w->detail <= (uint64_t)r->td.nr_fn_names
					 ? r->td.fn_names[w->detail - 1] : "unknown");
			continue;
		}
		if (w->kind != WDETAIL_IRQ)
			continue;
		snprintf(w->name, sizeof(w->name), "irq %" PRIu64, w->detail);
		for (int k = 0; k < r->td.nr_irq_names; k++)
			if (r->td.irq_names[k].irq == w->detail)
				snprintf(w->name, sizeof(w->name), "%s", r->td.irq_names[k].name);
	}
}

static struct replay_report report_of(const struct replay *r)
{
	return (struct replay_report){ .file = r->file, .td = &r->td, .m = &r->m, .fed = &r->fed,
				       .timers = &r->timers, .parse_ns = r->parse_ns,
				       .events_per_s = events_per_s(r),
				       .total_events_per_s = total_events_per_s(r) };
}

static int emit(struct replay *r)
{
	uint64_t start = REPLAY_BASE_NS, stop = replay_stop_ns(&r->td);
	size_t nk = (size_t)r->m.nr_cpus * IS_MAX_STATES;
	struct cpuidle_counters *k0 = calloc(nk, sizeof(*k0)), *k1 = calloc(nk, sizeof(*k1));
	struct window_capture w = { .start_ns = start, .stop_ns = stop, .info = r->m.info,
				    .groups = r->m.groups.nr_groups ? &r->m.groups : NULL,
				    .k_start = k0, .k_end = k1 };
	struct summary s = { .command = "replay", .topo = &r->m.topo, .idle_attach = r->td.idle_events ? "trace" : "not in the trace",
			     .miss_attach = r->fed.have_miss ? "trace" : NULL,
			     .wake_enabled = r->wake, .missing_events = "",
			     .freq_status = r->fed.have_freq ? "ok" : "no cpu_frequency events in the trace",
			     .sched_energy_aware = -1, .energy_model = "unknown (replayed trace)",
			     /* no tracepoint carries them */
			     .gov_why = "not in a trace" };
	struct replay_report rep = report_of(r);
	struct idle_raw raw;
	json_t *doc = NULL;
	int err = -1;
	int64_t *task = calloc((size_t)r->m.nr_cpus, sizeof(*task));

	for (int c = 0; task && c < r->m.nr_cpus; c++)
		task[c] = trace_idle_task_ns(r->td.idle_task, c, r->td.min_ts, r->td.max_ts);
	w.idle_task_ns = task;
	w.idle_unrecorded = !r->td.idle_events;
	if (!k0 || !k1 || !task) {
		diag_error("out of memory");
		goto out;
	}
	snprintf(s.sys.driver, sizeof(s.sys.driver), "%s",
		 r->have_prof && r->prof.driver[0] ? r->prof.driver
		 : r->m.no_driver			   ? "none"
						   : "unknown (trace)");
	snprintf(s.sys.governor, sizeof(s.sys.governor), "%s",
		 r->have_prof ? r->prof.governor : "");
	if ((err = idle_session_read(&r->sess, &raw))) {
		diag_error("cannot read the BPF maps: %s", strerror(-err));
		err = -1;
		goto out;
	}
	w.raw = &raw;
	if (summary_build(&s, &w, &r->sel)) {
		idle_raw_free(&raw);
		diag_error("out of memory");
		err = -1;
		goto out;
	}
	trace_view(r, &s);
	warn_trace(r, &s);
	if (r->o.format == FMT_JSON || r->o.nr_asserts)
		doc = replay_summary_json(&s, &rep);
	if (r->o.format == FMT_JSON && !doc) {
		err = -1; /* out of memory: not the summary without its replay object */
		fputc('\n', r->out);
	} else {
		err = render_summary(r->out, r->o.format, &s, doc, false);
	}
	if (r->o.format == FMT_TABLE)
		render_replay_table(r->out, &rep);
	if (!err)
		r->assert_ret = cli_check_asserts(&r->o, doc, flatten_summary, r->out);
	json_decref(doc);
	summary_free(&s);
	idle_raw_free(&raw);
	if (fflush(r->out) || ferror(r->out)) {
		diag_error("cannot write the report: %s", strerror(errno));
		err = -1;
	}
out:
	free(task);
	free(k0);
	free(k1);
	return err;
}

/* Halt-polling is counted where the traced machine's driver and governor
 * were haltpoll (the profile says so), or the trace has the governor's
 * guest_halt_poll_ns events. */
static bool traced_haltpoll(const struct replay *r)
{
	if (r->have_prof && !strcmp(r->prof.driver, "haltpoll") &&
	    !strcmp(r->prof.governor, "haltpoll"))
		return true;
	for (size_t i = 0; i < r->td.nr_ev; i++)
		if (r->td.ev[i].re.kind == RE_HALT_POLL)
			return true;
	return false;
}

int cmd_replay(int argc, char **argv)
{
	struct replay r = { .o = { .format = FMT_TABLE }, .out = stdout, .wake = true };
	char err[256];
	int ret = EXIT_RUNTIME;

	cli_takes(CLI_CPUS | CLI_OUTPUT | CLI_FORMAT | CLI_VERBOSE | CLI_FAIL_IF | CLI_CSV, NULL);
	argp_parse(&replay_argp, argc, argv, ARGP_IN_ORDER, NULL, &r);
	idle_set_verbose(r.o.verbose);
	if (r.o.command) {
		diag_error("replay takes no COMMAND (it reads FILE)");
		return EXIT_USAGE;
	}
	if (r.profile_path) {
		if (trace_profile_load(r.profile_path, &r.prof, err, sizeof(err))) {
			diag_error("--profile %s: %s", r.profile_path, err);
			return EXIT_USAGE;
		}
		r.have_prof = true;
	}
	r.parse_ns = idle_now_ns();
	if (read_file(&r))
		goto cleanup;
	if (trace_dat_is(r.buf, r.len) ? trace_dat_parse_buffer(r.buf, r.len, r.instance, &r.td)
				       : trace_parse_buffer(r.buf, r.len, &r.td)) {
		diag_error("%s: %s", r.file, r.td.error);
		goto cleanup;
	}
	if (r.instance && r.td.format != TF_TRACE_DAT) {
		diag_error("--instance is for trace.dat files; %s is %s text", r.file,
			   trace_format_name(r.td.format));
		ret = EXIT_USAGE;
		goto cleanup;
	}
	free(r.buf);
	r.buf = NULL;
	trace_sort_events(&r.td);
	trace_drop_gap_periods(&r.td);
	r.parse_ns = idle_now_ns() - r.parse_ns;
	r.m = (struct trace_machine){ .file = r.file, .td = &r.td,
				      .prof = r.have_prof ? &r.prof : NULL, .topology = r.topology };
	if ((ret = trace_machine_build(&r.m)))
		goto cleanup;
	ret = EXIT_RUNTIME;
	if (cli_resolve_cpus(&r.o, &r.m.topo.possible, &r.sel)) {
		ret = EXIT_USAGE;
		goto cleanup;
	}
	if (r.o.output && !(r.out = fopen(r.o.output, "we"))) {
		diag_error("cannot write '%s': %s", r.o.output, strerror(errno));
		r.out = stdout;
		goto cleanup;
	}
	if (idle_session_open(&r.sess, r.m.nr_cpus,
			      &(struct session_opts){ .replay = true, .wake = r.wake,
						      .groups = r.m.groups.nr_groups ? &r.m.groups
										     : NULL,
						      .haltpoll = traced_haltpoll(&r) },
			      err, sizeof(err))) {
		diag_error("%s", err);
		goto cleanup;
	}
	for (int c = 0; c < r.m.nr_cpus; c++) {
		struct idle_params p;

		cpuidle_to_params(&r.m.info[c], &p);
		if (idle_session_set_params(&r.sess, c, &p)) {
			diag_error("cannot write CPU %d's idle-state table: %s", c, strerror(errno));
			goto cleanup;
		}
	}
	if ((ret = timer_match_events(&r.td, &r.timers)) ||
	    (ret = replay_feed(&r.sess, &r.td, &r.fed))) {
		diag_error("replay failed: %s", strerror(-ret));
		ret = EXIT_RUNTIME;
		goto cleanup;
	}
	if (r.o.verbose)
		fprintf(stderr, "idlescope: replayed %" PRIu64 " events in %.3f ms: %.0f events/s "
				"(%.0f events/s with reading and parsing, %.3f ms)\n",
			r.fed.replayed, (double)r.fed.feed_ns / 1e6, events_per_s(&r), total_events_per_s(&r),
			(double)r.parse_ns / 1e6);
	ret = emit(&r) ? EXIT_RUNTIME : EXIT_OK;
	if (!ret && r.assert_ret)
		ret = r.assert_ret;
cleanup:
	idle_session_close(&r.sess);
	if (r.out && r.out != stdout)
		fclose(r.out);
	free(r.buf);
	trace_data_free(&r.td);
	if (r.have_prof)
		trace_profile_free(&r.prof);
	trace_machine_free(&r.m);
	return ret;
}
