/* GnuTLS for `serve --web-config`: libmicrohttpd loads the key pair but says
 * only that it failed, and it sends the CA list and asks for a client
 * certificate but leaves checking it to the application
 * (gnutls_certificate_verify_peers2). */
#include "web/tls_gnutls.h"

#include <stdio.h>
#include <string.h>

#ifdef IDLESCOPE_GNUTLS
#include <gnutls/gnutls.h>

#include "web/web_libs.h"

bool tls_peer_can_verify(void)
{
	return true;
}

int tls_check_keypair(const char *cert_pem, const char *key_pem, char *why, size_t len)
{
	gnutls_certificate_credentials_t cred;
	gnutls_datum_t cert = { (unsigned char *)cert_pem, (unsigned int)strlen(cert_pem) };
	gnutls_datum_t key = { (unsigned char *)key_pem, (unsigned int)strlen(key_pem) };
	int err;

	if ((err = web_lib.gnutls_certificate_allocate_credentials(&cred)) < 0) {
		snprintf(why, len, "%s", web_lib.gnutls_strerror(err));
		return -1;
	}
	err = web_lib.gnutls_certificate_set_x509_key_mem2(cred, &cert, &key, GNUTLS_X509_FMT_PEM,
							   NULL, 0);
	web_lib.gnutls_certificate_free_credentials(cred);
	if (err < 0) {
		snprintf(why, len, "%s", web_lib.gnutls_strerror(err));
		return -1;
	}
	return 0;
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
	given = web_lib.gnutls_certificate_get_peers(session, &nr) && nr > 0;
	if (!given) {
		snprintf(why, len, "a client certificate is required");
		return auth == WEB_VERIFY_CLIENT_CERT_IF_GIVEN;
	}
	if (auth == WEB_REQUIRE_ANY_CLIENT_CERT)
		return true;
	if ((err = web_lib.gnutls_certificate_verify_peers2(session, &status)) < 0) {
		snprintf(why, len, "client certificate: %s", web_lib.gnutls_strerror(err));
		return false;
	}
	if (status) {
		gnutls_datum_t txt;

		if (!web_lib.gnutls_certificate_verification_status_print(status, GNUTLS_CRT_X509, &txt,
								     0)) {
			size_t n = strlen((char *)txt.data);

			while (n && txt.data[n - 1] == ' ') /* GnuTLS ends the sentence with one */
				n--;
			snprintf(why, len, "client certificate: %.*s", (int)n, txt.data);
			(*web_lib.gnutls_free_var)(txt.data);
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

int tls_check_keypair(const char *cert_pem, const char *key_pem, char *why, size_t len)
{
	(void)cert_pem;
	(void)key_pem;
	snprintf(why, len, "this build has no GnuTLS");
	return -1;
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
