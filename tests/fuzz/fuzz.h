/* Shared by the libFuzzer targets: the input as a NUL-terminated string
 * (parsers take C strings; bytes after an embedded NUL are unreachable from
 * the command line, so the copy stops there), and an invariant check that
 * aborts, so libFuzzer saves the input as a crash. */
#ifndef IDLESCOPE_FUZZ_H
#define IDLESCOPE_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
	size_t n = strnlen((const char *)data, size);
	char *s = malloc(n + 1);

	if (!s)
		abort();
	memcpy(s, data, n);
	s[n] = '\0';
	return s;
}

#define FUZZ_CHECK(cond, ...)                                                        \
	do {                                                                         \
		if (!(cond)) {                                                       \
			fprintf(stderr, "invariant failed: %s: ", #cond);            \
			fprintf(stderr, __VA_ARGS__);                                \
			fputc('\n', stderr);                                         \
			abort();                                                     \
		}                                                                    \
	} while (0)

#endif
