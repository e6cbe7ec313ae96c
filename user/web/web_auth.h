/* Basic auth against a web configuration's bcrypt hashes (libxcrypt), with
 * the password that last matched kept per user so a scrape costs one
 * constant-time comparison, not a bcrypt run (~60 ms at cost 10). */
#ifndef IDLESCOPE_WEB_AUTH_H
#define IDLESCOPE_WEB_AUTH_H

#include <pthread.h>
#include <stdbool.h>

#include "web/web_config.h"

#define WEB_AUTH_MAX_PASSWORD 72 /* bytes bcrypt reads; a longer password is refused */

struct web_auth {
	const struct web_config *c;
	pthread_mutex_t lock;   /* verified[] is shared by the HTTP threads */
	char **verified;        /* [nr_users]: the password that last matched, or NULL */
	char dummy[61];         /* an unknown user's hash, at the dearest configured cost */
	int min_cost, max_cost; /* of the configured hashes; they differ: timing tells users apart */
	/* for the tests: what the cache saved, and the cost of the last run */
	unsigned long bcrypt_runs;
	int last_cost;
};

int web_auth_init(struct web_auth *a, const struct web_config *c);
/* Whether user and password are the pair that last matched: no bcrypt run. */
bool web_auth_cached(struct web_auth *a, const char *user, const char *password);
/* Whether user and password match a basic_auth_users entry. An unknown user
 * costs a bcrypt run at the configured cost, so timing does not tell it from
 * a known one; a password past WEB_AUTH_MAX_PASSWORD bytes fails at once. */
bool web_auth_check(struct web_auth *a, const char *user, const char *password);
void web_auth_free(struct web_auth *a);

#endif
