/* Names for what woke a CPU: wakeup kinds, softirq vectors, IRQ numbers (as
 * /proc/interrupts shows them) and hrtimer functions (from /proc/kallsyms). */
#ifndef IDLESCOPE_WAKE_NAMES_H
#define IDLESCOPE_WAKE_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "wake_stats.h"

const char *wake_kind_name(int kind);   /* "timer", "ipi-resched", ... */
const char *softirq_name(uint64_t vec); /* "TIMER", "NET_RX", ... */
/* The action names of irq from /proc/interrupts, "" when not listed. */
void irq_name(unsigned int irq, char *buf, size_t len);
/* The same from a file in /proc/interrupts' format (tests). */
void irq_name_in(const char *path, unsigned int irq, char *buf, size_t len);

/* Resolves n kernel addresses to symbol names in one pass over
 * /proc/kallsyms; unresolved ones become "0x<hex>". names[i] has len bytes. */
void kallsyms_resolve(const uint64_t *addr, int n, char (*names)[64]);

#endif
