/* `idlescope ab`: run a workload (or, with --workload, each of several)
 * under each variant of some settings (sysctl, cpuidle governor,
 * stateN.disable), interleaved and repeated, record each run, and tell
 * whether the differences are significant (Welch's t-test at 95%, like
 * ministat); a sweep gives compare's table per workload. Settings are
 * always restored. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <sys/mman.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cli.h"
#include "cmd/commands.h"
#include "util/child_run.h"
#include "model/compare_view.h"
#include "model/flatten.h"
#include "model/workload_figure.h"
#include "report/summary_file.h"
#include "sys/cpuidle_sysfs.h"
#include "sys/settings.h"
#include "model/stats.h"
#include "render/render_ab.h"
#include "util/units.h"

#define MAX_SETS 4
#define MAX_METRICS (32 + NR_WL_FIGURES)
#define MAX_VARIANTS 64
#define MAX_WORKLOADS 8

struct ab {
	struct common_opts o;
	int nr_sets;
	struct setting sets[MAX_SETS];
	int repeat;
	int nr_metrics;
	const char *metrics[MAX_METRICS];
	int nr_variants;
	int choice[MAX_VARIANTS][MAX_SETS]; /* value index of each set */
	int nr_workloads;             /* --workload; 0: -d or -- COMMAND */
	const char *wl_name[MAX_WORKLOADS], *wl_cmd[MAX_WORKLOADS];
	double *values; /* [workload][metric][variant][repeat] */
	bool *have;     /* [workload][metric][variant] */
	json_t **docs;  /* sweep: [workload][variant][repeat], the runs' summaries */
	int out_fd;     /* sweep: the workload's standard output, read for its figures */
	const char *save_dir; /* --save-runs: each run's summary kept there */
	const char *html;     /* --html, or -o NAME.html with the table format */
	bool per_cpu;         /* compare's tables: rows per CPU too */
	FILE *out;
	char warning[256]; /* "" none; on stderr, in the table and the JSON */
};

static const char *const default_metrics[] = {
	"duration_ns", "total.idle_share", "total.entries", "total.above_ratio",
	"total.below_ratio",
};
/* and what a haltpoll parameter changes: the polling, its outcome, the
 * latency it saved (docs/metrics.md#halt-polling) */
static const char *const haltpoll_metrics[] = {
	"total.haltpoll.poll_ns", "total.haltpoll.woken", "total.haltpoll.timed_out",
	"total.haltpoll.saved_ns",
};

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	interrupted = sig;
}

enum { OPT_SET = 0x400, OPT_REPEAT, OPT_METRIC, OPT_SET_FROM, OPT_WORKLOAD, OPT_SAVE_RUNS,
       OPT_HTML, OPT_PER_CPU };

static const struct argp_option options[] = {
	{ "set", OPT_SET, "KEY=V1,V2", 0,
	  "A setting and its variants: a sysctl (kernel.sched_energy_aware), governor, "
	  "stateN.disable, cpu_dma_latency, or a haltpoll parameter (guest_halt_poll_ns, "
	  "guest_halt_poll_grow, _grow_start, _shrink, _allow_shrink); repeatable (variants are "
	  "all combinations)", 0 },
	{ "set-from", OPT_SET_FROM, "FILE", 0,
	  "The --set values in FILE, one per line (# comments), as advise --write-ab writes them", 0 },
	{ "repeat", OPT_REPEAT, "N", 0, "Runs per variant (default 5)", 0 },
	{ "metric", OPT_METRIC, "NAME", 0,
	  "A metric to compare (compare's names, e.g. state[POLL].share); repeatable", 0 },
	{ "workload", OPT_WORKLOAD, "NAME=COMMAND", 0,
	  "A workload of the sweep, a shell command; repeatable: every variant runs under each, "
	  "and each gets compare's table (instead of -- COMMAND)", 0 },
	{ "save-runs", OPT_SAVE_RUNS, "DIR", 0,
	  "Keep each run's summary in DIR as [WORKLOAD-]VARIANT-ROUND.json, for compare and "
	  "report (their runs of one variant separated by --)", 0 },
	{ "html", OPT_HTML, "OUT.html", 0,
	  "Write report's comparison page to OUT.html (also -o NAME.html): per workload compare's "
	  "tables with a chart per state, sortable, ab's JSON embedded", 0 },
	{ "per-cpu", OPT_PER_CPU, NULL, 0,
	  "In compare's tables (--workload, or the page): rows for each CPU too, after the groups",
	  0 },
	{ 0 }
};

