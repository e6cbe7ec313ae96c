/* One live run for record, top, serve and hist: the ending signals blocked
 * from the command's first instruction, then prepare, load, attach and
 * start in one order, the window with its refresh tick, and teardown. A
 * command supplies its options, its output and its loop body as callbacks. */
#ifndef IDLESCOPE_LIVE_RUN_H
#define IDLESCOPE_LIVE_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "session/live.h"

struct live_run; /* live_run's own state, for a loop of the command's */

/* What a command's setup hands live_run: the session to run and how. */
struct live_plan {
	struct live *live;            /* the command's session, prepared here */
	const struct topology *topo;  /* read by the command (cli_prepare) */
	struct live_opts opts;        /* live_prepare's options */
	uint64_t duration_ns;         /* -d, 0 = until a signal or COMMAND ends */
	uint64_t interval_ns;         /* -i: on_interval's period, 0 = none */
	char **command;               /* -- COMMAND, NULL = none */
};

/* A live command's callbacks; cmd is the command's own struct. Every one
 * but setup may be NULL. Those returning int return 0 or an exit code
 * after printing the error. */
struct live_ops {
	/* serve: the window opens (live_start) before the attach, so nothing
	 * it counts began before it; the others attach, then open it */
	bool start_before_attach;
	/* options parsed and acted on, output opened, tables allocated: the
	 * ending signals are blocked already */
	int (*setup)(void *cmd, int argc, char **argv, struct live_plan *plan);
	int (*prepared)(void *cmd); /* after live_prepare, before the load */
	int (*loaded)(void *cmd);   /* after live_load, before attach and start */
	void (*before_start)(void *cmd);              /* the instant before the start is read */
	int (*started)(void *cmd, uint64_t start);    /* right after live_start */
	int (*opened)(void *cmd, uint64_t start);     /* attached, started: before COMMAND runs */
	/* a loop of its own instead of the window (top), calling
	 * live_run_tick: returns the exit code */
	int (*loop)(void *cmd, struct live_run *run, uint64_t start);
	/* every interval of the window; true ends it */
	bool (*on_interval)(void *cmd, uint64_t now);
	/* serve: the refresh tick under the lock its HTTP thread shares */
	void (*lock)(void *cmd, bool take);
	void (*before_stop)(void *cmd); /* the window ended, before the stop is read */
	/* after the stop: the output. Returns 0, an exit code that outranks
	 * COMMAND's (--fail-if: 2 or 3), or -1 after printing the error */
	int (*finish)(void *cmd, uint64_t start, uint64_t stop);
	/* the command's own teardown, before the window's and the session's */
	void (*cleanup)(void *cmd);
};

/* Runs a live command from its first instruction to its exit code: blocks
 * the ending signals, setup, live_prepare, prepared, live_load, loaded,
 * live_attach and live_start (in the order ops asks), opened, then the
 * window (or ops->loop) with live_refresh when due (live_refresh_ns), PM
 * QoS changes as they come (live_qos_event), the stop,
 * finish, and teardown. The exit code is finish's when non-zero, else
 * COMMAND's status or 0. */
int live_run(const struct live_ops *ops, void *cmd, int argc, char **argv);

/* For ops->loop: the refresh tick (live_refresh) when it is due at now;
 * returns when the next one is. */
uint64_t live_run_tick(struct live_run *run, uint64_t now);
/* For ops->loop: the descriptor to wait on for PM QoS changes (-1: none),
 * the call when it is readable, and the timer slack a wait for the refresh
 * tick may take (window_timer_slack). */
int live_run_qos_fd(const struct live_run *run);
void live_run_qos(struct live_run *run, uint64_t now);
uint64_t live_run_slack_ns(const struct live_run *run);

#endif
