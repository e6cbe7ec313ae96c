/* CPU lists (-C, sysfs *_list files, custom topology parts): parse, and a
 * list that parses formats back to one that parses to the same CPUs. */
#include "fuzz.h"

#include "util/cpulist.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size), err[256], text[IS_CPULIST_MAX * 6];
	struct cpulist a, b;

	if (!cpulist_parse(s, &a, err, sizeof(err))) {
		cpulist_format(&a, text, sizeof(text));
		FUZZ_CHECK(!cpulist_parse(text, &b, err, sizeof(err)), "'%s' -> '%s': %s", s, text, err);
		FUZZ_CHECK(cpulist_equal(&a, &b), "'%s' -> '%s' differs", s, text);
		FUZZ_CHECK(cpulist_count(&a) <= IS_CPULIST_MAX, "count");
	} else {
		FUZZ_CHECK(err[0], "no reason for '%s'", s);
	}
	free(s);
	return 0;
}
