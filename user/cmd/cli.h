/* Options every subcommand shares, with one meaning everywhere:
 * -d duration, -i interval, -C CPU list, -o output, --format, -v verbose,
 * and `-- COMMAND`. Subcommands add theirs through argp children. */
#ifndef IDLESCOPE_CLI_H
#define IDLESCOPE_CLI_H

#include <argp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>

#include <jansson.h>

#include "cmd/assert.h"
#include "util/diag.h"
#include "util/cpulist.h"
#include "render/render.h"

struct common_opts {
	uint64_t duration_ns; /* 0 = until the command ends or a signal */
	uint64_t interval_ns; /* 0 = no interval lines */
	const char *cpus_arg;
	const char *output;
	enum out_format format;
	bool verbose;
	char **command; /* NULL-terminated argv after `--`, or NULL */
	int nr_asserts; /* --fail-if */
	struct assertion asserts[16];
};

/* The shared options a command takes, for cli_takes(). */
enum cli_opt {
	CLI_DURATION = 1 << 0, /* -d */
	CLI_INTERVAL = 1 << 1, /* -i */
	CLI_CPUS = 1 << 2,     /* -C */
	CLI_OUTPUT = 1 << 3,   /* -o */
	CLI_FORMAT = 1 << 4,   /* --format */
	CLI_VERBOSE = 1 << 5,  /* -v */
	CLI_FAIL_IF = 1 << 6,  /* --fail-if */
	CLI_ALL = (1 << 7) - 1,
	CLI_PROM = 1 << 7,     /* --format prom too (record) */
	CLI_CSV = 1 << 8,      /* --format csv too */
};
/* The shared options, an argp child whose input is a struct common_opts. */
extern struct argp common_argp;
/* Which of them the command takes (enum cli_opt bits), called before
 * argp_parse: those are listed in its --help, the others hidden and refused
 * ("--duration does not apply to compare", exit 2); --format offers and
 * takes table and json, and csv and prom only with their bits. interval_doc:
 * what -i means to this command (NULL: "Also print a line every SECONDS").
 * Without a call, all of them. */
void cli_takes(unsigned int which, const char *interval_doc);

/* --no-wakeups, --topology SPEC and --without PARTS of the live commands
 * (record, serve, top): an argp child whose input is a struct session_cli
 * pointing at the command's own fields. */
struct session_cli {
	bool *wake;             /* cleared by --no-wakeups and --without wakeups */
	const char **topology;  /* set by --topology */
	unsigned int *without;  /* enum session_part bits, from --without */
};
extern const struct argp session_argp;

/* Resolves cpus_arg against the possible CPUs into sel (all when NULL).
 * Returns 0, or -1 after printing a usage error. */
int cli_resolve_cpus(const struct common_opts *o, const struct cpulist *possible,
		     struct cpulist *sel);
struct topology;
/* What every live command does first: read the topology, resolve -C, check
 * the command can run, open -o. Returns 0 or an exit code after printing
 * the error; *out is stdout or the opened file. */
int cli_prepare(const struct common_opts *o, struct topology *t, struct cpulist *sel,
		FILE **out);
/* --fail-if over a printed report: doc flattened by flatten (flatten_summary
 * or flatten_hist); out is flushed first so the report precedes the failed
 * assertions. Returns EXIT_OK, EXIT_ASSERT, or EXIT_RUNTIME when the report
 * cannot be evaluated. */
int cli_check_asserts(const struct common_opts *o, const json_t *doc,
		      int (*flatten)(const json_t *doc, struct metric_set *out), FILE *out);
/* argv (NULL-terminated, free() it) to run `idlescope record --format json
 * -o path` as a child with o's -d, -- COMMAND and, with pass_cpus_verbose,
 * -C and -v; dur holds -d's text. NULL when out of memory. */
char **cli_record_argv(const struct common_opts *o, const char *path, bool pass_cpus_verbose,
		       char dur[32]);

#endif
