/* The IDLESCOPE_* switches of docs/idlescope.1 (ENVIRONMENT): one rule for
 * all of them. */
#ifndef IDLESCOPE_ENV_FLAG_H
#define IDLESCOPE_ENV_FLAG_H

#include <stdbool.h>

/* The variable is set, not empty and not "0". */
bool env_flag(const char *name);

#endif
