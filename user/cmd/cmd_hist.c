/* `idlescope hist METRIC`: one-shot or per-interval histograms of an idle or
 * scheduler latency, in the style of the libbpf tools (runqlat, cpudist). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include <jansson.h>

#include "cmd/cli.h"
#include "model/flatten.h"
#include "cmd/commands.h"
#include "sys/cpuidle_sysfs.h"
#include "session/idle_loader.h"
#include "session/snapshot.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "session/live.h"
#include "session/live_run.h"
#include "model/model.h"
#include "render/render_hist.h"
#include "sys/topology.h"
#include "util/units.h"

static const struct metric {
	const char *name;
	uint32_t id;
	bool per_state; /* has an idle state */
	bool per_task;  /* -p / -c apply */
	const char *what;
} metrics[] = {
	{ "residency", HM_RESIDENCY, true, false, "idle period length" },
	{ "exit-latency", HM_EXIT_LATENCY, true, false,
	  "timer lateness of timer-ended idle periods (measured exit latency)" },
	{ "wakeup-latency", HM_WAKEUP_LATENCY, false, true, "sched_waking -> task running" },
	{ "runq-latency", HM_RUNQ_LATENCY, false, true,
	  "sched_wakeup or preemption -> task running" },
	{ "idle-entry", HM_IDLE_ENTRY, true, false, "switch to the idle task -> cpu_idle enter" },
	{ "idle-exit", HM_IDLE_EXIT, true, false, "cpu_idle exit -> switch away from idle" },
	{ "path-latency", HM_PATH_LATENCY, false, false,
	  "entry of --from FUNC -> the next entry of --to FUNC on the same CPU (fentry)" },
};

struct hist_cmd {
	struct common_opts o;
	const struct metric *m;
	bool per_cpu, per_state;
	const char *unit;
	uint64_t unit_ns, linear_ns;
	long pid;
	const char *comm;
	const char *from, *to; /* path-latency */
	int count, seq;
	bool have_interval_arg;
	struct topology topo;
	struct cpulist sel;
	struct live live; /* tables, BPF session (session/live.h) */
	bool done; /* COUNT intervals printed: the window ended */
	struct hist_slot *slots;
	uint64_t last_ns;
	int assert_ret;
	FILE *out;
};

enum { OPT_PER_CPU = 0x300, OPT_PER_STATE, OPT_UNIT, OPT_LINEAR, OPT_FROM, OPT_TO };

static const struct argp_option options[] = {
	{ "per-cpu", OPT_PER_CPU, NULL, 0, "One histogram per CPU", 0 },
	{ "per-state", OPT_PER_STATE, NULL, 0, "One histogram per idle state", 0 },
	{ "unit", OPT_UNIT, "UNIT", 0, "ns, us (default) or ms for the log2 buckets", 0 },
	{ "linear", OPT_LINEAR, "BUCKET", 0, "Linear buckets BUCKET wide (in UNIT, or 10us)", 0 },
	{ "pid", 'p', "PID", 0, "Only this process (wakeup/runq latency)", 0 },
	{ "comm", 'c', "COMM", 0, "Only tasks named COMM (wakeup/runq latency)", 0 },
	{ "from", OPT_FROM, "FUNC", 0, "path-latency: the kernel function that starts the interval", 0 },
	{ "to", OPT_TO, "FUNC", 0, "path-latency: the kernel function that ends it", 0 },
	{ 0 }
};

static const char doc[] =
	"One-shot histograms: METRIC is residency, exit-latency, wakeup-latency, runq-latency, "
	"idle-entry, idle-exit or path-latency (--from FUNC --to FUNC, where fentry is allowed).\v"
	"With INTERVAL, prints and resets every INTERVAL seconds, COUNT times. Log2 buckets by "
	"default, percentiles under each histogram.";

