/* The optional parts of a live session that `--without PART[,PART...]`
 * leaves out, so a user can trade a metric for its cost (docs/performance.md,
 * "Marginal cost"). */
#ifndef IDLESCOPE_PARTS_H
#define IDLESCOPE_PARTS_H

#include <stddef.h>

enum session_part {
	PART_WAKEUPS = 1 << 0, /* wakeup attribution (= --no-wakeups) */
	PART_TIMERS = 1 << 1,  /* timer lateness: hrtimer_expire_entry */
	PART_DETAILS = 1 << 2, /* per-IRQ, timer-function and wakee tables */
	PART_GROUPS = 1 << 3,  /* topology groups (= --topology none) */
	PART_MISS = 1 << 4,    /* the kernel's own above/below (cpu_idle_miss) */
	PART_FREQ = 1 << 5,    /* frequency residency */
	PART_FEXIT = 1 << 6,   /* the exact idle outcome through fexit */
};

/* "timers,details" into bits (added to *parts). Returns 0, or -1 with the
 * unknown name in err. */
int parts_parse(const char *s, unsigned int *parts, char *err, size_t errlen);
/* The bits as "timers,details" ("" for none). */
void parts_format(unsigned int parts, char *buf, size_t len);

#endif
