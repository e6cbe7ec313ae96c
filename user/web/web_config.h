/* `serve --web-config FILE`: the Prometheus exporter-toolkit web configuration
 * (TLS, client certificates, basic auth users), parsed strictly with libyaml. */
#ifndef IDLESCOPE_WEB_CONFIG_H
#define IDLESCOPE_WEB_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

/* client_auth_type: Go's crypto/tls names, as exporter-toolkit takes them */
enum web_client_auth {
	WEB_NO_CLIENT_CERT,
	WEB_REQUEST_CLIENT_CERT,
	WEB_REQUIRE_ANY_CLIENT_CERT,
	WEB_VERIFY_CLIENT_CERT_IF_GIVEN,
	WEB_REQUIRE_AND_VERIFY_CLIENT_CERT,
};

/* min_version / max_version; 0 = GnuTLS's default */
enum web_tls_version { WEB_TLS_DEFAULT, WEB_TLS10, WEB_TLS11, WEB_TLS12, WEB_TLS13 };

/* a user and its bcrypt hash ("$2a$", "$2b$" or "$2y$"), or a header and its value */
struct web_pair {
	char *name, *value;
};

struct web_config {
	bool tls; /* tls_server_config with cert_file and key_file */
	/* the files' contents (NUL-terminated PEM), read at load time */
	char *cert_pem, *key_pem, *client_ca_pem;
	enum web_client_auth client_auth;
	enum web_tls_version min_version, max_version;
	struct web_pair *users; /* basic_auth_users; none: no authentication */
	int nr_users;
	struct web_pair *headers; /* http_server_config.headers, on every response */
	int nr_headers;
};

/* Reads and checks FILE: unknown keys, bad values, a hash that is not bcrypt
 * and unreadable files are errors. Relative file names are relative to
 * FILE's directory (as in exporter-toolkit). Returns 0, or -1 with a
 * one-line reason in err (then c holds nothing to free). */
int web_config_load(const char *path, struct web_config *c, char *err, size_t errlen);
void web_config_free(struct web_config *c);

/* The GnuTLS priority string for min_version/max_version ("NORMAL" when
 * neither is set). */
void web_config_priorities(const struct web_config *c, char *buf, size_t len);

#endif
