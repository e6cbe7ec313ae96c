/* `serve --web-config FILE` applied to libmicrohttpd: the daemon's TLS
 * flags and options, and the gate every request passes (client certificate,
 * then basic auth) before a handler answers it. */
#ifndef IDLESCOPE_WEB_MHD_H
#define IDLESCOPE_WEB_MHD_H

#include <stdbool.h>

#include <microhttpd.h>

#include "web/web_auth.h"
#include "web/web_config.h"
#include "web/web_throttle.h"

#define WEB_MHD_MAX_OPTIONS 8

struct web_mhd {
	bool loaded;
	struct web_config cfg;
	struct web_auth auth;
	struct web_throttle throttle; /* failed logins */
	char priorities[96];
	struct MHD_OptionItem options[WEB_MHD_MAX_OPTIONS]; /* ends with MHD_OPTION_END */
};

/* Reads FILE (NULL: no web configuration, plain HTTP for anyone). Returns 0,
 * or an exit code with a one-line reason in err: EXIT_USAGE for a bad file,
 * EXIT_RUNTIME when this build cannot serve TLS. Notes (passwords in clear
 * text, bcrypt costs that differ) go to stderr. */
int web_mhd_load(struct web_mhd *w, const char *path, char *err, size_t errlen);
/* MHD_USE_* flags the configuration needs (TLS; a thread per connection
 * when bcrypt may run, so one check does not hold up the other scrapes). */
unsigned int web_mhd_flags(const struct web_mhd *w);
/* Whether the request may be answered; when not, the refusal (403; 401
 * with WWW-Authenticate; 429 with Retry-After when the address, or all,
 * failed too often) is queued and *ret is what the handler returns. */
bool web_mhd_admit(struct web_mhd *w, struct MHD_Connection *conn, enum MHD_Result *ret);
/* Queues a text/plain refusal with the configured headers (401: with
 * WWW-Authenticate; 400: closing the connection; retry_after > 0: that
 * Retry-After). Returns what the handler returns. */
enum MHD_Result web_mhd_refuse(struct web_mhd *w, struct MHD_Connection *conn, unsigned int code,
			       const char *body, unsigned int retry_after);
/* http_server_config.headers on a response */
void web_mhd_headers(const struct web_mhd *w, struct MHD_Response *resp);
void web_mhd_free(struct web_mhd *w);

#endif
