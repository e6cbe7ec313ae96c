/* --fail-if: small assertions over the flat metric names (flatten.h), for
 * CI. "total.above_ratio > 0.10", "state[POLL].p99_ns > 2ms",
 * "group[cluster0].idle_share < 50%", and in compare "delta(total.below) > 5%". */
#ifndef IDLESCOPE_ASSERT_H
#define IDLESCOPE_ASSERT_H

#include <stdbool.h>
#include <stddef.h>

#include "model/flatten.h"

enum assert_op { OP_GT, OP_GE, OP_LT, OP_LE, OP_EQ, OP_NE };

struct assertion {
	char text[160];
	char metric[96];
	bool delta;    /* delta(METRIC): OTHER - BASE (compare only) */
	bool percent;  /* VALUE ended in %: a share (x/100) or, with delta, relative */
	enum assert_op op;
	double value;  /* durations in ns */
};

/* Parses one expression. Returns 0, or -1 with a one-line reason. */
int assertion_parse(const char *text, struct assertion *a, char *err, size_t errlen);
/* 1 holds, 0 fails, -1 unknown metric. *got receives the compared value. */
int assertion_eval(const struct assertion *a, const struct metric_set *m, double *got);
/* delta() assertions between a base and another file. */
int assertion_eval_delta(const struct assertion *a, const struct metric_set *base,
			 const struct metric_set *other, double *got);
/* Runs every assertion on m (and base for delta()); prints each failure on
 * stderr. Returns EXIT_OK, EXIT_ASSERT (3) or EXIT_USAGE (unknown metric). */
int assertions_check(const struct assertion *a, int n, const struct metric_set *m,
		     const struct metric_set *base, const char *label);

#endif
