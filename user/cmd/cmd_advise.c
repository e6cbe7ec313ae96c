/* `idlescope advise [FILE.json]`: per idle state, how often it was too deep
 * or too shallow, the target residency that would have minimised those
 * misses, and with an energy model break-even residencies and energies.
 * Without FILE it measures first, by running `idlescope record`. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "advise/advise.h"
#include "advise/advise_input.h"
#include "advise/budget_report.h"
#include "cmd/cli.h"
#include "cmd/commands.h"
#include "util/child_run.h"
#include "advise/energy_model.h"
#include "model/flatten.h"
#include "cmd/summary_file.h"
#include "hist.h"
#include "util/units.h"
#include "util/json_num.h"

#define ADVISE_SCHEMA "idlescope-advise/1"
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
	uint64_t window_ns;
};

static const char doc[] =
	"Per idle state: the share of idle periods that were too deep or too shallow, the target "
	"residency that would have minimised those misses, and with --energy-model the break-even "
	"residency and the energy of the workload under the current and proposed thresholds.\v"
	"FILE is a summary from `idlescope record --format json`; without it, advise measures "
	"first like record (-d SECONDS, -- COMMAND, or until Ctrl-C). The method and its "
	"assumptions are in docs/advise.md and printed with every report.";

enum { OPT_ENERGY_MODEL = 0x500, OPT_EXIT_LATENCY, OPT_BUDGET, OPT_PERCENTILE, OPT_WRITE_AB };

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
	  "the percentile of the exit latency --latency-budget bounds (default 99)", 0 },
	{ "write-ab", OPT_WRITE_AB, "FILE", 0,
	  "write the --latency-budget proposal as settings for `idlescope ab --set-from FILE`", 0 },
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
		if ((a->write_ab || a->percentile) && !a->have_budget)
			argp_error(state, "--write-ab and --latency-percentile go with --latency-budget");
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

static const char *be_name(enum adv_break_even be)
{
	return be == ADV_BE_AT ? "at" : be == ADV_BE_NEVER ? "never" : "unknown";
}

static json_t *table_json(const struct advise *a, const struct adv_table_in *t)
{
	struct adv_state st[ADV_MAX_STATES] = { 0 };
	struct adv_result res[ADV_MAX_STATES];
	struct adv_energy e = { 0 };
	uint64_t lower[ADV_MAX_STATES], cur[ADV_MAX_STATES], prop[ADV_MAX_STATES];
	double ab[ADV_MAX_STATES], bb[ADV_MAX_STATES], mc = 0, mp = 0, periods = 0;
	json_t *o = json_object(), *states = json_array(), *en;
	const char *why;
	char *cpus;
	int cluster;

	for (int k = 0; k < t->nr_states; k++) {
		const struct adv_state_in *s = &t->st[k];
		uint64_t measured = adv_lat_median(s);

		st[k].enabled = !s->disabled;
		st[k].exit_ns = a->measured_exit && s->lat_count ? measured : s->exit_ns;
		st[k].target_ns = s->target_ns;
		st[k].dist = (struct adv_dist){ s->nr_bins, s->bins };
		lower[k] = st[k].exit_ns;
		periods += adv_total(&st[k].dist);
	}
	cluster = map_energy(a, t, st, &why);
	advise_table(st, t->nr_states, lower, res, &e);
	for (int k = 0; k < t->nr_states; k++) {
		cur[k] = st[k].target_ns;
		prop[k] = res[k].have_proposal ? res[k].proposed_ns : cur[k];
	}
	adv_classify(st, t->nr_states, prop, ab, bb);
	for (int k = 0; k < t->nr_states; k++) {
		const struct adv_state_in *s = &t->st[k];
		const struct adv_result *r = &res[k];
		json_t *js = json_object();

		mc += r->above + r->below;
		mp += ab[k] + bb[k];
		json_object_set_new(js, "index", json_integer(s->index));
		json_object_set_new(js, "name", json_string(s->name));
		json_object_set_new(js, "enabled", json_boolean(!s->disabled));
		json_object_set_new(js, "exit_latency_ns", json_u64(s->exit_ns));
		json_object_set_new(js, "measured_exit_latency_ns",
				    s->lat_count ? json_u64(adv_lat_median(s))
						 : json_null());
		json_object_set_new(js, "timer_lateness_count", json_u64(s->lat_count));
		json_object_set_new(js, "target_residency_ns", json_u64(s->target_ns));
		json_object_set_new(js, "entries", json_u64(s->entries));
		json_object_set_new(js, "above", json_u64(s->above));
		json_object_set_new(js, "below", json_u64(s->below));
		json_object_set_new(js, "below_qos", json_u64(s->below_qos));
		json_object_set_new(js, "above_share",
				    json_real(s->entries ? (double)s->above / (double)s->entries : 0));
		json_object_set_new(js, "below_share",
				    json_real(s->entries ? (double)s->below / (double)s->entries : 0));
		json_object_set_new(js, "model_above", json_real(r->above));
		json_object_set_new(js, "model_below", json_real(r->below));
		json_object_set_new(js, "shallower",
				    r->prev >= 0 ? json_string(t->st[r->prev].name) : json_null());
		if (r->have_proposal) {
			uint32_t b = is_hist_bucket(r->proposed_ns);

			json_object_set_new(js, "proposed_target_residency_ns", json_u64(r->proposed_ns));
			json_object_set_new(js, "resolution_ns",
					    json_u64(is_hist_upper(b) - is_hist_lower(b)));
			json_object_set_new(js, "misses_current", json_real(r->misses_current));
			json_object_set_new(js, "misses_proposed", json_real(r->misses_proposed));
		} else {
			json_object_set_new(js, "proposed_target_residency_ns", json_null());
			json_object_set_new(js, "resolution_ns", json_null());
			json_object_set_new(js, "misses_current", json_null());
			json_object_set_new(js, "misses_proposed", json_null());
		}
		json_object_set_new(js, "power", st[k].have_power ? json_real(st[k].power) : json_null());
		json_object_set_new(js, "entry_exit_energy",
				    st[k].have_tr ? json_real(st[k].tr_energy) : json_null());
		json_object_set_new(js, "break_even", r->prev >= 0 ? json_string(be_name(r->be))
								   : json_null());
		json_object_set_new(js, "break_even_ns",
				    r->prev >= 0 && r->be == ADV_BE_AT ? json_real(r->break_even_ns)
								       : json_null());
		json_array_append_new(states, js);
	}
	cpus = cpulist_str(&t->cpus);
	json_object_set_new(o, "cpus", cpus ? json_string(cpus) : json_null());
	free(cpus);
	json_object_set_new(o, "latency_budget",
			    a->have_budget ? budget_json(t, a->window_ns, a->budget_ns, a->percentile)
					   : json_null());
	json_object_set_new(o, "periods", json_real(periods));
	json_object_set_new(o, "states", states);
	json_object_set_new(o, "misses", json_pack("{s:o,s:o}", "current", json_real(mc), "proposed",
						    json_real(mp)));
	if (cluster >= 0 && !e.valid) {
		static char buf[128];

		snprintf(buf, sizeof(buf), "the energy model has no C-state named '%s'",
			 t->st[e.missing_state].name);
		why = buf;
	}
	if (cluster >= 0 && e.valid) {
		char cl[16];

		snprintf(cl, sizeof(cl), "cluster%c", 'A' + cluster);
		en = json_object();
		json_object_set_new(en, "cluster", json_string(cl));
		json_object_set_new(en, "unit", json_string("power unit x s"));
		json_object_set_new(en, "measured", json_real(e.measured));
		json_object_set_new(en, "current_thresholds", json_real_or_null(e.current));
		json_object_set_new(en, "proposed_thresholds", json_real_or_null(e.proposed));
		json_object_set_new(en, "break_even_thresholds",
				    e.have_break_even ? json_real_or_null(e.break_even) : json_null());
		json_object_set_new(o, "energy", en);
		json_object_set_new(o, "energy_note", json_null());
	} else {
		json_object_set_new(o, "energy", json_null());
		json_object_set_new(o, "energy_note", json_string(why));
	}
	return o;
}

static json_t *assumptions(const struct advise *a)
{
	json_t *l = json_array();

#define SAY(s) json_array_append_new(l, json_string(s))
	SAY("Residencies come from idlescope's quarter-octave histograms (a bucket is at most 25% "
	    "of its value wide); a count at a threshold inside a bucket is interpolated as if the "
	    "bucket's periods were spread evenly over it, so a proposal is only as fine as the "
	    "bucket around it (resolution_ns).");
	SAY("above/below and their shares are the measured counters (the kernel's rule on "
	    "idlescope's residencies); model_above/model_below replay that rule on the "
	    "histograms.");
	SAY("The governor's choices are held fixed. misses(T) of a state s = its periods shorter "
	    "than T (above) + the periods in the next shallower enabled state p, not above, whose "
	    "residency minus p's exit latency reaches T (below). The proposal minimises misses(T) "
	    "over T >= s's exit latency, the other thresholds at their current values; ties go to "
	    "the value closest to the current one, then the smaller.");
	SAY(a->measured_exit
		    ? "Exit latencies: measured, the median timer lateness of the state's periods a "
		      "timer ended (it includes interrupt entry); the declared one where no timer "
		      "ended a period."
		    : "Exit latencies: as declared in sysfs, as the kernel's rule uses them "
		      "(--exit-latency measured uses the median timer lateness).");
	SAY("Periods made too shallow by PM QoS or ended at the poll limit count as below, as in "
	    "the kernel's counter.");
	if (a->have_budget)
		SAY("Latency budget: a state's exit latency is the chosen percentile of its timer "
		    "lateness (interrupt entry included; in a VM also the host's delivery of the "
		    "interrupt), its declared one below 10 samples. A state over the budget is left "
		    "out; its periods go to the deepest kept state shallower than it (the governor's "
		    "other choices held fixed), which is the cost. The percentile afterwards is at "
		    "most the largest latency among the states that will hold periods. PM QoS "
		    "(/dev/cpu_dma_latency) does the same where every left-out state is deeper than "
		    "the kept ones and declares more than they do.");
	if (a->have_em) {
		SAY("Energy: a period of r in state k costs tr(k) + P(k) r, with P(k) the model's "
		    "core power plus cluster power of the C-state named like k (as if the CPU were "
		    "alone in its cluster) and tr(k) the optional 4th column (power unit x us; 0 when "
		    "absent). Break-even of k against the next shallower enabled state p: "
		    "(tr(k) - tr(p)) / (P(p) - P(k)); 'never' when k draws no less power and costs "
		    "more to enter.");
		SAY("Energy measured: the states the governor chose. current/proposed/break-even "
		    "thresholds: perfect prediction, each period in the deepest enabled state whose "
		    "threshold it reaches. Each residency counts at its bucket's mean; busy time, "
		    "P-states and idlestat's wakeup line are not counted.");
	}
	if (a->have_kem)
		SAY("The kernel's energy model (debugfs) holds P-state power only, no idle-state "
		    "power: it is listed, not used for idle energies.");
#undef SAY
	return l;
}

static json_t *kernel_em_json(const struct advise *a)
{
	json_t *d;

	if (!a->have_kem)
		return json_null();
	d = json_array();
	for (int i = 0; i < a->kem.nr_domains; i++) {
		const struct kernel_em_domain *k = &a->kem.domains[i];
		json_t *ps = json_array();

		for (int j = 0; j < k->nr_pstates; j++)
			json_array_append_new(ps, json_pack("{s:I,s:I}", "khz",
							    (json_int_t)k->pstates[j].khz, "power",
							    (json_int_t)k->pstates[j].power));
		json_array_append_new(d, json_pack("{s:s,s:s,s:o}", "name", k->name, "cpus", k->cpus,
						   "pstates", ps));
	}
	return json_pack("{s:o}", "domains", d);
}

static json_t *advice_json(const struct advise *a, const struct adv_input *in, const char *source)
{
	json_t *o = json_object(), *tables = json_array();

	json_object_set_new(o, "schema", json_string(ADVISE_SCHEMA));
	json_object_set_new(o, "source", json_string(source));
	json_object_set_new(o, "kernel", json_string(in->kernel));
	json_object_set_new(o, "cpuidle", json_pack("{s:s,s:s}", "driver", in->driver, "governor",
						     in->governor));
	json_object_set_new(o, "duration_ns", json_u64(in->duration_ns));
	json_object_set_new(o, "exit_latency", json_string(a->measured_exit ? "measured" : "declared"));
	json_object_set_new(o, "energy_model",
			    a->have_em ? json_pack("{s:s,s:s,s:i}", "format", "idlestat", "path",
						   a->em_path, "clusters", a->em.nr_clusters)
				       : json_null());
	json_object_set_new(o, "kernel_energy_model", kernel_em_json(a));
	for (int j = 0; j < in->nr_tables; j++)
		json_array_append_new(tables, table_json(a, &in->tables[j]));
	json_object_set_new(o, "tables", tables);
	json_object_set_new(o, "skipped_cpus_without_driver", json_integer(in->no_driver_cpus));
	json_object_set_new(o, "assumptions", assumptions(a));
	return o;
}

static const char *ns_or_dash(char *buf, size_t len, const json_t *v)
{
	if (!json_is_number(v))
		return "-";
	return fmt_ns(buf, len, (uint64_t)llround(json_number_value(v)));
}

static const char *num(char *buf, size_t len, const json_t *v)
{
	double d;

	if (!json_is_number(v))
		return "-";
	d = json_number_value(v);
	if (d == floor(d) && fabs(d) < 1e12)
		snprintf(buf, len, "%.0f", d);
	else
		snprintf(buf, len, "%.1f", d);
	return buf;
}

static const char *energy_cell(char *buf, size_t len, const json_t *v)
{
	if (!json_is_number(v))
		return "-";
	snprintf(buf, len, "%.6g", json_number_value(v));
	return buf;
}

/* "  - text" wrapped at 96 columns, continued under the text. */
static void print_wrapped(FILE *f, const char *text)
{
	const char *p = text;
	int col = 4;

	fputs("  - ", f);
	while (*p) {
		size_t w = strcspn(p, " ");

		if (col > 4 && col + 1 + (int)w > 96) {
			fputs("\n    ", f);
			col = 4;
		} else if (col > 4) {
			fputc(' ', f);
			col++;
		}
		fprintf(f, "%.*s", (int)w, p);
		col += (int)w;
		p += w;
		while (*p == ' ')
			p++;
	}
	fputc('\n', f);
}

