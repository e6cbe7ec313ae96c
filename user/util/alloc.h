/* Allocation for arrays of the BPF map value types. */
#ifndef IDLESCOPE_ALLOC_H
#define IDLESCOPE_ALLOC_H

#include <stddef.h>

/* calloc() for arrays of the map value types, which are cache-line aligned
 * (aligned(64)) while calloc() only promises 16 bytes; NULL on overflow or
 * when out of memory. Freed with free(). */
void *idle_calloc(size_t n, size_t size);

#endif
