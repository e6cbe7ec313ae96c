/* Duration formatting and parsing shared by every command. */
#include "util/units.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *fmt_ns(char *buf, size_t len, uint64_t ns)
{
	static const struct { const char *unit; double div; } units[] = {
		{ "s", 1e9 }, { "ms", 1e6 }, { "us", 1e3 },
	};
	double v;

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		/* take the unit in which the value rounds to at least 1.00 */
		if ((double)ns < units[i].div * 0.9995)
			continue;
		v = (double)ns / units[i].div;
		if (v >= 99.95)
			snprintf(buf, len, "%.0f%s", v, units[i].unit);
		else if (v >= 9.995)
			snprintf(buf, len, "%.1f%s", v, units[i].unit);
		else
			snprintf(buf, len, "%.2f%s", v, units[i].unit);
		return buf;
	}
	snprintf(buf, len, "%lluns", (unsigned long long)ns);
	return buf;
}

int parse_duration(const char *s, uint64_t default_unit_ns, uint64_t *out_ns)
{
	static const struct { const char *suffix; double mult; } sfx[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 }, { "m", 60e9 },
	};
	double v, mult = (double)default_unit_ns;
	char *end;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !isfinite(v) || v < 0)
		return -1;
	if (*end) {
		size_t i;

		for (i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++)
			if (!strcmp(end, sfx[i].suffix))
				break;
		if (i == sizeof(sfx) / sizeof(sfx[0]))
			return -1;
		mult = sfx[i].mult;
	}
	if (v * mult > 1e18)
		return -1;
	*out_ns = (uint64_t)(v * mult + 0.5);
	return 0;
}

const char *ns_text(uint64_t ns)
{
	static char bufs[16][16];
	static unsigned int next;

	return fmt_ns(bufs[next++ % 16], sizeof(bufs[0]), ns);
}
