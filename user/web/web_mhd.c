/* The web configuration in libmicrohttpd's terms: TLS from memory (the PEM
 * files read at start-up), the client certificate checked per request, and
 * basic auth answered with 401 and WWW-Authenticate as exporter-toolkit does,
 * or 429 when wrong passwords used up their budget. */
#include "web/web_mhd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/diag.h"
#include "web/tls_gnutls.h"
#include "web/web_libs.h"

int web_mhd_load(struct web_mhd *w, const char *path, char *err, size_t errlen)
{
	struct web_config *c = &w->cfg;
	char why[200];
	int n = 0;

	memset(w, 0, sizeof(*w));
	w->options[0].option = MHD_OPTION_END;
	if (!path)
		return 0;
	if (web_config_load(path, c, err, errlen))
		return EXIT_USAGE;
	w->loaded = true;
	if (c->tls && web_lib.MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
		snprintf(err, errlen,
			 "%s asks for TLS (tls_server_config), which this static build cannot serve: "
			 "its libmicrohttpd has no HTTPS (a static GnuTLS needs p11-kit); use the Debian "
			 "package or the default build ('make')", path);
		return EXIT_RUNTIME;
	}
	if (c->client_auth != WEB_NO_CLIENT_CERT && !tls_peer_can_verify()) {
		snprintf(err, errlen, "%s: this build cannot check client certificates (no GnuTLS); "
			 "use the Debian package or the default build ('make')", path);
		return EXIT_RUNTIME;
	}
	/* a key that is not the certificate's, or not PEM, found before anything loads */
	if (c->tls && tls_peer_can_verify() && tls_check_keypair(c->cert_pem, c->key_pem, why, sizeof(why))) {
		snprintf(err, errlen, "%s: cert_file and key_file: %s", path, why);
		return EXIT_USAGE;
	}
	if (web_auth_init(&w->auth, c)) {
		snprintf(err, errlen, "out of memory");
		return EXIT_RUNTIME;
	}
	web_throttle_init(&w->throttle);
	if (c->nr_users && !c->tls)
		diag_error("note: %s has basic_auth_users but no tls_server_config: passwords cross "
			   "the network in clear text", path);
	if (w->auth.min_cost != w->auth.max_cost)
		diag_error("note: %s: basic_auth_users' bcrypt costs differ (%d to %d): how long a "
			   "refusal takes tells the users of cheaper hashes from unknown ones; make "
			   "them all with one cost (htpasswd -nBC %d USER)", path, w->auth.min_cost,
			   w->auth.max_cost, w->auth.max_cost);
	if (c->tls) {
		web_config_priorities(c, w->priorities, sizeof(w->priorities));
		w->options[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_CERT, 0, c->cert_pem };
		w->options[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_KEY, 0, c->key_pem };
		w->options[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_PRIORITIES, 0, w->priorities };
		if (c->client_ca_pem)
			w->options[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_TRUST, 0,
								   c->client_ca_pem };
	}
	w->options[n].option = MHD_OPTION_END;
	return 0;
}

unsigned int web_mhd_flags(const struct web_mhd *w)
{
	return (w->cfg.tls ? MHD_USE_TLS : 0) | (w->cfg.nr_users ? MHD_USE_THREAD_PER_CONNECTION : 0);
}

void web_mhd_headers(const struct web_mhd *w, struct MHD_Response *resp)
{
	for (int i = 0; i < w->cfg.nr_headers; i++)
		web_lib.MHD_add_response_header(resp, w->cfg.headers[i].name, w->cfg.headers[i].value);
}

enum MHD_Result web_mhd_refuse(struct web_mhd *w, struct MHD_Connection *conn, unsigned int code,
			       const char *body, unsigned int retry_after)
{
	struct MHD_Response *resp =
		web_lib.MHD_create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_MUST_COPY);
	enum MHD_Result ret;
	char secs[16];

	if (!resp)
		return MHD_NO;
	web_lib.MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
	if (retry_after) {
		snprintf(secs, sizeof(secs), "%u", retry_after);
		web_lib.MHD_add_response_header(resp, MHD_HTTP_HEADER_RETRY_AFTER, secs);
	}
	/* a malformed request: what follows it cannot be trusted to be a request */
	if (code == MHD_HTTP_BAD_REQUEST)
		web_lib.MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
	web_mhd_headers(w, resp);
	if (code == MHD_HTTP_UNAUTHORIZED)
		ret = web_lib.MHD_queue_basic_auth_fail_response(conn, "idlescope", resp);
	else
		ret = web_lib.MHD_queue_response(conn, code, resp);
	web_lib.MHD_destroy_response(resp);
	return ret;
}

