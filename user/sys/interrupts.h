/* /proc/interrupts: IRQ action names as it shows them ("virtio3-tx",
 * "i8042"), for the wakeup report, and each CPU's count. */
#ifndef IDLESCOPE_INTERRUPTS_H
#define IDLESCOPE_INTERRUPTS_H

#include <stddef.h>
#include <stdint.h>

/* The action names of irq from /proc/interrupts, "" when not listed. */
void irq_name(unsigned int irq, char *buf, size_t len);
/* The same from a file in /proc/interrupts' format (tests). */
void irq_name_in(const char *path, unsigned int irq, char *buf, size_t len);

/* Each CPU's interrupts so far into out[cpu] (max_cpus entries, zeroed
 * first): its column summed over the rows with a count in every CPU column
 * (each IRQ, x86's LOC, RES, CAL...; not ERR or MIS). Every idle exit from
 * a halt is an interrupt; interrupts taken while busy count too. Returns
 * the number of CPU columns, or -1 when the file cannot be read. */
int interrupts_per_cpu_in(const char *path, uint64_t *out, int max_cpus);

#endif
