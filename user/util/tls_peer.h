/* The client certificate of a TLS connection against the web configuration's
 * client_auth_type: GnuTLS verifies it against the client_ca_file that
 * libmicrohttpd loaded. Only a build linked with GnuTLS (STATIC=0, the
 * Debian package) has it; the static build refuses TLS before it matters. */
#ifndef IDLESCOPE_TLS_PEER_H
#define IDLESCOPE_TLS_PEER_H

#include <stdbool.h>
#include <stddef.h>

#include "util/web_config.h"

/* Whether this build can check client certificates at all. */
bool tls_peer_can_verify(void);
/* Whether the connection's client may go on under auth (session is MHD's
 * gnutls_session_t). Returns false with the reason in why. */
bool tls_peer_allowed(void *session, enum web_client_auth auth, char *why, size_t len);

#endif
