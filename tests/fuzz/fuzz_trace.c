/* Trace import (replay): any bytes parse or fail with a reason; what parses
 * has sane bounds, and sorting keeps every event with non-decreasing time. */
#include "fuzz.h"

#include "replay/trace_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trace_data d;

	memset(&d, 0, sizeof(d));
	if (!trace_parse_buffer((const char *)data, size, &d)) {
		size_t n = d.nr_ev;

		FUZZ_CHECK(d.nr_ev <= d.cap_ev, "nr_ev %zu > cap %zu", d.nr_ev, d.cap_ev);
		FUZZ_CHECK(d.nr_skipped_names <= TP_MAX_SKIPPED_NAMES, "skipped names");
		FUZZ_CHECK(d.nr_irq_names <= TP_MAX_IRQ_NAMES, "irq names");
		for (int c = 0; c < d.nr_state_cpus; c++)
			FUZZ_CHECK(d.nr_states[c] >= 0 && d.nr_states[c] <= IS_MAX_STATES &&
					   (!d.nr_states[c] || d.described[c]),
				   "CPU %d: %d states", c, d.nr_states[c]);
		trace_sort_events(&d);
		FUZZ_CHECK(d.nr_ev == n, "sort lost events");
		FUZZ_CHECK(d.reordered <= n && d.held_back <= n, "reordered %llu held %llu of %zu",
			   (unsigned long long)d.reordered, (unsigned long long)d.held_back, n);
		for (size_t i = 1; i < d.nr_ev; i++)
			FUZZ_CHECK(d.ev[i - 1].re.now_ns <= d.ev[i].re.now_ns, "unsorted at %zu", i);
	} else {
		FUZZ_CHECK(d.error[0], "no reason");
	}
	trace_data_free(&d);
	return 0;
}
