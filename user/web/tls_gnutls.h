/* What `serve --web-config` asks of GnuTLS itself: the certificate and key
 * checked as a pair at start-up, and each connection's client certificate
 * against client_auth_type. Only a build linked with GnuTLS (STATIC=0, the
 * Debian package) has it; the static build refuses TLS before it matters. */
#ifndef IDLESCOPE_TLS_GNUTLS_H
#define IDLESCOPE_TLS_GNUTLS_H

#include <stdbool.h>
#include <stddef.h>

#include "web/web_config.h"

/* Whether this build can check certificates at all. */
bool tls_peer_can_verify(void);
/* 0 when the PEM certificate (chain) and key load and belong together, as
 * libmicrohttpd will load them; -1 with GnuTLS's reason in why. */
int tls_check_keypair(const char *cert_pem, const char *key_pem, char *why, size_t len);
/* Whether the connection's client may go on under auth (session is MHD's
 * gnutls_session_t). Returns false with the reason in why. */
bool tls_peer_allowed(void *session, enum web_client_auth auth, char *why, size_t len);

#endif
