/* The shared option vocabulary (argp child) and its validation. */
#include "cmd/cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/flatten.h"
#include "session/parts.h"
#include "sys/topology.h"
#include "util/units.h"
#include "util/workload.h"

enum { OPT_FORMAT = 0x100, OPT_FAIL_IF };

static const struct argp_option all_options[] = {
	{ "duration", 'd', "SECONDS", 0, "Measure for SECONDS (suffixes ms, s, m accepted)", 0 },
	{ "interval", 'i', "SECONDS", 0, "Also print a line every SECONDS", 0 },
	{ "cpus", 'C', "CPULIST", 0, "Report only these CPUs, e.g. 0-3,6", 0 },
	{ "output", 'o', "FILE", 0, "Write the report to FILE instead of stdout", 0 },
	{ "format", OPT_FORMAT, "FMT", 0, "table (default), json or csv", 0 }, /* cli_takes */
	{ "verbose", 'v', NULL, 0, "Show libbpf's log", 0 },
	{ "fail-if", OPT_FAIL_IF, "EXPR", 0,
	  "Exit 3 when EXPR holds, e.g. 'total.above_ratio > 10%' (repeatable)", 0 },
	{ 0 }
};

/* The command's selection (cli_takes): one command runs per process. */
static unsigned int takes = CLI_ALL | CLI_CSV;
static struct argp_option options[sizeof(all_options) / sizeof(all_options[0])];

static unsigned int bit_of(int key)
{
	switch (key) {
	case 'd': return CLI_DURATION;
	case 'i': return CLI_INTERVAL;
	case 'C': return CLI_CPUS;
	case 'o': return CLI_OUTPUT;
	case OPT_FORMAT: return CLI_FORMAT;
	case 'v': return CLI_VERBOSE;
	case OPT_FAIL_IF: return CLI_FAIL_IF;
	default: return 0;
	}
}