/* The user and password of the Authorization header (MHD_free them), or
 * NULL. MHD 0.9.75 decodes into C strings: a NUL in the decoded pair would
 * cut the password short ("pass\0junk" matching "pass"), so the pair must
 * be as long as the base64 says. */
static char *credentials(struct MHD_Connection *conn, char **password)
{
	const char *h;
	size_t hlen, b64, want;
	char *user;

	*password = NULL;
	if (web_lib.MHD_lookup_connection_value_n(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION,
					  strlen(MHD_HTTP_HEADER_AUTHORIZATION), &h, &hlen) != MHD_YES ||
	    strlen(h) != hlen || strncmp(h, "Basic ", 6))
		return NULL;
	b64 = hlen - 6;
	want = b64 / 4 * 3 - (b64 && h[hlen - 1] == '=') - (b64 > 1 && h[hlen - 2] == '=');
	user = web_lib.MHD_basic_auth_get_username_password(conn, password);
	if (user && *password && strlen(user) + 1 + strlen(*password) == want)
		return user;
	if (*password) {
		explicit_bzero(*password, strlen(*password));
		web_lib.MHD_free(*password);
		*password = NULL;
	}
	if (user)
		web_lib.MHD_free(user);
	return NULL;
}

/* basic auth: the cached pair at once; else a bcrypt run, within the
 * failure budget of the client's address and of all */
static enum MHD_Result check_password(struct web_mhd *w, struct MHD_Connection *conn, bool *ok)
{
	const union MHD_ConnectionInfo *ci =
		web_lib.MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	const struct sockaddr *sa = ci ? ci->client_addr : NULL;
	char *user, *password;
	unsigned int wait = 0;

	*ok = false;
	if ((user = credentials(conn, &password))) {
		if (strlen(password) > WEB_AUTH_MAX_PASSWORD)
			; /* refused at once: bcrypt would read only its start */
		else if (web_auth_cached(&w->auth, user, password))
			*ok = true;
		else if (!(wait = web_throttle_enter(&w->throttle, sa))) {
			*ok = web_auth_check(&w->auth, user, password);
			web_throttle_leave(&w->throttle, sa, !*ok);
		}
		explicit_bzero(password, strlen(password));
		web_lib.MHD_free(password);
		web_lib.MHD_free(user);
	}
	if (*ok)
		return MHD_YES;
	if (wait)
		return web_mhd_refuse(w, conn, MHD_HTTP_TOO_MANY_REQUESTS,
				      "Too many failed logins: retry later\n", wait);
	return web_mhd_refuse(w, conn, MHD_HTTP_UNAUTHORIZED, "Unauthorized\n", 0);
}

bool web_mhd_admit(struct web_mhd *w, struct MHD_Connection *conn, enum MHD_Result *ret)
{
	char why[256], body[300];
	bool ok;

	if (!w->loaded)
		return true;
	if (w->cfg.tls && w->cfg.client_auth != WEB_NO_CLIENT_CERT) {
		const union MHD_ConnectionInfo *ci =
			web_lib.MHD_get_connection_info(conn, MHD_CONNECTION_INFO_GNUTLS_SESSION);

		if (!tls_peer_allowed(ci ? ci->tls_session : NULL, w->cfg.client_auth, why, sizeof(why))) {
			snprintf(body, sizeof(body), "%s\n", why);
			*ret = web_mhd_refuse(w, conn, MHD_HTTP_FORBIDDEN, body, 0);
			return false;
		}
	}
	if (!w->cfg.nr_users)
		return true;
	*ret = check_password(w, conn, &ok);
	return ok;
}

void web_mhd_free(struct web_mhd *w)
{
	if (!w->loaded)
		return;
	web_auth_free(&w->auth);
	web_throttle_free(&w->throttle);
	web_config_free(&w->cfg);
	w->loaded = false;
}