/* The table: the same numbers as the JSON, read back from it. */
static void print_table(FILE *f, const json_t *r)
{
	const json_t *t, *s, *l;
	size_t i, j;

	fprintf(f, "idlescope advise: %s; cpuidle %s, governor %s; exit latencies %s\n",
		json_string_value(json_object_get(r, "source")),
		json_string_value(json_object_get(json_object_get(r, "cpuidle"), "driver")),
		json_string_value(json_object_get(json_object_get(r, "cpuidle"), "governor")),
		json_string_value(json_object_get(r, "exit_latency")));
	json_array_foreach(json_object_get(r, "tables"), i, t) {
		const json_t *e = json_object_get(t, "energy"), *m = json_object_get(t, "misses");
		char b[12][32];

		fprintf(f, "\nCPUs %s: %s idle periods\n", json_string_value(json_object_get(t, "cpus")),
			num(b[0], 32, json_object_get(t, "periods")));
		fprintf(f, "  %-16s %8s %8s %8s %9s %6s %6s %9s %8s %15s %10s\n", "state", "exit",
			"measured", "target", "periods", "above", "below", "proposed", "+-bucket",
			"misses now->new", "break-even");
		json_array_foreach(json_object_get(t, "states"), j, s) {
			const char *be = json_string_value(json_object_get(s, "break_even"));
			char mis[40] = "-";

			if (json_is_number(json_object_get(s, "misses_current")))
				snprintf(mis, sizeof(mis), "%s -> %s",
					 num(b[5], 32, json_object_get(s, "misses_current")),
					 num(b[6], 32, json_object_get(s, "misses_proposed")));
			fprintf(f, "  %-16.16s %8s %8s %8s %9s %5.1f%% %5.1f%% %9s %8s %15s %10s%s\n",
				json_string_value(json_object_get(s, "name")),
				ns_or_dash(b[0], 32, json_object_get(s, "exit_latency_ns")),
				ns_or_dash(b[1], 32, json_object_get(s, "measured_exit_latency_ns")),
				ns_or_dash(b[2], 32, json_object_get(s, "target_residency_ns")),
				num(b[3], 32, json_object_get(s, "entries")),
				100 * json_number_value(json_object_get(s, "above_share")),
				100 * json_number_value(json_object_get(s, "below_share")),
				ns_or_dash(b[4], 32, json_object_get(s, "proposed_target_residency_ns")),
				ns_or_dash(b[7], 32, json_object_get(s, "resolution_ns")), mis,
				be && !strcmp(be, "never") ? "never"
				: be && !strcmp(be, "at") ? ns_or_dash(b[8], 32, json_object_get(s, "break_even_ns"))
							  : "-",
				json_is_true(json_object_get(s, "enabled")) ? "" : "  (disabled)");
		}
		json_array_foreach(json_object_get(t, "states"), j, s)
			if (json_integer_value(json_object_get(s, "below_qos")))
				fprintf(f, "  %s: %lld of its below periods were forced by PM QoS (a deeper "
					   "state was not allowed): no threshold changes those\n",
					json_string_value(json_object_get(s, "name")),
					(long long)json_integer_value(json_object_get(s, "below_qos")));
		fprintf(f, "  misses (model, all states): %s now, %s with every proposal\n",
			num(b[0], 32, json_object_get(m, "current")),
			num(b[1], 32, json_object_get(m, "proposed")));
		if (json_is_object(e))
			fprintf(f, "  energy (%s, %s): measured %s; perfect prediction at the current "
				   "thresholds %s, proposed %s, break-even %s\n",
				json_string_value(json_object_get(e, "cluster")),
				json_string_value(json_object_get(e, "unit")),
				energy_cell(b[0], 32, json_object_get(e, "measured")),
				energy_cell(b[1], 32, json_object_get(e, "current_thresholds")),
				energy_cell(b[2], 32, json_object_get(e, "proposed_thresholds")),
				energy_cell(b[3], 32, json_object_get(e, "break_even_thresholds")));
		else
			fprintf(f, "  energy: not estimated: %s\n",
				json_string_value(json_object_get(t, "energy_note")));
		if (json_is_object(json_object_get(t, "latency_budget")))
			budget_print(f, json_object_get(t, "latency_budget"));
	}
	if (json_integer_value(json_object_get(r, "skipped_cpus_without_driver")))
		fprintf(f, "\n%lld CPUs without a cpuidle driver skipped\n",
			(long long)json_integer_value(json_object_get(r, "skipped_cpus_without_driver")));
	fprintf(f, "\nAssumptions:\n");
	json_array_foreach(json_object_get(r, "assumptions"), i, l)
		print_wrapped(f, json_string_value(l));
}

