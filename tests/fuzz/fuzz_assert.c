/* --fail-if EXPR: parse, then evaluate against a small metric set (plain and
 * delta()); parsed expressions fit their fields and evaluate without UB. */
#include "fuzz.h"

#include "cmd/assert.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct metric_kv kv[] = {
		{ "total.above_ratio", 0.25 }, { "state[POLL].p99_ns", 2e6 },
		{ "duration_ns", 1e9 }, { "group[cluster0].idle_share", 0.5 },
		{ "total.below", 0 },
	};
	static struct metric_kv kv2[] = {
		{ "total.above_ratio", 0.5 }, { "state[POLL].p99_ns", 1e6 },
		{ "duration_ns", 2e9 }, { "total.below", 7 },
	};
	struct metric_set m = { 5, 5, kv }, o = { 4, 4, kv2 };
	char *s = fuzz_cstr(data, size), err[256] = "";
	struct assertion a;
	double got;

	if (!assertion_parse(s, &a, err, sizeof(err))) {
		FUZZ_CHECK(memchr(a.metric, 0, sizeof(a.metric)) && memchr(a.text, 0, sizeof(a.text)),
			   "'%s'", s);
		FUZZ_CHECK(a.op >= OP_GT && a.op <= OP_NE, "'%s': op %d", s, (int)a.op);
		if (a.delta)
			(void)assertion_eval_delta(&a, &m, &o, &got);
		else
			(void)assertion_eval(&a, &m, &got);
	} else {
		FUZZ_CHECK(err[0], "'%s': error '%s'", s, err);
	}
	free(s);
	return 0;
}
