/* IRQ action names as /proc/interrupts shows them ("virtio3-tx",
 * "i8042"), for the wakeup report. */
#ifndef IDLESCOPE_INTERRUPTS_H
#define IDLESCOPE_INTERRUPTS_H

#include <stddef.h>

/* The action names of irq from /proc/interrupts, "" when not listed. */
void irq_name(unsigned int irq, char *buf, size_t len);
/* The same from a file in /proc/interrupts' format (tests). */
void irq_name_in(const char *path, unsigned int irq, char *buf, size_t len);

#endif
