/* Numbers into jansson values (json_num.h). */
#include "util/json_num.h"

#include <math.h>

json_t *json_u64(uint64_t v)
{
	return json_integer(v > (uint64_t)INT64_MAX ? INT64_MAX : (json_int_t)v);
}

json_t *json_real_or_null(double v)
{
	return isnan(v) ? json_null() : json_real(v);
}
