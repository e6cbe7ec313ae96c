/* replay --profile JSON: parse or fail with a one-line reason; a parsed
 * profile describes 1 to 4096 CPUs, each with at most IS_MAX_STATES states. */
#include "fuzz.h"

#include "replay/trace_profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trace_profile p;
	char err[256] = "";

	memset(&p, 0, sizeof(p));
	if (!trace_profile_parse((const char *)data, size, &p, err, sizeof(err))) {
		FUZZ_CHECK(p.nr_cpus >= 1 && p.nr_cpus <= 4096, "cpus %d", p.nr_cpus);
		for (int c = 0; c < p.nr_cpus; c++)
			FUZZ_CHECK(p.info[c].nr_states >= 0 && p.info[c].nr_states <= IS_MAX_STATES,
				   "cpu %d: %d states", c, p.info[c].nr_states);
		trace_profile_free(&p);
	} else {
		FUZZ_CHECK(err[0] && !strchr(err, '\n'), "reason '%s'", err);
	}
	return 0;
}
