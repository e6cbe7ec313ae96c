/* The client certificate check of `serve --web-config`: libmicrohttpd sends
 * the CA list and asks for a certificate, but leaves checking it to the
 * application (GnuTLS's gnutls_certificate_verify_peers2). */
#include "util/tls_peer.h"

#include <stdio.h>
#include <string.h>

#ifdef IDLESCOPE_GNUTLS
#include <gnutls/gnutls.h>

bool tls_peer_can_verify(void)
{
	return true;
}

bool tls_peer_allowed(void *session, enum web_client_auth auth, char *why, size_t len)
{
	unsigned int nr = 0, status = 0;
	bool given;
	int err;

	if (auth == WEB_NO_CLIENT_CERT || auth == WEB_REQUEST_CLIENT_CERT)
		return true;
	if (!session) {
		snprintf(why, len, "no TLS session");
		return false;
	}
	given = gnutls_certificate_get_peers(session, &nr) && nr > 0;
	if (!given) {
		snprintf(why, len, "a client certificate is required");
		return auth == WEB_VERIFY_CLIENT_CERT_IF_GIVEN;
	}
	if (auth == WEB_REQUIRE_ANY_CLIENT_CERT)
		return true;
	if ((err = gnutls_certificate_verify_peers2(session, &status)) < 0) {
		snprintf(why, len, "client certificate: %s", gnutls_strerror(err));
		return false;
	}
	if (status) {
		gnutls_datum_t txt;

		if (!gnutls_certificate_verification_status_print(status, GNUTLS_CRT_X509, &txt, 0)) {
			size_t n = strlen((char *)txt.data);

			while (n && txt.data[n - 1] == ' ') /* GnuTLS ends the sentence with one */
				n--;
			snprintf(why, len, "client certificate: %.*s", (int)n, txt.data);
			gnutls_free(txt.data);
		} else {
			snprintf(why, len, "client certificate not trusted");
		}
		return false;
	}
	return true;
}
#else
bool tls_peer_can_verify(void)
{
	return false;
}

bool tls_peer_allowed(void *session, enum web_client_auth auth, char *why, size_t len)
{
	(void)session;
	if (auth == WEB_NO_CLIENT_CERT)
		return true;
	snprintf(why, len, "this build has no GnuTLS to check client certificates");
	return false;
}
#endif
