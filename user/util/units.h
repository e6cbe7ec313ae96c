/* Human units for tables: nanoseconds in data, "12.3us" on screen. */
#ifndef IDLESCOPE_UNITS_H
#define IDLESCOPE_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* Formats ns with 3 significant digits: 850ns, 12.3us, 4.56ms, 1.20s. */
const char *fmt_ns(char *buf, size_t len, uint64_t ns);
/* fmt_ns into one of 16 rotating static buffers, so one printf can take
 * many; not thread-safe. */
const char *ns_text(uint64_t ns);
/* Parses "10", "1.5", "500ms", "2s", "100us" as a duration; bare numbers
 * are in default_unit_ns. Returns 0 or -1. */
int parse_duration(const char *s, uint64_t default_unit_ns, uint64_t *out_ns);

#endif
