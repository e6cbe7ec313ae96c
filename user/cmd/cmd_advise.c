/* `idlescope advise [FILE.json]`: per idle state, how often it was too deep
 * or too shallow, the target residency that would have minimised those
 * misses, and with an energy model break-even residencies and energies.
 * Without FILE it measures first, by running `idlescope record`. */
#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "advise/advise.h"
#include "advise/advise_input.h"
#include "advise/budget_report.h"
#include "advise/energy_model.h"
#include "advise/haltpoll_advise.h"
#include "cmd/cli.h"
#include "cmd/commands.h"
#include "util/child_run.h"
#include "model/flatten.h"
#include "report/summary_file.h"
#include "render/render_advise.h"
#include "hist.h"
#include "util/units.h"

#define KERNEL_EM_ROOT "/sys/kernel/debug/energy_model"
#define EM_MAX_FILE (1 << 20)

struct advise {
	struct common_opts o;
	const char *file;
	const char *em_path;
	bool measured_exit;
	FILE *out;
	struct energy_model em;
	bool have_em;
	struct kernel_em kem;
	bool have_kem;
	/* --latency-budget: the exit latency quantile to keep within it */
	bool have_budget;
	uint64_t budget_ns;
	double percentile;
	const char *write_ab;
	/* --poll-budget (a share of the CPU time) or --poll-latency (ns) */
	bool have_poll;
	enum hp_goal poll_goal;
	double poll_target;
};

static const char doc[] =
	"Per idle state: the share of idle periods that were too deep or too shallow, the target "
	"residency that would have minimised those misses, and with --energy-model the break-even "
	"residency and the energy of the workload under the current and proposed thresholds.\v"
	"FILE is a summary from `idlescope record --format json`; without it, advise measures "
	"first like record (-d SECONDS, -- COMMAND, or until Ctrl-C). The method and its "
	"assumptions are in docs/advise.md and printed with every report.";

enum { OPT_ENERGY_MODEL = 0x500, OPT_EXIT_LATENCY, OPT_BUDGET, OPT_PERCENTILE, OPT_WRITE_AB,
       OPT_POLL_BUDGET, OPT_POLL_LATENCY };

