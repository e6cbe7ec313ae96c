/* Cache-line aligned zeroed arrays (alloc.h). */
#include "util/alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void *idle_calloc(size_t n, size_t size)
{
	size_t bytes;
	void *p;

	if (size && n > SIZE_MAX / size)
		return NULL;
	bytes = (n * size + 63) / 64 * 64;
	p = aligned_alloc(64, bytes ? bytes : 64);
	if (p)
		memset(p, 0, bytes);
	return p;
}
