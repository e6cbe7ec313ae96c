/* Basic auth for `serve --web-config`: bcrypt through libxcrypt's crypt_rn,
 * as exporter-toolkit checks it, and a per-user cache of the last match. */
#include "web/web_auth.h"

#include <crypt.h>
#include <stdlib.h>
#include <string.h>

/* a valid hash matched by no password the user sends: an unknown user
 * costs what a known one costs (as in exporter-toolkit); made by
 * htpasswd -nbBC 10 from random bytes thrown away. Its cost (the "10") is
 * replaced by the configured one: bcrypt's time doubles per step, so a
 * cost-10 dummy beside cost-5 users told them apart (57 ms against 1.2 ms). */
static const char dummy_hash[] = "$2y$10$6Fdiqj7M6Bv8HnVLenRiR.61k4XOgyO.mGy5s0XS6741KTUp8gPfS";

static int cost_of(const char *hash)
{
	return (hash[4] - '0') * 10 + (hash[5] - '0'); /* web_config checked the form */
}

/* Equal strings, in a time that depends only on the length of a (the
 * attempt), never on where b (the secret) first differs. */
static bool same(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	volatile unsigned char diff = la != lb;

	for (size_t i = 0; i < la; i++)
		diff |= (unsigned char)a[i] ^ (unsigned char)(lb ? b[i < lb ? i : 0] : 0);
	return diff == 0;
}

int web_auth_init(struct web_auth *a, const struct web_config *c)
{
	memset(a, 0, sizeof(*a));
	a->c = c;
	pthread_mutex_init(&a->lock, NULL);
	memcpy(a->dummy, dummy_hash, sizeof(dummy_hash));
	for (int i = 0; i < c->nr_users; i++) {
		int cost = cost_of(c->users[i].value);

		if (!i || cost < a->min_cost)
			a->min_cost = cost;
		if (!i || cost > a->max_cost)
			a->max_cost = cost;
	}
	/* mixed costs: an unknown user looks like the dearest (a note says so) */
	if (c->nr_users) {
		a->dummy[4] = (char)('0' + a->max_cost / 10);
		a->dummy[5] = (char)('0' + a->max_cost % 10);
	}
	a->verified = calloc(c->nr_users ? (size_t)c->nr_users : 1, sizeof(*a->verified));
	return a->verified ? 0 : -1;
}

static bool bcrypt_matches(struct web_auth *a, const char *password, const char *hash)
{
	struct crypt_data *d = calloc(1, sizeof(*d)); /* 32 KB: not on an HTTP thread's stack */
	const char *out;
	bool ok;

	if (!d)
		return false;
	out = crypt_rn(password, hash, d, sizeof(*d));
	ok = out && same(out, hash);
	explicit_bzero(d, sizeof(*d));
	free(d);
	pthread_mutex_lock(&a->lock);
	a->bcrypt_runs++;
	a->last_cost = cost_of(hash);
	pthread_mutex_unlock(&a->lock);
	return ok;
}

/* the configured user's index, or -1; every name compared, so the time
 * does not tell where a match was */
static int user_of(const struct web_auth *a, const char *user)
{
	int u = -1;

	for (int i = 0; i < a->c->nr_users; i++)
		if (!strcmp(a->c->users[i].name, user))
			u = i;
	return u;
}

bool web_auth_cached(struct web_auth *a, const char *user, const char *password)
{
	int u = user_of(a, user);
	bool ok;

	if (u < 0)
		return false;
	pthread_mutex_lock(&a->lock);
	ok = a->verified[u] && same(password, a->verified[u]);
	pthread_mutex_unlock(&a->lock);
	return ok;
}

bool web_auth_check(struct web_auth *a, const char *user, const char *password)
{
	int u = user_of(a, user);

	/* bcrypt reads 72 bytes: a longer password would match on its start */
	if (strlen(password) > WEB_AUTH_MAX_PASSWORD)
		return false;
	if (u < 0) {
		bcrypt_matches(a, password, a->dummy);
		return false;
	}
	if (web_auth_cached(a, user, password))
		return true;
	/* bcrypt outside the lock: a wrong password does not hold up the others */
	if (!bcrypt_matches(a, password, a->c->users[u].value))
		return false;
	pthread_mutex_lock(&a->lock);
	if (a->verified[u]) {
		explicit_bzero(a->verified[u], strlen(a->verified[u]));
		free(a->verified[u]);
	}
	a->verified[u] = strdup(password); /* NULL: the next scrape runs bcrypt again */
	pthread_mutex_unlock(&a->lock);
	return true;
}

void web_auth_free(struct web_auth *a)
{
	for (int i = 0; a->verified && i < a->c->nr_users; i++) {
		if (a->verified[i])
			explicit_bzero(a->verified[i], strlen(a->verified[i]));
		free(a->verified[i]);
	}
	free(a->verified);
	pthread_mutex_destroy(&a->lock);
	memset(a, 0, sizeof(*a));
}
