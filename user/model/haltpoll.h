/* Guest halt-polling figures of a CPU (and the totals): the POLL state's
 * periods, how they ended, the poll limit's moves and the wake latency the
 * caught polls saved (docs/metrics.md#halt-polling). No I/O. */
#ifndef IDLESCOPE_MODEL_HALTPOLL_H
#define IDLESCOPE_MODEL_HALTPOLL_H

#include <stdbool.h>
#include <stdint.h>

#include "haltpoll_stats.h"

/* the state a timed-out poll falls into: "haltpoll idle" (HLT) */
#define HALTPOLL_HALT_STATE (IS_HALTPOLL_POLL_STATE + 1)

/* where the halt exit latency a caught poll saved comes from */
enum haltpoll_basis {
	HP_BASIS_NONE = 0, /* no halt state known, nothing saved */
	HP_BASIS_MEASURED, /* the halt state's mean timer lateness */
	HP_BASIS_DECLARED, /* the halt state's declared exit latency */
	HP_BASIS_MIXED,    /* totals: CPUs of both kinds */
};

/* What one CPU's capture gives. */
struct haltpoll_input {
	const struct haltpoll_cpu *raw;
	uint64_t polls, poll_ns;         /* the POLL state's counted periods */
	bool halt_declared;              /* the halt state is in a driver table */
	uint64_t halt_exit_latency_ns;   /* its declared exit latency */
	uint64_t lateness_samples;       /* halt periods a timer ended, measured */
	uint64_t lateness_sum_ns;
};

struct haltpoll_summary {
	bool known;                      /* counted: driver and governor haltpoll */
	uint64_t polls, poll_ns;
	uint64_t woken, timed_out;
	uint64_t unresolved;             /* the last poll's end not told in the window */
	uint64_t grow, shrink;
	/* the poll limit: known after a move; in the totals only min and max */
	bool limit_known;
	uint64_t limit_ns, limit_first_ns, limit_min_ns, limit_max_ns;
	enum haltpoll_basis basis;
	uint64_t halt_exit_ns;           /* per caught poll (a CPU's; 0 in the totals) */
	uint64_t saved_ns;               /* woken x halt_exit_ns */
};

struct haltpoll_summary haltpoll_of(const struct haltpoll_input *in);
/* Adds s into t; start t as (struct haltpoll_summary){ .known = true }. */
void haltpoll_add(struct haltpoll_summary *t, const struct haltpoll_summary *s);
/* "measured", "declared", "mixed", or NULL for none */
const char *haltpoll_basis_name(enum haltpoll_basis b);

#endif
