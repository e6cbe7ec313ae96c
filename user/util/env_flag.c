/* One rule for the environment switches (env_flag.h). */
#include "util/env_flag.h"

#include <stdlib.h>
#include <string.h>

bool env_flag(const char *name)
{
	const char *v = getenv(name);

	return v && *v && strcmp(v, "0");
}