static const char doc[] =
	"Run COMMAND (or a -d window) under each variant, interleaved, N times each, and compare "
	"the runs: N, min, max, median, mean, stddev, and Welch's t-test at 95% against the first "
	"variant.\vWith --workload (repeated), every variant runs under each workload, and each "
	"workload gets compare's table of its runs (states per group, wakeup causes, and the "
	"workload's own figures where it prints them: cyclictest's latency), means with 95% "
	"intervals and * where Welch's test finds a difference. With --html OUT.html (or -o "
	"OUT.html) the same as report's page: a section per workload (or one for the command), "
	"sortable tables, a chart per state. Original settings are restored on success, on error "
	"and on SIGINT/SIGTERM.";

static void add_set(struct argp_state *state, struct ab *a, const char *spec)
{
	char err[256];

	if (a->nr_sets == MAX_SETS)
		argp_error(state, "at most %d --set", MAX_SETS);
	if (setting_parse(spec, &a->sets[a->nr_sets], err, sizeof(err)))
		argp_error(state, "%s", err);
	a->nr_sets++;
}

/* --set-from FILE: a --set per line; blank lines and # comments skipped. */
static void set_from(struct argp_state *state, struct ab *a, const char *path)
{
	FILE *f = fopen(path, "re");
	char line[640];
	int n = 0;

	if (!f)
		argp_error(state, "--set-from: cannot read '%s': %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		size_t len = strlen(line);

		n++;
		if (len && line[len - 1] != '\n' && !feof(f)) {
			fclose(f);
			argp_error(state, "--set-from %s:%d: line too long", path, n);
		}
		line[strcspn(line, "\r\n")] = 0;
		if (!line[strspn(line, " \t")] || line[strspn(line, " \t")] == '#')
			continue;
		add_set(state, a, line + strspn(line, " \t"));
	}
	fclose(f);
}

/* -o NAME.html (or .htm, any case) asks for the page. */
static bool html_name(const char *path)
{
	const char *dot = strrchr(path, '.');

	return dot && (!strcasecmp(dot, ".html") || !strcasecmp(dot, ".htm"));
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct ab *a = state->input;
	char *end;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &a->o;
		break;
	case OPT_SET:
		add_set(state, a, arg);
		break;
	case OPT_SET_FROM:
		set_from(state, a, arg);
		break;
	case OPT_REPEAT:
		errno = 0;
		a->repeat = (int)strtol(arg, &end, 10);
		if (errno || *end || a->repeat < 1 || a->repeat > 1000)
			argp_error(state, "--repeat takes 1..1000");
		break;
	case OPT_METRIC:
		if (a->nr_metrics == MAX_METRICS - NR_WL_FIGURES)
			argp_error(state, "at most %d --metric", MAX_METRICS - NR_WL_FIGURES);
		a->metrics[a->nr_metrics++] = arg;
		break;
	case OPT_SAVE_RUNS:
		a->save_dir = arg;
		break;
	case OPT_HTML:
		a->html = arg;
		break;
	case OPT_PER_CPU:
		a->per_cpu = true;
		break;
	case OPT_WORKLOAD: {
		const char *eq = strchr(arg, '=');

		if (a->nr_workloads == MAX_WORKLOADS)
			argp_error(state, "at most %d --workload", MAX_WORKLOADS);
		if (!eq || eq == arg || !eq[1])
			argp_error(state, "--workload takes NAME=COMMAND, not '%s'", arg);
		a->wl_name[a->nr_workloads] = strndup(arg, (size_t)(eq - arg));
		a->wl_cmd[a->nr_workloads++] = eq + 1;
		break;
	}
	case ARGP_KEY_ARG:
		a->o.command = &state->argv[state->next - 1];
		state->next = state->argc;
		break;
	case ARGP_KEY_END:
		if (!a->nr_sets)
			argp_error(state, "need at least one --set KEY=V1,V2");
		if (a->nr_workloads && a->o.command)
			argp_error(state, "--workload and -- COMMAND: give the command as a workload");
		if (!a->o.duration_ns && !a->o.command && !a->nr_workloads)
			argp_error(state, "need -d SECONDS, -- COMMAND or --workload for each run");
		if (a->html && a->o.output && strcmp(a->html, a->o.output))
			argp_error(state, "--html and -o name two files: give one");
		if (a->html && a->o.format != FMT_TABLE)
			argp_error(state, "--html writes a page, not --format %s",
				   a->o.format == FMT_JSON ? "json" : "csv");
		if (!a->html && a->o.output && a->o.format == FMT_TABLE && html_name(a->o.output))
			a->html = a->o.output;
		if (a->per_cpu && !a->nr_workloads && !a->html)
			argp_error(state, "--per-cpu is for compare's tables: give --workload or --html");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static void variant_name(const struct ab *a, int v, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int s = 0; s < a->nr_sets && n < len; s++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s=%s", s ? " " : "", a->sets[s].key,
				      a->sets[s].values[a->choice[v][s]]);
}

