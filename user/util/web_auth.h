/* Basic auth against a web configuration's bcrypt hashes (libxcrypt), with
 * the password that last matched kept per user so a scrape costs one
 * constant-time comparison, not a bcrypt run (~60 ms at cost 10). */
#ifndef IDLESCOPE_WEB_AUTH_H
#define IDLESCOPE_WEB_AUTH_H

#include <pthread.h>
#include <stdbool.h>

#include "util/web_config.h"

struct web_auth {
	const struct web_config *c;
	pthread_mutex_t lock;   /* verified[] is shared by the HTTP threads */
	char **verified;        /* [nr_users]: the password that last matched, or NULL */
	unsigned long bcrypt_runs; /* for the tests: what the cache saved */
};

int web_auth_init(struct web_auth *a, const struct web_config *c);
/* Whether user and password match a basic_auth_users entry. An unknown user
 * costs a bcrypt run as a known one does, so timing does not tell them apart. */
bool web_auth_check(struct web_auth *a, const char *user, const char *password);
void web_auth_free(struct web_auth *a);

#endif