static const struct argp_option options[] = {
	{ "energy-model", OPT_ENERGY_MODEL, "FILE", 0,
	  "idlestat energy model file (C-state lines may add a 4th column: entry+exit energy "
	  "in power unit x us)", 0 },
	{ "exit-latency", OPT_EXIT_LATENCY, "SOURCE", 0,
	  "declared (sysfs, the kernel's rule; default) or measured (median timer lateness)", 0 },
	{ "latency-budget", OPT_BUDGET, "DURATION", 0,
	  "which states to leave out (or which /dev/cpu_dma_latency value to hold) so that the "
	  "measured exit latency stays within DURATION (e.g. 50us), and what it costs", 0 },
	{ "latency-percentile", OPT_PERCENTILE, "P", 0,
	  "the percentile of the exit latency --latency-budget bounds, or of the waits "
	  "--poll-latency serves (default 99)", 0 },
	{ "poll-budget", OPT_POLL_BUDGET, "SHARE", 0,
	  "haltpoll guests: the guest_halt_poll_ns that polls at most SHARE of the CPUs' time "
	  "(5% or 0.05), and what it catches", 0 },
	{ "poll-latency", OPT_POLL_LATENCY, "DURATION", 0,
	  "haltpoll guests: the smallest guest_halt_poll_ns that wakes the percentile of the "
	  "waits within DURATION, and what it polls", 0 },
	{ "write-ab", OPT_WRITE_AB, "FILE", 0,
	  "write the --latency-budget (or --poll-*) proposal as settings for `idlescope ab "
	  "--set-from FILE`", 0 },
	{ 0 }
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct advise *a = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &a->o;
		break;
	case OPT_ENERGY_MODEL:
		a->em_path = arg;
		break;
	case OPT_EXIT_LATENCY:
		if (!strcmp(arg, "measured"))
			a->measured_exit = true;
		else if (strcmp(arg, "declared"))
			argp_error(state, "--exit-latency is 'declared' or 'measured', not '%s'", arg);
		break;
	case OPT_BUDGET:
		if (parse_duration(arg, 1000, &a->budget_ns) || !a->budget_ns)
			argp_error(state, "--latency-budget: '%s' is not a duration above 0 (50us, "
					  "1ms; a bare number is in us)", arg);
		a->have_budget = true;
		break;
	case OPT_PERCENTILE: {
		char *end;

		a->percentile = strtod(arg, &end);
		if (end == arg || *end || !(a->percentile > 0 && a->percentile <= 100))
			argp_error(state, "--latency-percentile: '%s' is not in (0, 100]", arg);
		break;
	}
	case OPT_POLL_BUDGET: {
		char *end;
		double v = strtod(arg, &end);

		if (end != arg && *end == '%' && !end[1])
			v /= 100, end++;
		if (end == arg || *end || !(v > 0 && v <= 1) || a->have_poll)
			argp_error(state, a->have_poll ? "one of --poll-budget and --poll-latency"
						       : "--poll-budget: '%s' is not a share in (0, 1] "
							 "(5%% or 0.05)", arg);
		a->have_poll = true;
		a->poll_goal = HP_GOAL_BUDGET;
		a->poll_target = v;
		break;
	}
	case OPT_POLL_LATENCY: {
		uint64_t ns;

		if (a->have_poll)
			argp_error(state, "one of --poll-budget and --poll-latency");
		if (parse_duration(arg, 1000, &ns) || !ns)
			argp_error(state, "--poll-latency: '%s' is not a duration above 0 (20us; a "
					  "bare number is in us)", arg);
		a->have_poll = true;
		a->poll_goal = HP_GOAL_LATENCY;
		a->poll_target = (double)ns;
		break;
	}
	case OPT_WRITE_AB:
		a->write_ab = arg;
		break;
	case ARGP_KEY_ARG:
		if (a->file)
			argp_error(state, "one FILE at most (a COMMAND goes after --)");
		a->file = arg;
		break;
	case ARGP_KEY_END:
		if (a->file && (a->o.duration_ns || a->o.command))
			argp_error(state, "FILE and -d or COMMAND exclude each other");
		if ((a->write_ab || a->percentile) && !a->have_budget &&
		    !(a->have_poll && (a->write_ab || a->poll_goal == HP_GOAL_LATENCY)))
			argp_error(state, "--write-ab and --latency-percentile go with --latency-budget "
					  "(or --poll-latency; --write-ab with --poll-budget too)");
		if (a->have_budget && a->have_poll && a->write_ab)
			argp_error(state, "--write-ab writes one proposal: --latency-budget or --poll-*");
		if (!a->percentile)
			a->percentile = 99;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static int load_energy_model(struct advise *a)
{
	FILE *f = fopen(a->em_path, "re");
	char *buf, err[256];
	size_t n;
	int ret = -1;

	if (!f) {
		diag_error("cannot read energy model '%s': %s", a->em_path, strerror(errno));
		return -1;
	}
	buf = malloc(EM_MAX_FILE + 1);
	n = buf ? fread(buf, 1, EM_MAX_FILE + 1, f) : 0;
	if (!buf)
		diag_error("out of memory");
	else if (ferror(f))
		diag_error("cannot read energy model '%s': %s", a->em_path, strerror(errno));
	else if (n > EM_MAX_FILE)
		diag_error("%s: larger than %d bytes: not an energy model", a->em_path, EM_MAX_FILE);
	else if (energy_model_parse(buf, n, &a->em, err, sizeof(err)))
		diag_error("%s: %s", a->em_path, err);
	else
		ret = 0;
	a->have_em = !ret;
	free(buf);
	fclose(f);
	return ret;
}

/* `idlescope record --format json -o path` with our -d, -C, -v and
 * COMMAND (child_run: an ending signal is passed on, and ends its window
 * early with its summary, which is advised on). Returns its exit code, or
 * -1 when it could not start. */
static int run_record(const struct advise *a, const char *path)
{
	struct child_status st;
	char dur[32], **argv;
	int ret;

	if (!(argv = cli_record_argv(&a->o, path, true, dur)))
		return -1;
	ret = child_run("record", "/proc/self/exe", argv, &st);
	free(argv);
	return ret ? -1 : st.code;
}

/* Fills the model fields of st[] for table t from the energy model. Returns
 * the model cluster, or -1 (no model for these CPUs: why in *why). */
static int map_energy(const struct advise *a, const struct adv_table_in *t, struct adv_state *st,
		      const char **why)
{
	int c;

	*why = NULL;
	if (!a->have_em) {
		*why = a->have_kem ? "the kernel's energy model has P-state power only, no idle-state "
				     "power: give --energy-model"
				   : "no energy model (give --energy-model FILE)";
		return -1;
	}
	/* one cluster: every CPU; else idlestat's rule, cluster = package */
	c = a->em.nr_clusters == 1 ? 0 : t->package;
	if (c < 0 || c >= a->em.nr_clusters) {
		*why = "the energy model has no cluster for these CPUs' package";
		return -1;
	}
	for (int k = 0; k < t->nr_states; k++) {
		const struct em_cstate *cs = energy_model_cstate(&a->em, c, t->st[k].name);

		if (!cs)
			continue;
		st[k].have_power = true;
		st[k].power = cs->core_power + cs->cluster_power;
		st[k].have_tr = cs->have_tr;
		st[k].tr_energy = cs->tr_energy;
	}
	return c;
}

/* Table t's results into tr: the advisor's arithmetic under the chosen exit
 * latencies, the energy model's powers, why energy is missing, and the
 * --latency-budget advice (window_ns: the summary's duration). */
static void fill_table(const struct advise *a, const struct adv_table_in *t, uint64_t window_ns,
		       struct advise_table_report *tr)
{
	struct adv_state *st = tr->st;
	uint64_t lower[ADV_MAX_STATES], prop[ADV_MAX_STATES];
	double ab[ADV_MAX_STATES], bb[ADV_MAX_STATES];
	const char *why;

	memset(tr, 0, sizeof(*tr));
	tr->in = t;
	for (int k = 0; k < t->nr_states; k++) {
		const struct adv_state_in *s = &t->st[k];
		uint64_t measured = adv_lat_median(s);

		st[k].enabled = !s->disabled;
		st[k].exit_ns = a->measured_exit && s->lat_count ? measured : s->exit_ns;
		st[k].target_ns = s->target_ns;
		st[k].dist = (struct adv_dist){ s->nr_bins, s->bins };
		lower[k] = st[k].exit_ns;
		tr->periods += adv_total(&st[k].dist);
	}
	tr->cluster = map_energy(a, t, st, &why);
	advise_table(st, t->nr_states, lower, tr->res, &tr->e);
	for (int k = 0; k < t->nr_states; k++)
		prop[k] = tr->res[k].have_proposal ? tr->res[k].proposed_ns : st[k].target_ns;
	adv_classify(st, t->nr_states, prop, ab, bb);
	for (int k = 0; k < t->nr_states; k++) {
		tr->misses_current += tr->res[k].above + tr->res[k].below;
		tr->misses_proposed += ab[k] + bb[k];
	}
	if (tr->cluster >= 0 && !tr->e.valid)
		snprintf(tr->energy_note, sizeof(tr->energy_note),
			 "the energy model has no C-state named '%s'", t->st[tr->e.missing_state].name);
	else if (why)
		snprintf(tr->energy_note, sizeof(tr->energy_note), "%s", why);
	if (a->have_budget)
		budget_advise(t, window_ns, a->budget_ns, a->percentile, &tr->budget);
}

/* --poll-*: table t's halt-polling advice, from its POLL (index 0) and halt
 * (index 1) histograms and the summary's haltpoll figures of its CPUs.
 * Returns 0, or -1 with why in err. */
static int fill_poll(const struct advise *a, const json_t *doc, const struct adv_table_in *t,
		     uint64_t window_ns, struct advise_table_report *tr, char *err, size_t errlen)
{
	const struct adv_state_in *poll = &t->st[0], *halt = &t->st[1];
	struct hist_bin *w;
	uint64_t exit_ns;
	double target = a->poll_target;
	int n;

	if (hp_advice_load(doc, &t->cpus, &tr->hp_in, err, errlen))
		return -1;
	if (!tr->hp_in.known || !tr->hp_in.nr_cpus || t->nr_states < 2 || !poll->poll)
		return 0; /* not a haltpoll table */
	w = calloc((size_t)(poll->nr_bins + halt->nr_bins) + 1, sizeof(*w));
	if (!w) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	n = hp_waits(poll->bins, poll->nr_bins, (double)tr->hp_in.timed_out, halt->bins,
		     halt->nr_bins, w);
	/* what record took per caught poll; else the halt's own lateness or table */
	exit_ns = tr->hp_in.woken && tr->hp_in.saved_ns ? tr->hp_in.saved_ns / tr->hp_in.woken
		  : halt->lat_count				? adv_lat_median(halt)
								: halt->exit_ns;
	if (a->poll_goal == HP_GOAL_BUDGET)
		target = a->poll_target * (double)window_ns * tr->hp_in.nr_cpus;
	hp_advise(&(struct adv_dist){ n, w }, exit_ns, a->poll_goal, target, a->percentile / 100,
		  &tr->hp_in, &tr->hp);
	free(w);
	tr->have_hp = true;
	return 0;
}

/* The proposal as ab's settings (render_advise_ab), atomically replacing FILE. */
static int write_ab(const struct advise *a, const struct advise_report *r)
{
	char tmp[4096];
	FILE *f;
	int lines;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", a->write_ab) >= (int)sizeof(tmp) ||
	    !(f = fopen(tmp, "we"))) {
		diag_error("cannot write '%s': %s", a->write_ab, strerror(errno));
		return -1;
	}
	lines = render_advise_ab(f, r);
	if (fclose(f) || rename(tmp, a->write_ab)) {
		diag_error("cannot write '%s': %s", a->write_ab, strerror(errno));
		unlink(tmp);
		return -1;
	}
	if (!lines)
		fprintf(stderr, "idlescope advise: every enabled state fits the budget: %s has no "
				"setting to change\n", a->write_ab);
	return 0;
}

