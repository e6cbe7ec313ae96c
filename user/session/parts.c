/* Names of the session parts (--without). */
#include "session/parts.h"

#include <stdio.h>
#include <string.h>

static const char *const names[] = { "wakeups", "timers", "details", "groups",
				     "miss",    "freq",   "fexit" };
#define NR_PARTS (sizeof(names) / sizeof(names[0]))

int parts_parse(const char *s, unsigned int *parts, char *err, size_t errlen)
{
	for (;;) {
		size_t n = strcspn(s, ",");
		size_t i;

		for (i = 0; i < NR_PARTS; i++)
			if (n == strlen(names[i]) && !strncmp(s, names[i], n))
				break;
		if (i == NR_PARTS) {
			snprintf(err, errlen, "unknown part '%.*s' (wakeups, timers, details, "
				 "groups, miss, freq, fexit)", (int)n, s);
			return -1;
		}
		*parts |= 1u << i;
		if (!s[n])
			return 0;
		s += n + 1;
	}
}

void parts_format(unsigned int parts, char *buf, size_t len)
{
	size_t off = 0;

	if (len)
		buf[0] = 0;
	for (size_t i = 0; i < NR_PARTS && off < len; i++)
		if (parts >> i & 1)
			off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? "," : "",
						names[i]);
}