/* All combinations of the sets' values, first set varying slowest. */
static int build_variants(struct ab *a)
{
	int n = 1;

	for (int s = 0; s < a->nr_sets; s++)
		n *= a->sets[s].nr_values;
	if (n > MAX_VARIANTS)
		return -1;
	for (int v = 0; v < n; v++) {
		int rest = v;

		for (int s = a->nr_sets - 1; s >= 0; s--) {
			a->choice[v][s] = rest % a->sets[s].nr_values;
			rest /= a->sets[s].nr_values;
		}
	}
	a->nr_variants = n;
	return 0;
}

/* One `idlescope record` run into path (child_run: an ending signal is
 * passed on, and ends it with its summary). Returns 0 or -1 when it could
 * not start. */
/* One `idlescope record` run into path (child_run: an ending signal is
 * passed on, and ends it with its summary), of workload w (-1: -d or
 * -- COMMAND as given). Returns 0 or -1 when it could not start. */
static int run_record(struct ab *a, int w, const char *path, struct child_status *st)
{
	char dur[32], **argv, *script = NULL;
	char *sh[] = { "/bin/sh", "-c", NULL, NULL };
	struct common_opts o = a->o;
	int ret;

	if (w >= 0) {
		/* its standard output into out_fd, inherited through record */
		if (asprintf(&script, "exec >/proc/self/fd/%d\n%s", a->out_fd, a->wl_cmd[w]) < 0)
			return -1;
		sh[2] = script;
		o.command = sh;
	}
	/* ab takes no -C, and its runs stay quiet under -v */
	if (!(argv = cli_record_argv(&o, path, false, dur))) {
		free(script);
		return -1;
	}
	ret = child_run("record", "/proc/self/exe", argv, st);
	free(argv);
	free(script);
	return ret;
}

static size_t cell_of(const struct ab *a, int w, int m, int v)
{
	return ((size_t)w * (size_t)a->nr_metrics + (size_t)m) * (size_t)a->nr_variants + (size_t)v;
}

static double *slot(struct ab *a, int w, int m, int v, int r)
{
	return &a->values[cell_of(a, w, m, v) * (size_t)a->repeat + (size_t)r];
}

static void keep(struct ab *a, int w, int m, int v, int r, bool have, double x)
{
	*slot(a, w, m, v, r) = have ? x : NAN;
	if (have)
		a->have[cell_of(a, w, m, v)] = true;
}

/* What the workload printed, passed on to ab's standard output, and its
 * figures kept. */
static void workload_output(struct ab *a, int w, int v, int r)
{
	double fig[NR_WL_FIGURES];
	bool have[NR_WL_FIGURES];
	char *text = NULL;
	off_t len = lseek(a->out_fd, 0, SEEK_END);

	if (len > 0 && (text = malloc((size_t)len)) && pread(a->out_fd, text, (size_t)len, 0) == len) {
		fwrite(text, 1, (size_t)len, stdout);
		fflush(stdout);
	} else {
		len = 0;
	}
	workload_figures(text ? text : "", (size_t)len, fig, have);
	for (int k = 0; k < NR_WL_FIGURES; k++)
		keep(a, w, a->nr_metrics - NR_WL_FIGURES + k, v, r, have[k], fig[k]);
	free(text);
}

