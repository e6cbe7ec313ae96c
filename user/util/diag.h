/* Diagnostics every layer may print: one line on stderr, "idlescope: ...",
 * and the exit codes the commands return (docs/idlescope.1). */
#ifndef IDLESCOPE_DIAG_H
#define IDLESCOPE_DIAG_H

enum { EXIT_OK = 0, EXIT_RUNTIME = 1, EXIT_USAGE = 2, EXIT_ASSERT = 3 };

/* Prints "idlescope: <msg>" on stderr, control characters as '?', so the
 * message stays one line whatever a file name or argument quoted in it holds. */
void diag_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The same in place: control characters of s as '?', for messages kept to
 * be printed later (web_config_load's err). */
void diag_one_line(char *s);

#endif
