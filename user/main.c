/* idlescope: what Linux CPUs do when idle, and why. Dispatches to the
 * subcommand named by the first argument. */
#include <argp.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cli.h"
#include "cmd/commands.h"

const char *argp_program_version = "idlescope " IDLESCOPE_VERSION;
const char *argp_program_bug_address = NULL;

static const struct {
	const char *name;
	int (*fn)(int, char **);
	const char *help;
} commands[] = {
	{ "record", cmd_record, "idle-state residency and prediction error, cross-checked with the kernel" },
	{ "ab", cmd_ab, "A/B runs under setting variants, repeated, with Welch's t-test" },
	{ "compare", cmd_compare, "metrics of two or more JSON summaries side by side, with deltas" },
	{ "report", cmd_report, "one self-contained HTML page of JSON summaries: charts, tables, comparison" },
	{ "replay", cmd_replay, "a recorded trace (trace-cmd, ftrace, idlestat) through the same BPF handlers" },
	{ "info", cmd_info, "what this kernel supports (--features), and what each missing piece costs" },
	{ "top", cmd_top, "live view: busy, idle states, misses and wakeups per CPU and group" },
	{ "hist", cmd_hist, "one-shot histograms: residency, exit/wakeup/runq latency, idle entry/exit" },
	{ "serve", cmd_serve, "Prometheus exporter: the counters at http://127.0.0.1:9464/metrics" },
	{ "advise", cmd_advise, "per idle state: misses, the miss-minimising target residency, break-even and energy" },
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: idlescope COMMAND [OPTIONS] [-- COMMAND...]\n\nCommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\n'idlescope COMMAND --help' lists a command's options; see idlescope(1).\n");
}

int main(int argc, char **argv)
{
	argp_err_exit_status = EXIT_USAGE;
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		printf("%s\n", argp_program_version);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--features"))
		argv[1] = "info";
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name)) {
			char name[64];

			/* argp names the program after argv[0] in usage lines */
			snprintf(name, sizeof(name), "idlescope %s", commands[i].name);
			argv[1] = name;
			return commands[i].fn(argc - 1, argv + 1);
		}
	diag_error("unknown command '%s' (try 'idlescope --help')", argv[1]);
	return EXIT_USAGE;
}