static int collect(struct ab *a, int w, const char *path, int v, int r, char *err, size_t errlen)
{
	struct metric_set ms = { 0 };
	int named = a->nr_metrics - (a->nr_workloads ? NR_WL_FIGURES : 0);
	json_t *doc = load_summary_file(path, err, errlen);

	if (!doc)
		return -1;
	if (flatten_summary(doc, &ms)) {
		snprintf(err, errlen, "out of memory");
		json_decref(doc);
		return -1;
	}
	for (int m = 0; m < named; m++) {
		const struct metric_kv *kv = metric_find(&ms, a->metrics[m]);

		keep(a, w < 0 ? 0 : w, m, v, r, kv != NULL, kv ? kv->value : 0);
	}
	metric_set_free(&ms);
	if (a->docs)
		a->docs[((size_t)(w < 0 ? 0 : w) * (size_t)a->nr_variants + (size_t)v) *
				(size_t)a->repeat + (size_t)r] = doc;
	else
		json_decref(doc);
	if (w >= 0)
		workload_output(a, w, v, r);
	return 0;
}

/* --save-runs: the summary at fd as DIR/[WORKLOAD-]VARIANT-ROUND.json, the
 * variant's spaces as '_'. Returns 0, or -1 with a reason in err. */
static int save_run(struct ab *a, int fd, int w, int v, int r, char *err, size_t errlen)
{
	char name[256], path[PATH_MAX], *buf = NULL;
	off_t len = lseek(fd, 0, SEEK_END);
	FILE *f;
	int ret = -1;

	variant_name(a, v, name, sizeof(name));
	for (char *c = name; *c; c++)
		if (*c == ' ' || *c == '/')
			*c = '_';
	snprintf(path, sizeof(path), "%s/%s%s%s-%d.json", a->save_dir, w >= 0 ? a->wl_name[w] : "",
		 w >= 0 ? "-" : "", name, r + 1);
	if (len < 0 || !(buf = malloc((size_t)len + 1)) || pread(fd, buf, (size_t)len, 0) != len) {
		snprintf(err, errlen, "cannot read the run's summary: %s", strerror(errno));
	} else if (!(f = fopen(path, "we"))) {
		snprintf(err, errlen, "cannot write '%.300s': %s", path, strerror(errno));
	} else {
		if (fwrite(buf, 1, (size_t)len, f) != (size_t)len || fclose(f))
			snprintf(err, errlen, "cannot write '%.300s': %s", path, strerror(errno));
		else
			ret = 0;
	}
	free(buf);
	return ret;
}

static void stats_of(struct ab *a, int w, int m, int v, struct sample_stats *st)
{
	double buf[1000];
	int n = 0;

	for (int r = 0; r < a->repeat; r++)
		if (!isnan(*slot(a, w, m, v, r)))
			buf[n++] = *slot(a, w, m, v, r);
	sample_stats(buf, n, st);
}

/* The haltpoll governor picks POLL or state 1 without reading the disable
 * flags (drivers/cpuidle/governors/haltpoll.c, haltpoll_select): under it a
 * stateN.disable variant changes nothing, which the runs would show only as
 * a state "disabled" yet entered. Sets a->warning when a variant runs so. */
static void check_disable_under_haltpoll(struct ab *a)
{
	const struct setting *dis = NULL, *gov = NULL;
	struct cpuidle_system sys;
	bool haltpoll = false;

	for (int s = 0; s < a->nr_sets; s++) {
		if (a->sets[s].kind == SET_STATE_DISABLE && !dis)
			dis = &a->sets[s];
		if (a->sets[s].kind == SET_GOVERNOR)
			gov = &a->sets[s];
	}
	if (!dis)
		return;
	if (gov) {
		for (int i = 0; i < gov->nr_values; i++)
			haltpoll |= !strcmp(gov->values[i], "haltpoll");
	} else {
		cpuidle_read_system(&sys);
		haltpoll = !strcmp(sys.governor, "haltpoll");
	}
	if (haltpoll)
		snprintf(a->warning, sizeof(a->warning),
			 "%s under the haltpoll governor changes nothing: it does not read the "
			 "disable flags, so the state is still entered",
			 dis->key);
}

