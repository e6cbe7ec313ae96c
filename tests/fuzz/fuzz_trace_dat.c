/* trace.dat import (replay): any bytes read or fail with a one-line reason;
 * every offset, count and compressed size of the container is checked
 * (user/replay/dat_file.c), so no input reads out of bounds or hangs. */
#include "fuzz.h"

#include "replay/trace_dat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trace_data d;

	if (!trace_dat_parse_buffer((const char *)data, size, NULL, &d)) {
		FUZZ_CHECK(d.nr_ev <= d.cap_ev, "nr_ev %zu > cap %zu", d.nr_ev, d.cap_ev);
		FUZZ_CHECK(d.nr_ev <= d.lines, "%zu events of %llu records", d.nr_ev,
			   (unsigned long long)d.lines);
		FUZZ_CHECK(d.header_cpus >= 0 && d.header_cpus <= 4096, "cpus %d", d.header_cpus);
	} else {
		FUZZ_CHECK(d.error[0] && !strchr(d.error, '\n'), "reason '%s'", d.error);
	}
	trace_data_free(&d);
	return 0;
}
