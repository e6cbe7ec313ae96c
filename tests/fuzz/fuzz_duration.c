/* Durations (-d, -i, --fail-if values): parse; a parsed value is bounded, and
 * what fmt_ns prints for it parses back within its 3 significant digits. */
#include "fuzz.h"

#include <math.h>

#include "util/units.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size), buf[64];
	uint64_t ns, back;

	if (!parse_duration(s, 1000000000ULL, &ns)) {
		FUZZ_CHECK(ns <= 1000000000000000000ULL, "'%s' -> %llu", s, (unsigned long long)ns);
		fmt_ns(buf, sizeof(buf), ns);
		FUZZ_CHECK(!parse_duration(buf, 1, &back), "'%s' -> %llu -> '%s' does not parse", s,
			   (unsigned long long)ns, buf);
		FUZZ_CHECK(fabs((double)back - (double)ns) <= (double)ns * 0.005 + 0.5,
			   "'%s' -> %llu -> '%s' -> %llu", s, (unsigned long long)ns, buf,
			   (unsigned long long)back);
	}
	free(s);
	return 0;
}