/* Workload w's runs as ab's model: rows[metric * nr_variants + variant]. */
static void rows_of(struct ab *a, int w, struct ab_row *rows)
{
	for (int m = 0; m < a->nr_metrics; m++)
		for (int v = 0; v < a->nr_variants; v++) {
			struct ab_row *row = &rows[(size_t)m * (size_t)a->nr_variants + (size_t)v];

			row->have = a->have[cell_of(a, w, m, v)];
			row->runs = slot(a, w, m, v, 0);
			stats_of(a, w, m, v, &row->st);
			row->have_welch = v > 0 && row->have;
			if (row->have_welch)
				welch_test(&rows[(size_t)m * (size_t)a->nr_variants].st, &row->st,
					   &row->w);
		}
}

/* compare's table of workload w's runs, with its figures. Returns 0 or -1. */
static int view_of(struct ab *a, int w, const int *runs, struct compare_view *v)
{
	size_t nd = (size_t)a->nr_variants * (size_t)a->repeat;
	double *fig = calloc(nd * NR_WL_FIGURES, sizeof(*fig));
	int ret = -1;

	if (!fig || compare_view_build((const json_t *const *)&a->docs[(size_t)w * nd], runs,
				       a->nr_variants, a->per_cpu, v)) {
		free(fig);
		return -1;
	}
	if (!a->nr_workloads) {
		free(fig);
		return 0; /* -- COMMAND or -d: its output is not read */
	}
	for (int vv = 0; vv < a->nr_variants; vv++)
		for (int r = 0; r < a->repeat; r++)
			for (int k = 0; k < NR_WL_FIGURES; k++)
				fig[((size_t)vv * (size_t)a->repeat + (size_t)r) * NR_WL_FIGURES +
				    (size_t)k] = *slot(a, w, a->nr_metrics - NR_WL_FIGURES + k, vv, r);
	ret = compare_view_add_figures(v, NR_WL_FIGURES, wl_figure_labels, fig);
	free(fig);
	if (ret)
		compare_view_free(v);
	return ret;
}

/* What the runs ran without --workload: -- COMMAND's words, or the window. */
static const char *command_text(const struct ab *a, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (char **c = a->o.command; c && *c && n < len; c++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? " " : "", *c);
	if (!a->o.command)
		snprintf(buf, len, "a window of -d %s", ns_text(a->o.duration_ns));
	return buf;
}

/* The runs as ab's model (render/render_ab.h), rendered in the format asked;
 * a sweep as one report per workload, and the page as a sweep. */
static int report(struct ab *a)
{
	int nw = a->nr_workloads ? a->nr_workloads : 1, built = 0, ret = -1;
	size_t n = (size_t)a->nr_metrics * (size_t)a->nr_variants;
	struct ab_row *rows = calloc(n * (size_t)nw, sizeof(*rows));
	struct ab_report *reps = calloc((size_t)nw, sizeof(*reps));
	struct compare_view *views = calloc((size_t)nw, sizeof(*views));
	static char names[MAX_VARIANTS][256];
	const char *variants[MAX_VARIANTS];
	int runs[MAX_VARIANTS];
	struct ab_sweep sweep;
	char cmd[512];
	const char *one_name[1] = { "command" }, *one_cmd[1] = { cmd };

	if (!rows || !reps || !views)
		goto out;
	for (int v = 0; v < a->nr_variants; v++) {
		variant_name(a, v, names[v], sizeof(names[v]));
		variants[v] = names[v];
		runs[v] = a->repeat;
	}
	for (int w = 0; w < nw; w++) {
		rows_of(a, w, &rows[(size_t)w * n]);
		reps[w] = (struct ab_report){ .repeat = a->repeat, .nr_variants = a->nr_variants,
					      .nr_metrics = a->nr_metrics, .variants = variants,
					      .metrics = a->metrics, .rows = &rows[(size_t)w * n],
					      .warning = a->warning };
	}
	if (!a->nr_workloads && !a->html) {
		render_ab(a->out, a->o.format, &reps[0]);
		ret = 0;
		goto out;
	}
	for (; built < nw; built++)
		if (view_of(a, built, runs, &views[built]))
			goto out;
	sweep = (struct ab_sweep){ .nr_workloads = nw, .names = a->wl_name, .commands = a->wl_cmd,
				   .reports = reps, .views = views };
	if (!a->nr_workloads) {
		/* the command's runs, as a sweep of one */
		command_text(a, cmd, sizeof(cmd));
		sweep.names = one_name;
		sweep.commands = one_cmd;
	}
	if (!a->html) {
		render_ab_sweep(a->out, a->o.format, &sweep);
	} else if (render_ab_html(a->out, &sweep, a->nr_workloads > 0)) {
		diag_error("internal error: bad report template");
		ret = 1; /* said */
		goto out;
	}
	ret = 0;
out:
	if (ret < 0)
		diag_error("out of memory");
	for (int w = 0; w < built; w++)
		compare_view_free(&views[w]);
	free(views);
	free(reps);
	free(rows);
	return ret;
}

