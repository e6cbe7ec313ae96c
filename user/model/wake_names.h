/* Names for what woke a CPU: wakeup kinds and softirq vectors. IRQ and
 * hrtimer function names are read below, in sys/interrupts and sys/kallsyms. */
#ifndef IDLESCOPE_WAKE_NAMES_H
#define IDLESCOPE_WAKE_NAMES_H

#include <stdint.h>

#include "wake_stats.h"

const char *wake_kind_name(int kind);   /* "timer", "ipi-resched", ... */
const char *softirq_name(uint64_t vec); /* "TIMER", "NET_RX", ... */

#endif
