/* Numbers into jansson values, one way for every JSON writer: counters and
 * nanoseconds are uint64_t, jansson's integers signed 64-bit. */
#ifndef IDLESCOPE_JSON_NUM_H
#define IDLESCOPE_JSON_NUM_H

#include <stdint.h>

#include <jansson.h>

/* v as a JSON integer; above INT64_MAX (never a real count) it saturates
 * rather than turning negative. */
json_t *json_u64(uint64_t v);
/* v as a JSON real, or null when it is NaN (not computable). */
json_t *json_real_or_null(double v);

#endif