static bool is_number(const char *s)
{
	uint64_t v;

	return s && *s && !parse_duration(s, 1000000000ULL, &v);
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct hist_cmd *h = state->input;
	char *end;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &h->o;
		break;
	case OPT_PER_CPU:
		h->per_cpu = true;
		break;
	case OPT_PER_STATE:
		h->per_state = true;
		break;
	case OPT_UNIT:
		if (!strcmp(arg, "ns"))
			h->unit_ns = 1;
		else if (!strcmp(arg, "us"))
			h->unit_ns = 1000;
		else if (!strcmp(arg, "ms"))
			h->unit_ns = 1000000;
		else
			argp_error(state, "unknown unit '%s' (ns, us or ms)", arg);
		h->unit = arg;
		break;
	case OPT_LINEAR:
		h->linear_ns = 0;
		if (parse_duration(arg, 0, &h->linear_ns) || !h->linear_ns) {
			/* a bare number is in --unit, applied once all options are read */
			errno = 0;
			h->linear_ns = strtoull(arg, &end, 10);
			if (errno || *end || !h->linear_ns)
				argp_error(state, "--linear needs a bucket width > 0 (e.g. 10, 10us)");
			h->linear_ns |= 1ULL << 63; /* mark: multiply by the unit later */
		}
		break;
	case 'p':
		errno = 0;
		h->pid = strtol(arg, &end, 10);
		if (errno || *end || h->pid <= 0)
			argp_error(state, "invalid PID '%s'", arg);
		if (kill((pid_t)h->pid, 0) && errno == ESRCH)
			argp_error(state, "no process with PID %ld", h->pid);
		break;
	case OPT_FROM:
	case OPT_TO:
		if (!*arg || strlen(arg) > 127 || strspn(arg, "abcdefghijklmnopqrstuvwxyz"
						     "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.") != strlen(arg))
			argp_error(state, "--%s needs a kernel function name", key == OPT_FROM ? "from" : "to");
		*(key == OPT_FROM ? &h->from : &h->to) = arg;
		break;
	case 'c':
		if (!*arg || strlen(arg) > 15)
			argp_error(state, "COMM must be 1-15 characters (the kernel's comm)");
		h->comm = arg;
		break;
	case ARGP_KEY_ARG:
		if (!h->m) {
			for (size_t i = 0; i < sizeof(metrics) / sizeof(metrics[0]); i++)
				if (!strcmp(arg, metrics[i].name))
					h->m = &metrics[i];
			if (!h->m)
				argp_error(state, "unknown METRIC '%s'", arg);
		} else if (strcmp(state->argv[state->next - 2], "--") && is_number(arg) &&
			   !h->o.command && h->count == 0) {
			if (!h->have_interval_arg) {
				if (parse_duration(arg, 1000000000ULL, &h->o.interval_ns) ||
				    h->o.interval_ns < 10000000)
					argp_error(state, "invalid INTERVAL '%s' (at least 0.01)", arg);
				h->have_interval_arg = true;
			} else {
				h->count = atoi(arg);
				if (h->count <= 0 || strspn(arg, "0123456789") != strlen(arg))
					argp_error(state, "invalid COUNT '%s'", arg);
			}
		} else {
			h->o.command = &state->argv[state->next - 1];
			state->next = state->argc;
		}
		break;
	case ARGP_KEY_END:
		if (!h->m)
			argp_error(state, "missing METRIC");
		if ((h->pid || h->comm) && !h->m->per_task)
			argp_error(state, "-p and -c apply to wakeup-latency and runq-latency");
		if (h->pid && h->comm)
			argp_error(state, "use -p or -c, not both");
		if ((h->from || h->to) && h->m->id != HM_PATH_LATENCY)
			argp_error(state, "--from and --to apply to path-latency");
		if (h->m->id == HM_PATH_LATENCY && (!h->from || !h->to))
			argp_error(state, "path-latency needs --from FUNC and --to FUNC");
		if (h->m->id == HM_PATH_LATENCY && !strcmp(h->from, h->to))
			argp_error(state, "--from and --to must be different functions");
		if (h->per_state && !h->m->per_state)
			argp_error(state, "--per-state does not apply to %s", h->m->name);
		if (h->linear_ns >> 63)
			h->linear_ns = (h->linear_ns & ~(1ULL << 63)) * h->unit_ns;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* Sums the selected slots into the views --per-cpu / --per-state ask for. */
static const char *const part_names[WP_NR_PARTS] = {
	[WP_TOTAL] = "waking -> running",
	[WP_WAKEUP] = "waking -> wakeup (wakeup path: IPI, idle exit)",
	[WP_RUNQ] = "wakeup -> running (run queue)",
};

static int build_views(struct hist_cmd *h, struct hist_view **out)
{
	bool parts = h->m->id == HM_WAKEUP_LATENCY;
	int ncpu = h->per_cpu ? h->topo.nr_possible : 1;
	int nstate = h->per_state || parts ? IS_MAX_STATES : 1;
	struct hist_view *v = calloc((size_t)ncpu * (size_t)nstate, sizeof(*v));
	int n = 0;

	if (!v)
		return -1;
	for (int c = 0; c < h->topo.nr_possible; c++) {
		if (!cpulist_has(&h->sel, c))
			continue;
		for (int s = 0; s < IS_MAX_STATES; s++) {
			const struct hist_slot *src = &h->slots[c * IS_MAX_STATES + s];
			int vi = (h->per_cpu ? c : 0) * nstate + (h->per_state || parts ? s : 0);
			struct hist_view *d = &v[vi];

			d->cpu = h->per_cpu ? c : -1;
			d->state = h->per_state || parts ? s : -1;
			if (parts && s < WP_NR_PARTS)
				d->part = part_names[s];
			if (h->per_state) {
				const struct cpuidle_cpu_info *ci = &h->live.info[c];

				d->state_name = ci->nr_states ? (s < ci->nr_states ? ci->states[s].name : "?")
							      : default_idle_state_name(s);
			}
			if (!src->count)
				continue;
			if (!d->h.count || src->min_ns < d->h.min_ns)
				d->h.min_ns = src->min_ns;
			if (src->max_ns > d->h.max_ns)
				d->h.max_ns = src->max_ns;
			d->h.count += src->count;
			d->h.sum_ns += src->sum_ns;
			for (int b = 0; b < IS_DISP_BUCKETS; b++)
				d->h.disp[b] += src->disp[b];
			for (int b = 0; b < IS_HIST_BUCKETS; b++)
				d->h.fine[b] += src->fine[b];
		}
	}
	/* keep per-CPU views of selected CPUs and per-state views with data */
	for (int i = 0; i < ncpu * nstate; i++) {
		bool keep = h->per_cpu ? cpulist_has(&h->sel, v[i].cpu) : true;

		if (h->per_state && !v[i].h.count)
			keep = false;
		if (parts && v[i].state >= WP_NR_PARTS)
			keep = false;
		if (keep)
			v[n++] = v[i];
	}
	*out = v;
	return n;
}

/* A report up to now: the stop of a stopped session (its maps frozen), else
 * the read (and, with -i, the reset) of the histograms, which ends the
 * interval. */
static void print(struct hist_cmd *h, uint64_t now, bool stopped)
{
	struct hist_report r = { .metric = h->m->name, .unit = h->unit, .unit_ns = h->unit_ns,
				 .linear_ns = h->linear_ns, .seq = h->o.interval_ns ? ++h->seq : 0 };
	int err = idle_session_read_hist(&h->live.sess, h->slots, h->o.interval_ns != 0);

	if (!stopped)
		now = idle_now_ns();
	r.duration_ns = now - h->last_ns;
	h->last_ns = now;
	if (err) {
		diag_error("cannot read the histogram map: %s", strerror(-err));
		return;
	}
	if (h->m->id == HM_PATH_LATENCY) {
		struct path_cpu pc;

		if (!idle_session_read_path(&h->live.sess, &pc)) {
			r.path_from = h->from;
			r.path_to = h->to;
			r.path_pending = pc.depth;
			r.path_replaced = pc.replaced;
			r.path_unmatched_to = pc.unmatched_to;
			r.path_overflow = pc.overflow;
		}
	}
	r.nr_views = build_views(h, &r.views);
	if (r.nr_views < 0)
		return;
	if (h->o.format == FMT_TABLE && r.seq)
		fprintf(h->out, "\n[interval %d, %.2fs]\n", r.seq, (double)r.duration_ns / 1e9);
	render_hist(h->out, h->o.format == FMT_JSON ? FMT_JSON : FMT_TABLE, &r);
	if (h->o.nr_asserts) {
		json_t *doc = hist_report_json(&r);
		int ret = cli_check_asserts(&h->o, doc, flatten_hist, h->out);

		if (ret > h->assert_ret)
			h->assert_ret = ret;
		json_decref(doc);
	}
	free(r.views);
}

static bool on_interval(void *ctx, uint64_t now)
{
	struct hist_cmd *h = ctx;

	print(h, now, false);
	h->done = h->count && h->seq >= h->count;
	return h->done;
}

static int setup(void *ctx, int argc, char **argv, struct live_plan *plan)
{
	struct hist_cmd *h = ctx;
	const struct argp_child children[] = { { &common_argp, 0, NULL, 0 }, { 0 } };
	const struct argp argp = { options, parse_opt, "METRIC [INTERVAL [COUNT]] [-- COMMAND...]",
				   doc, children, NULL, NULL };
	int ret;

	/* every shared option but csv; -i is also the positional INTERVAL */
	cli_takes(CLI_ALL, "Print a histogram every SECONDS (as the INTERVAL argument)");
	argp_parse(&argp, argc, argv, ARGP_IN_ORDER, NULL, h);
	idle_set_verbose(h->o.verbose);
	if ((ret = cli_prepare(&h->o, &h->topo, &h->sel, &h->out)))
		return ret;
	h->slots = idle_calloc((size_t)h->topo.nr_possible * IS_MAX_STATES, sizeof(*h->slots));
	if (!h->slots) {
		diag_error("out of memory");
		return EXIT_RUNTIME;
	}
	/* exit-latency needs the state table to know timer-ended periods' states */
	*plan = (struct live_plan){
		.live = &h->live, .topo = &h->topo,
		.opts = { .topology = "none", .verbose = h->o.verbose,
			  .hist = { .metric = h->m->id, .unit_ns = h->unit_ns,
				    .linear_ns = h->linear_ns, .tgid = (uint32_t)h->pid,
				    .comm = h->comm, .path_from = h->from, .path_to = h->to } },
		.duration_ns = h->o.duration_ns, .interval_ns = h->o.interval_ns,
		.command = h->o.command };
	return EXIT_OK;
}

static int loaded(void *ctx)
{
	struct hist_cmd *h = ctx;

	if (h->live.sess.missing[0])
		fprintf(stderr, "idlescope: not on this kernel (skipped): %s\n", h->live.sess.missing);
	return EXIT_OK;
}

static int started(void *ctx, uint64_t start)
{
	struct hist_cmd *h = ctx;

	h->last_ns = start;
	if (!h->o.duration_ns && !h->o.command && h->o.format == FMT_TABLE)
		fprintf(stderr, "Tracing %s... Hit Ctrl-C to end.\n", h->m->what);
	return EXIT_OK;
}

static int finish(void *ctx, uint64_t start, uint64_t stop)
{
	struct hist_cmd *h = ctx;

	(void)start;
	/* the rest of the last interval, or the whole run */
	if (!h->o.interval_ns || (!h->done && stop - h->last_ns > 1000000))
		print(h, stop, true);
	return h->assert_ret;
}

static void cleanup(void *ctx)
{
	struct hist_cmd *h = ctx;

	if (h->out && h->out != stdout)
		fclose(h->out);
	free(h->slots);
}

static const struct live_ops hist_ops = {
	.setup = setup, .loaded = loaded, .started = started, .on_interval = on_interval,
	.finish = finish, .cleanup = cleanup,
};

int cmd_hist(int argc, char **argv)
{
	struct hist_cmd h = { .o = { .format = FMT_TABLE }, .unit = "us", .unit_ns = 1000,
			      .out = stdout };
	int ret = live_run(&hist_ops, &h, argc, argv);

	topology_free(&h.topo);
	return ret;
}