/* The --format values the command takes, as its --help and errors list them. */
static const char *formats_taken(void)
{
	if (takes & CLI_PROM)
		return "table, json, csv or prom";
	return takes & CLI_CSV ? "table, json or csv" : "table or json";
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct common_opts *o = state->input;
	unsigned int bit = bit_of(key);

	/* hidden from this command's --help, and refused by name */
	if (bit && !(takes & bit))
		for (size_t i = 0; all_options[i].name; i++)
			if (all_options[i].key == key)
				argp_error(state, "--%s does not apply to %s", all_options[i].name,
					   strncmp(state->name, "idlescope ", 10) ? state->name
										 : state->name + 10);
	switch (key) {
	case 'd':
		if (parse_duration(arg, 1000000000ULL, &o->duration_ns) || !o->duration_ns)
			argp_error(state, "invalid duration '%s' (e.g. 10, 2.5, 500ms)", arg);
		break;
	case 'i':
		if (parse_duration(arg, 1000000000ULL, &o->interval_ns) || o->interval_ns < 10000000)
			argp_error(state, "invalid interval '%s' (at least 10ms)", arg);
		break;
	case 'C':
		o->cpus_arg = arg;
		break;
	case 'o':
		o->output = arg;
		break;
	case OPT_FORMAT:
		if (parse_format(arg, &o->format) || (o->format == FMT_PROM && !(takes & CLI_PROM)) ||
		    (o->format == FMT_CSV && !(takes & CLI_CSV)))
			argp_error(state, "unknown format '%s' (%s)", arg, formats_taken());
		break;
	case 'v':
		o->verbose = true;
		break;
	case OPT_FAIL_IF: {
		char err[256];

		if (o->nr_asserts == (int)(sizeof(o->asserts) / sizeof(o->asserts[0])))
			argp_error(state, "at most %d --fail-if", o->nr_asserts);
		if (assertion_parse(arg, &o->asserts[o->nr_asserts], err, sizeof(err)))
			argp_error(state, "%s", err);
		o->nr_asserts++;
		break;
	}
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

struct argp common_argp = { all_options, parse_opt, NULL, NULL, NULL, NULL, NULL };

void cli_takes(unsigned int which, const char *interval_doc)
{
	takes = which;
	for (size_t i = 0; i < sizeof(all_options) / sizeof(all_options[0]); i++) {
		options[i] = all_options[i];
		if (all_options[i].name && !(which & bit_of(all_options[i].key)))
			options[i].flags |= OPTION_HIDDEN;
		if (all_options[i].key == OPT_FORMAT)
			options[i].doc = which & CLI_PROM
						 ? "table (default), json, csv or prom (Prometheus text, "
						   "for node_exporter's textfile collector)"
					 : which & CLI_CSV ? "table (default), json or csv"
							   : "table (default) or json";
		if (all_options[i].key == 'i' && interval_doc)
			options[i].doc = interval_doc;
	}
	common_argp.options = options;
}

enum { OPT_NO_WAKEUPS = 0x280, OPT_TOPOLOGY, OPT_WITHOUT };

static const struct argp_option session_options[] = {
	{ "no-wakeups", OPT_NO_WAKEUPS, NULL, 0,
	  "Skip wakeup attribution (no interrupt-path programs, no wakeup metrics)", 0 },
	{ "topology", OPT_TOPOLOGY, "SPEC", 0,
	  "Group rows, every topology level in one tree: sysfs (default, every level sysfs has), "
	  "core, cluster, die, package, freq-domain, custom:0-3,4-7, or none; several levels "
	  "joined by ',' (custom last)", 0 },
	{ "without", OPT_WITHOUT, "PARTS", 0,
	  "Leave optional parts out to save their cost (docs/performance.md): wakeups, timers "
	  "(timer lateness), details (IRQ, timer and wakee tables), groups, miss (the kernel's "
	  "above/below), freq, fexit; joined by ','", 0 },
	{ 0 }
};

static error_t parse_session_opt(int key, char *arg, struct argp_state *state)
{
	const struct session_cli *session_cli = state->input;

	switch (key) {
	case OPT_NO_WAKEUPS:
		*session_cli->wake = false;
		break;
	case OPT_TOPOLOGY:
		*session_cli->topology = arg;
		break;
	case OPT_WITHOUT: {
		char err[160];

		if (parts_parse(arg, session_cli->without, err, sizeof(err)))
			argp_error(state, "--without: %s", err);
		if (*session_cli->without & PART_WAKEUPS)
			*session_cli->wake = false;
		break;
	}
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

const struct argp session_argp = { session_options, parse_session_opt, NULL, NULL, NULL, NULL,
				   NULL };

int cli_resolve_cpus(const struct common_opts *o, const struct cpulist *possible,
		     struct cpulist *sel)
{
	char err[256], have[256];

	if (!o->cpus_arg) {
		*sel = *possible;
		return 0;
	}
	if (cpulist_parse(o->cpus_arg, sel, err, sizeof(err))) {
		diag_error("bad CPU list '%s': %s", o->cpus_arg, err);
		return -1;
	}
	if (!cpulist_count(sel)) {
		diag_error("empty CPU list '%s'", o->cpus_arg);
		return -1;
	}
	cpulist_format(possible, have, sizeof(have));
	for (int c = 0; c < IS_CPULIST_MAX; c++)
		if (cpulist_has(sel, c) && !cpulist_has(possible, c)) {
			diag_error("CPU %d does not exist (this machine has CPUs %s)", c, have);
			return -1;
		}
	return 0;
}

int cli_prepare(const struct common_opts *o, struct topology *t, struct cpulist *sel, FILE **out)
{
	int e;

	*out = stdout;
	if (topology_read(t)) {
		diag_error("cannot read /sys/devices/system/cpu/possible (is sysfs mounted?)");
		return EXIT_RUNTIME;
	}
	if (cli_resolve_cpus(o, &t->possible, sel))
		return EXIT_USAGE;
	if (o->command && (e = workload_resolve(o->command[0]))) {
		diag_error("cannot run '%s': %s", o->command[0],
			  e == -ENOENT ? "command not found" : strerror(-e));
		return 127;
	}
	if (o->output && !(*out = fopen(o->output, "we"))) {
		diag_error("cannot write '%s': %s", o->output, strerror(errno));
		*out = stdout;
		return EXIT_RUNTIME;
	}
	return 0;
}

int cli_check_asserts(const struct common_opts *o, const json_t *doc,
		      int (*flatten)(const json_t *doc, struct metric_set *out), FILE *out)
{
	struct metric_set m = { 0 };
	int ret = EXIT_RUNTIME;

	if (!o->nr_asserts)
		return EXIT_OK;
	if (doc && !flatten(doc, &m)) {
		fflush(out);
		ret = assertions_check(o->asserts, o->nr_asserts, &m, NULL, NULL);
	} else {
		diag_error("--fail-if: the report cannot be evaluated (out of memory?)");
	}
	metric_set_free(&m);
	return ret;
}

char **cli_record_argv(const struct common_opts *o, const char *path, bool pass_cpus_verbose,
		       char dur[32])
{
	int argc = 0, n = 0;
	char **argv;

	for (char **c = o->command; c && *c; c++)
		n++;
	if (!(argv = calloc((size_t)n + 16, sizeof(*argv))))
		return NULL;
	argv[argc++] = "idlescope";
	argv[argc++] = "record";
	argv[argc++] = "--format";
	argv[argc++] = "json";
	argv[argc++] = "-o";
	argv[argc++] = (char *)path;
	if (o->duration_ns) {
		snprintf(dur, 32, "%lluns", (unsigned long long)o->duration_ns);
		argv[argc++] = "-d";
		argv[argc++] = dur;
	}
	if (pass_cpus_verbose && o->cpus_arg) {
		argv[argc++] = "-C";
		argv[argc++] = (char *)o->cpus_arg;
	}
	if (pass_cpus_verbose && o->verbose)
		argv[argc++] = "-v";
	if (o->command) {
		argv[argc++] = "--";
		for (char **c = o->command; *c; c++)
			argv[argc++] = *c;
	}
	return argv;
}
