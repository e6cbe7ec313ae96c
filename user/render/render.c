/* Output format names shared by every command's --format. */
#include <string.h>

#include "render/render.h"

int parse_format(const char *name, enum out_format *out)
{
	if (!strcmp(name, "table"))
		*out = FMT_TABLE;
	else if (!strcmp(name, "json"))
		*out = FMT_JSON;
	else if (!strcmp(name, "csv"))
		*out = FMT_CSV;
	else
		return -1;
	return 0;
}