/* Splits argv at "--": argp must not take the command for FILE. */
static int split_command(int argc, char **argv, char ***command)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			*command = argv[i + 1] ? &argv[i + 1] : NULL;
			return i;
		}
	*command = NULL;
	return argc;
}

int cmd_advise(int argc, char **argv)
{
	struct advise a = { .o = { .format = FMT_TABLE } };
	const struct argp_child children[] = { { &common_argp, 0, NULL, 0 }, { 0 } };
	const struct argp argp = { options, parse_opt, "[FILE.json] [-- COMMAND [ARGS...]]", doc,
				   children, NULL, NULL };
	char tmp[] = "/tmp/idlescope-advise-XXXXXX", err[512], source[600];
	struct adv_input in = { 0 };
	struct cpulist sel, *selp = NULL;
	static struct advise_table_report tables[ADV_MAX_TABLES];
	struct advise_report r = { 0 };
	json_t *docj = NULL;
	int ret = EXIT_RUNTIME, status = 0, fd = -1;
	bool have_hp = false;
	char **command;

	argc = split_command(argc, argv, &command);
	a.o.command = command;
	if (command && !command[0])
		a.o.command = NULL;
	cli_takes(CLI_DURATION | CLI_CPUS | CLI_OUTPUT | CLI_FORMAT | CLI_VERBOSE, NULL);
	argp_parse(&argp, argc, argv, 0, NULL, &a);
	if (a.o.cpus_arg && a.file) {
		if (cpulist_parse(a.o.cpus_arg, &sel, err, sizeof(err))) {
			diag_error("bad CPU list '%s': %s", a.o.cpus_arg, err);
			return EXIT_USAGE;
		}
		selp = &sel;
	}
	if (a.em_path && load_energy_model(&a))
		return EXIT_RUNTIME;
	a.have_kem = kernel_em_read(KERNEL_EM_ROOT, &a.kem) && a.kem.nr_domains;
	a.out = stdout;
	if (a.o.output && !(a.out = fopen(a.o.output, "we"))) {
		diag_error("cannot write '%s': %s", a.o.output, strerror(errno));
		a.out = NULL;
		goto out;
	}
	if (a.file) {
		snprintf(source, sizeof(source), "%s", a.file);
	} else {
		if ((fd = mkstemp(tmp)) < 0) {
			diag_error("cannot create a temporary file: %s", strerror(errno));
			goto out;
		}
		close(fd);
		status = run_record(&a, tmp);
		if (status < 0) {
			diag_error("cannot run 'idlescope record': %s", strerror(errno));
			goto out;
		}
	}
	/* live: a command's own non-zero status still leaves a summary to
	 * advise on; without one, record has said why (usage, no root) */
	if (!(docj = load_summary_file(a.file ? a.file : tmp, err, sizeof(err)))) {
		if (a.file || !status)
			diag_error("%s", err);
		else
			ret = status;
		goto out;
	}
	if (adv_input_load(docj, selp, &in, err, sizeof(err))) {
		diag_error("%s: %s", a.file ? a.file : "record's summary", err);
		goto out;
	}
	if (!in.nr_tables) {
		diag_error("%s: %s", a.file ? a.file : "this machine",
			  in.nr_cpus ? "no CPU with a cpuidle driver: no thresholds to advise on"
				     : "no CPU selected with idle states");
		goto out;
	}
	if (!a.file) {
		char d[32];

		snprintf(source, sizeof(source), "live, %s window",
			 fmt_ns(d, sizeof(d), in.duration_ns));
	}
	for (int j = 0; j < in.nr_tables; j++) {
		fill_table(&a, &in.tables[j], in.duration_ns, &tables[j]);
		if (a.have_poll && fill_poll(&a, docj, &in.tables[j], in.duration_ns, &tables[j], err,
					     sizeof(err))) {
			diag_error("%s: %s", a.file ? a.file : "record's summary", err);
			goto out;
		}
		have_hp |= tables[j].have_hp;
	}
	if (a.have_poll && !have_hp) {
		diag_error("%s: no halt-polling to advise on (--poll-*): the cpuidle driver and "
			   "governor were not haltpoll (%s, %s)", a.file ? a.file : "this machine",
			   in.driver, in.governor);
		goto out;
	}
	r = (struct advise_report){ .source = source, .in = &in, .measured_exit = a.measured_exit,
				    .have_em = a.have_em, .em_path = a.em_path,
				    .em_clusters = a.have_em ? a.em.nr_clusters : 0,
				    .kem = a.have_kem ? &a.kem : NULL, .have_budget = a.have_budget,
				    .budget_ns = a.budget_ns, .percentile = a.percentile,
				    .have_poll = a.have_poll, .poll_goal = a.poll_goal,
				    .poll_target = a.poll_target,
				    .nr_tables = in.nr_tables, .tables = tables };
	if (a.write_ab && write_ab(&a, &r))
		goto out;
	if (render_advise(a.out, a.o.format, &r)) {
		diag_error("out of memory");
		goto out;
	}
	if (fflush(a.out) || ferror(a.out)) {
		diag_error("cannot write the report: %s", strerror(errno));
		goto out;
	}
	ret = status; /* the command's status, or 0 */
out:
	if (fd >= 0)
		unlink(tmp);
	json_decref(docj);
	adv_input_free(&in);
	if (a.have_em)
		energy_model_free(&a.em);
	if (a.out && a.out != stdout)
		fclose(a.out);
	return ret;
}