int cmd_ab(int argc, char **argv)
{
	struct ab a = { .o = { .format = FMT_TABLE }, .repeat = 5, .out = stdout, .out_fd = -1 };
	const struct argp_child children[] = { { &common_argp, 0, NULL, 0 }, { 0 } };
	const struct argp argp = { options, parse_opt,
				   "[-- COMMAND [ARGS...]]\n--workload NAME=COMMAND [--workload ...]", doc,
				   children, NULL, NULL };
	struct sigaction sa = { .sa_handler = on_signal }, old_hup;
	char err[512], path[64];
	int ret = EXIT_RUNTIME, saved = 0, fd = -1, nw;

	cli_takes(CLI_DURATION | CLI_OUTPUT | CLI_FORMAT, NULL);
	argp_parse(&argp, argc, argv, ARGP_IN_ORDER, NULL, &a);
	/* /proc/sys files are writable by uid 0 alone, whatever the capabilities */
	if (geteuid() != 0) {
		diag_error("ab writes the settings it compares (sysfs, /proc/sys): run it as root");
		return EXIT_RUNTIME;
	}
	if (!a.nr_metrics) {
		for (size_t i = 0; i < sizeof(default_metrics) / sizeof(default_metrics[0]); i++)
			a.metrics[a.nr_metrics++] = default_metrics[i];
		for (int k = 0; k < a.nr_sets; k++)
			if (a.sets[k].kind == SET_HALTPOLL) {
				for (size_t i = 0; i < sizeof(haltpoll_metrics) / sizeof(haltpoll_metrics[0]); i++)
					a.metrics[a.nr_metrics++] = haltpoll_metrics[i];
				break;
			}
	}
	/* a sweep's workloads' own figures, as metrics after the named ones */
	for (int k = 0; a.nr_workloads && k < NR_WL_FIGURES; k++)
		a.metrics[a.nr_metrics++] = wl_figure_names[k];
	if (build_variants(&a)) {
		diag_error("too many variants (at most %d combinations)", MAX_VARIANTS);
		return EXIT_USAGE;
	}
	nw = a.nr_workloads ? a.nr_workloads : 1;
	a.values = calloc((size_t)nw * (size_t)a.nr_metrics * (size_t)a.nr_variants *
				  (size_t)a.repeat, sizeof(*a.values));
	a.have = calloc((size_t)nw * (size_t)a.nr_metrics * (size_t)a.nr_variants, sizeof(*a.have));
	if (a.nr_workloads || a.html)
		a.docs = calloc((size_t)nw * (size_t)a.nr_variants * (size_t)a.repeat,
				sizeof(*a.docs));
	if (!a.values || !a.have || ((a.nr_workloads || a.html) && !a.docs)) {
		diag_error("out of memory");
		goto out;
	}
	if (a.html)
		a.o.output = a.html;
	if (a.o.output && !(a.out = fopen(a.o.output, "we"))) {
		diag_error("cannot write '%s': %s", a.o.output, strerror(errno));
		a.out = stdout;
		goto out;
	}
	if (a.save_dir && access(a.save_dir, W_OK | X_OK)) {
		diag_error("--save-runs: cannot write in '%s': %s", a.save_dir, strerror(errno));
		goto out;
	}
	check_disable_under_haltpoll(&a);
	if (a.warning[0])
		fprintf(stderr, "idlescope: warning: %s\n", a.warning);
	/* from here every exit path restores the settings */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (sigaction(SIGHUP, NULL, &old_hup) || old_hup.sa_handler != SIG_IGN)
		sigaction(SIGHUP, &sa, NULL); /* a closed terminal restores too (not under nohup) */
	for (; saved < a.nr_sets; saved++)
		if (setting_save(&a.sets[saved], err, sizeof(err))) {
			diag_error("%s", err);
			goto restore;
		}
	/* each run's summary goes to an anonymous file, not the file system:
	 * inherited (no CLOEXEC), so the record child opens it by this path */
	fd = memfd_create("idlescope-ab-summary", 0);
	if (fd < 0) {
		diag_error("cannot create a memory file: %s", strerror(errno));
		goto restore;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (a.nr_workloads && (a.out_fd = memfd_create("idlescope-ab-workload", 0)) < 0) {
		diag_error("cannot create a memory file: %s", strerror(errno));
		goto restore;
	}
	for (int r = 0; r < a.repeat; r++)
		for (int wv = 0; wv < nw * a.nr_variants; wv++) {
			int v = wv % a.nr_variants, w = a.nr_workloads ? wv / a.nr_variants : -1;
			int k = (r * nw + (w < 0 ? 0 : w)) * a.nr_variants + v + 1;
			char name[256];
			struct child_status st;

			for (int s = 0; s < a.nr_sets; s++)
				if (setting_apply(&a.sets[s], a.choice[v][s], err, sizeof(err))) {
					diag_error("%s", err);
					goto restore;
				}
			variant_name(&a, v, name, sizeof(name));
			if (w >= 0) {
				size_t l = strlen(name);

				snprintf(name + l, sizeof(name) - l, ", %s", a.wl_name[w]);
			}
			fprintf(stderr, "idlescope ab: run %d/%d, %s\n", k, a.repeat * nw * a.nr_variants,
				name);
			/* a run that writes no summary must not reuse the last one */
			if (ftruncate(fd, 0) || (w >= 0 && ftruncate(a.out_fd, 0))) {
				diag_error("cannot reset %s: %s", path, strerror(errno));
				goto restore;
			}
			if (run_record(&a, w, path, &st)) {
				diag_error("run %d (%s) failed: cannot run 'idlescope record': %s", k, name,
					   strerror(errno));
				goto restore;
			}
			if (st.forwarded && !interrupted)
				interrupted = st.forwarded;
			if (interrupted) {
				diag_error("interrupted by SIG%s", sigabbrev_np((int)interrupted));
				goto restore;
			}
			if (st.killed_by) /* said by child_run */
				goto restore;
			if (collect(&a, w, path, v, r, err, sizeof(err)) ||
			    (a.save_dir && save_run(&a, fd, w, v, r, err, sizeof(err)))) {
				diag_error("run %d (%s) failed: %s", k, name, err);
				goto restore;
			}
		}
	if (!report(&a))
		ret = EXIT_OK;
restore:
	for (int s = 0; s < saved; s++)
		if (setting_restore(&a.sets[s])) {
			diag_error("could not restore %s: check it by hand", a.sets[s].key);
			ret = EXIT_RUNTIME;
		}
	if (fd >= 0)
		close(fd);
	if (a.nr_workloads && a.out_fd >= 0)
		close(a.out_fd);
out:
	if (a.out != stdout)
		fclose(a.out);
	for (int s = 0; s < a.nr_sets; s++)
		setting_free(&a.sets[s]);
	free(a.values);
	free(a.have);
	for (size_t i = 0; a.docs && i < (size_t)nw * (size_t)a.nr_variants * (size_t)a.repeat; i++)
		json_decref(a.docs[i]);
	free(a.docs);
	for (int w = 0; w < a.nr_workloads; w++)
		free((char *)a.wl_name[w]);
	return ret;
}
