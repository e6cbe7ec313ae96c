/* Kernel addresses to symbol names from /proc/kallsyms (hrtimer functions
 * in the wakeup report), cached across calls. */
#ifndef IDLESCOPE_KALLSYMS_H
#define IDLESCOPE_KALLSYMS_H

#include <stdint.h>

/* Resolves n kernel addresses to symbol names in one pass over
 * /proc/kallsyms; unresolved ones become "0x<hex>". names[i] has 64 bytes. */
void kallsyms_resolve(const uint64_t *addr, int n, char (*names)[64]);

#endif