/* The proposal as ab's settings (budget_write_ab), atomically replacing FILE. */
static int write_ab(const struct advise *a, const json_t *r)
{
	char tmp[4096];
	FILE *f;
	int lines;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", a->write_ab) >= (int)sizeof(tmp) ||
	    !(f = fopen(tmp, "we"))) {
		diag_error("cannot write '%s': %s", a->write_ab, strerror(errno));
		return -1;
	}
	lines = budget_write_ab(f, json_object_get(r, "tables"), a->budget_ns, a->percentile);
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
	json_t *docj = NULL, *r = NULL;
	int ret = EXIT_RUNTIME, status = 0, fd = -1;
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
	a.window_ns = in.duration_ns;
	r = advice_json(&a, &in, source);
	if (a.write_ab && write_ab(&a, r))
		goto out;
	if (a.o.format == FMT_JSON) {
		if (json_dumpf(r, a.out, JSON_INDENT(2)) == 0)
			fputc('\n', a.out);
	} else {
		print_table(a.out, r);
	}
	if (fflush(a.out) || ferror(a.out)) {
		diag_error("cannot write the report: %s", strerror(errno));
		goto out;
	}
	ret = status; /* the command's status, or 0 */
out:
	if (fd >= 0)
		unlink(tmp);
	json_decref(r);
	json_decref(docj);
	adv_input_free(&in);
	if (a.have_em)
		energy_model_free(&a.em);
	if (a.out && a.out != stdout)
		fclose(a.out);
	return ret;
}
