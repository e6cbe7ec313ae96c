/* The exporter-toolkit web configuration file (the one node_exporter takes
 * with --web.config.file), parsed as strictly as exporter-toolkit does. */
#include "web/web_config.h"
#include "util/diag.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <yaml.h>

#define PEM_MAX (1u << 20) /* a certificate chain, a key or a CA bundle */

struct parse {
	yaml_document_t doc;
	const char *path;
	struct web_config *c;
	char *err;
	size_t errlen;
};

static int fail(struct parse *p, const yaml_node_t *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(struct parse *p, const yaml_node_t *n, const char *fmt, ...)
{
	int k = n ? snprintf(p->err, p->errlen, "%s:%zu: ", p->path, n->start_mark.line + 1)
		  : snprintf(p->err, p->errlen, "%s: ", p->path);
	va_list ap;

	va_start(ap, fmt);
	if (k >= 0 && (size_t)k < p->errlen)
		vsnprintf(p->err + k, p->errlen - (size_t)k, fmt, ap);
	va_end(ap);
	return -1;
}

static const char *scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* a plain null (`key:`, `~`, `null`): the key as if absent */
static bool is_null(const yaml_node_t *n)
{
	const char *s = scalar(n);

	return s && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	       (!*s || !strcmp(s, "~") || !strcasecmp(s, "null"));
}

/* a string value: a scalar (NULL for a plain null), or an error */
static int string_of(struct parse *p, const yaml_node_t *n, const char *key, const char **out)
{
	if (!scalar(n))
		return fail(p, n, "%s must be a string", key);
	*out = is_null(n) ? NULL : scalar(n);
	return 0;
}

/* YAML 1.1 booleans, as go-yaml reads them */
static int bool_of(struct parse *p, const yaml_node_t *n, const char *key, bool *out)
{
	static const char *const yes[] = { "true", "yes", "on" }, *const no[] = { "false", "no", "off" };
	const char *s = scalar(n);

	for (size_t i = 0; s && i < 3; i++) {
		if (!strcasecmp(s, yes[i]) || !strcasecmp(s, no[i])) {
			*out = !strcasecmp(s, yes[i]);
			return 0;
		}
	}
	return fail(p, n, "%s must be true or false", key);
}

/* The mapping at n (NULL for a null node), or an error. */
static int mapping_of(struct parse *p, yaml_node_t *n, const char *key, yaml_node_t **out)
{
	*out = NULL;
	if (is_null(n))
		return 0;
	if (n->type != YAML_MAPPING_NODE)
		return fail(p, n, "%s must be a mapping", key);
	*out = n;
	return 0;
}

#define FOR_PAIRS(p, map, pair)                                                        \
	for (yaml_node_pair_t *pair = (map)->data.mapping.pairs.start;                 \
	     pair < (map)->data.mapping.pairs.top; pair++)
#define KEY(p, pair) yaml_document_get_node(&(p)->doc, (pair)->key)
#define VALUE(p, pair) yaml_document_get_node(&(p)->doc, (pair)->value)

/* The file's contents as a NUL-terminated string; a relative name is taken
 * from the configuration file's directory. */
static int read_pem(struct parse *p, const yaml_node_t *n, const char *key, const char *name,
		    char **out)
{
	const char *slash = strrchr(p->path, '/');
	char full[4096];
	FILE *f;
	size_t len;
	int e = 0;

	if (name[0] == '/' || !slash)
		snprintf(full, sizeof(full), "%s", name);
	else
		snprintf(full, sizeof(full), "%.*s/%s", (int)(slash - p->path), p->path, name);
	if (!(f = fopen(full, "re")))
		return fail(p, n, "cannot read %s '%s': %s", key, full, strerror(errno));
	if (!(*out = malloc(PEM_MAX + 1)))
		e = ENOMEM;
	else if ((len = fread(*out, 1, PEM_MAX + 1, f)) > PEM_MAX)
		e = EFBIG;
	else if (ferror(f))
		e = errno ? errno : EIO;
	else if (!len)
		e = ENODATA;
	else
		(*out)[len] = '\0';
	fclose(f);
	if (e) {
		free(*out);
		*out = NULL;
		return fail(p, n, "cannot read %s '%s': %s", key, full,
			    e == ENODATA ? "empty file" : strerror(e));
	}
	return 0;
}

static int tls_version(struct parse *p, const yaml_node_t *n, const char *key,
		       enum web_tls_version *v)
{
	static const char *const names[] = { "TLS10", "TLS11", "TLS12", "TLS13" };
	const char *s = NULL;

	if (string_of(p, n, key, &s))
		return -1;
	*v = WEB_TLS_DEFAULT;
	for (int i = 0; s && i < 4; i++)
		if (!strcmp(s, names[i]))
			*v = (enum web_tls_version)(WEB_TLS10 + i);
	if (s && *v == WEB_TLS_DEFAULT)
		return fail(p, n, "%s '%s' is not TLS10, TLS11, TLS12 or TLS13", key, s);
	return 0;
}

static int client_auth(struct parse *p, const yaml_node_t *n, enum web_client_auth *a)
{
	static const struct { const char *name; enum web_client_auth a; } types[] = {
		{ "NoClientCert", WEB_NO_CLIENT_CERT },
		{ "RequestClientCert", WEB_REQUEST_CLIENT_CERT },
		{ "RequireAnyClientCert", WEB_REQUIRE_ANY_CLIENT_CERT },
		{ "RequireClientCert", WEB_REQUIRE_ANY_CLIENT_CERT }, /* exporter-toolkit's old name */
		{ "VerifyClientCertIfGiven", WEB_VERIFY_CLIENT_CERT_IF_GIVEN },
		{ "RequireAndVerifyClientCert", WEB_REQUIRE_AND_VERIFY_CLIENT_CERT },
	};
	const char *s = NULL;

	if (string_of(p, n, "client_auth_type", &s))
		return -1;
	*a = WEB_NO_CLIENT_CERT;
	if (!s)
		return 0;
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (!strcmp(s, types[i].name)) {
			*a = types[i].a;
			return 0;
		}
	return fail(p, n, "client_auth_type '%s' is not NoClientCert, RequestClientCert, "
		    "RequireAnyClientCert, VerifyClientCertIfGiven or RequireAndVerifyClientCert", s);
}

static int tls_section(struct parse *p, yaml_node_t *map)
{
	/* exporter-toolkit keys idlescope leaves to GnuTLS's defaults or cannot check */
	static const char *const unsupported[] = { "cert", "key", "client_ca", "client_allowed_sans",
						   "cipher_suites", "curve_preferences",
						   "prefer_server_cipher_suites" };
	const char *cert = NULL, *key = NULL, *ca = NULL;
	const yaml_node_t *cert_n = map, *key_n = map, *ca_n = map;
	struct web_config *c = p->c;

	FOR_PAIRS(p, map, pair) {
		yaml_node_t *k = KEY(p, pair), *v = VALUE(p, pair);
		const char *name = scalar(k) ? scalar(k) : "?";
		int err = 0;

		if (!strcmp(name, "cert_file"))
			err = string_of(p, v, name, &cert), cert_n = v;
		else if (!strcmp(name, "key_file"))
			err = string_of(p, v, name, &key), key_n = v;
		else if (!strcmp(name, "client_ca_file"))
			err = string_of(p, v, name, &ca), ca_n = v;
		else if (!strcmp(name, "client_auth_type"))
			err = client_auth(p, v, &c->client_auth);
		else if (!strcmp(name, "min_version"))
			err = tls_version(p, v, name, &c->min_version);
		else if (!strcmp(name, "max_version"))
			err = tls_version(p, v, name, &c->max_version);
		else {
			for (size_t i = 0; i < sizeof(unsupported) / sizeof(unsupported[0]); i++)
				if (!strcmp(name, unsupported[i]))
					return fail(p, k, "tls_server_config.%s is not supported by idlescope "
						    "(GnuTLS's defaults apply without it)", name);
			return fail(p, k, "unknown key '%s' in tls_server_config", name);
		}
		if (err)
			return -1;
	}
	/* exporter-toolkit: nothing set is no TLS; anything set needs both files */
	if (!cert && !key && !ca && c->client_auth == WEB_NO_CLIENT_CERT)
		return 0;
	if (!cert)
		return fail(p, map, "tls_server_config: missing cert_file");
	if (!key)
		return fail(p, map, "tls_server_config: missing key_file");
	if (ca && c->client_auth == WEB_NO_CLIENT_CERT)
		return fail(p, ca_n, "client_ca_file without a client_auth_type (set "
			    "RequireAndVerifyClientCert to check client certificates)");
	/* MHD asks for a client certificate only when it has a CA to send */
	if (!ca && c->client_auth != WEB_NO_CLIENT_CERT)
		return fail(p, map, "client_auth_type needs client_ca_file");
	if (c->min_version && c->max_version && c->min_version > c->max_version)
		return fail(p, map, "min_version is above max_version");
	c->tls = true;
	if (read_pem(p, cert_n, "cert_file", cert, &c->cert_pem) ||
	    read_pem(p, key_n, "key_file", key, &c->key_pem) ||
	    (ca && read_pem(p, ca_n, "client_ca_file", ca, &c->client_ca_pem)))
		return -1;
	return 0;
}

/* "$2a$", "$2b$" or "$2y$", a two-digit cost 04..31, 53 characters of
 * bcrypt's base64: what Go's bcrypt and libxcrypt both accept. */
static bool is_bcrypt(const char *h)
{
	static const char b64[] = "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	int cost;

	if (strlen(h) != 60 || h[0] != '$' || h[1] != '2' || !strchr("aby", h[2]) || h[3] != '$' ||
	    h[4] < '0' || h[4] > '9' || h[5] < '0' || h[5] > '9' || h[6] != '$')
		return false;
	cost = (h[4] - '0') * 10 + (h[5] - '0');
	return cost >= 4 && cost <= 31 && strspn(h + 7, b64) == 53;
}

/* a user: a name basic auth can carry, and a bcrypt hash */
static int check_user(struct parse *p, const yaml_node_t *k, const yaml_node_t *v, const char *user,
		      const char *hash)
{
	if (!*user)
		return fail(p, k, "basic_auth_users: a user name must be a non-empty string");
	if (strchr(user, ':'))
		return fail(p, k, "basic_auth_users: user '%s' has a ':' (basic auth cannot carry it)",
			    user);
	if (!hash || !is_bcrypt(hash))
		return fail(p, v, "basic_auth_users: the password of '%s' is not a bcrypt hash "
			    "($2y$10$ and 53 more characters, e.g. from htpasswd -nBC 10 %s)", user, user);
	return 0;
}

/* a header exporter-toolkit lets a configuration set, on one line */
static int check_header(struct parse *p, const yaml_node_t *k, const yaml_node_t *v,
			const char *name, const char *value)
{
	static const char *const ok[] = { "Strict-Transport-Security", "X-Content-Type-Options",
					  "X-Frame-Options", "X-XSS-Protection",
					  "Content-Security-Policy" };
	size_t i = 0;

	while (i < sizeof(ok) / sizeof(ok[0]) && strcasecmp(name, ok[i]))
		i++;
	if (i == sizeof(ok) / sizeof(ok[0]))
		return fail(p, k, "http_server_config.headers: '%s' is not one of "
			    "Strict-Transport-Security, X-Content-Type-Options, X-Frame-Options, "
			    "X-XSS-Protection, Content-Security-Policy", name);
	if (!value || strpbrk(value, "\r\n"))
		return fail(p, v, "http_server_config.headers: %s must be one line of text", name);
	return 0;
}

typedef int pair_check(struct parse *p, const yaml_node_t *k, const yaml_node_t *v,
		       const char *name, const char *value);

/* A mapping of strings to strings, each pair passing check, copied into *out. */
static int pairs_of(struct parse *p, yaml_node_t *map, const char *what, pair_check *check,
		    struct web_pair **out, int *nr)
{
	size_t n = (size_t)(map->data.mapping.pairs.top - map->data.mapping.pairs.start);

	if (!(*out = calloc(n ? n : 1, sizeof(**out))))
		return fail(p, NULL, "out of memory");
	FOR_PAIRS(p, map, pair) {
		yaml_node_t *k = KEY(p, pair), *v = VALUE(p, pair);
		struct web_pair *e = &(*out)[*nr];

		if (!scalar(k))
			return fail(p, k, "%s: a key must be a string", what);
		if (check(p, k, v, scalar(k), scalar(v)))
			return -1;
		e->name = strdup(scalar(k));
		e->value = strdup(scalar(v));
		if (!e->name || !e->value)
			return fail(p, NULL, "out of memory");
		(*nr)++;
	}
	return 0;
}

static int http_section(struct parse *p, yaml_node_t *map)
{
	FOR_PAIRS(p, map, pair) {
		yaml_node_t *k = KEY(p, pair), *v = VALUE(p, pair), *m;
		const char *name = scalar(k) ? scalar(k) : "?";
		bool http2;

		if (!strcmp(name, "http2")) {
			/* MHD speaks HTTP/1.1, which every HTTP/2 client falls back to */
			if (bool_of(p, v, "http_server_config.http2", &http2))
				return -1;
		} else if (!strcmp(name, "headers")) {
			if (mapping_of(p, v, "http_server_config.headers", &m) ||
			    (m && pairs_of(p, m, "http_server_config.headers", check_header,
					   &p->c->headers, &p->c->nr_headers)))
				return -1;
		} else {
			return fail(p, k, "unknown key '%s' in http_server_config", name);
		}
	}
	return 0;
}

static int top_level(struct parse *p)
{
	yaml_node_t *root = yaml_document_get_root_node(&p->doc), *m;

	if (!root || is_null(root))
		return 0; /* an empty file: plain HTTP, no authentication */
	if (root->type != YAML_MAPPING_NODE)
		return fail(p, root, "expected a mapping of tls_server_config, http_server_config "
			    "and basic_auth_users");
	FOR_PAIRS(p, root, pair) {
		yaml_node_t *k = KEY(p, pair), *v = VALUE(p, pair);
		const char *name = scalar(k) ? scalar(k) : "?";
		int err;

		if (!strcmp(name, "tls_server_config"))
			err = mapping_of(p, v, name, &m) || (m && tls_section(p, m));
		else if (!strcmp(name, "http_server_config"))
			err = mapping_of(p, v, name, &m) || (m && http_section(p, m));
		else if (!strcmp(name, "basic_auth_users"))
			err = mapping_of(p, v, name, &m) ||
			      (m && pairs_of(p, m, name, check_user, &p->c->users, &p->c->nr_users));
		else
			return fail(p, k, "unknown key '%s' (tls_server_config, http_server_config or "
				    "basic_auth_users)", name);
		if (err)
			return -1;
	}
	return 0;
}

/* Two keys of the same name in one mapping: go-yaml refuses them, libyaml does not. */
static int duplicate_keys(struct parse *p)
{
	for (yaml_node_t *n = p->doc.nodes.start; n < p->doc.nodes.top; n++) {
		if (n->type != YAML_MAPPING_NODE)
			continue;
		FOR_PAIRS(p, n, a) {
			const char *ka = scalar(KEY(p, a));

			for (yaml_node_pair_t *b = a + 1; ka && b < n->data.mapping.pairs.top; b++) {
				const char *kb = scalar(KEY(p, b));

				if (kb && !strcmp(ka, kb))
					return fail(p, KEY(p, b), "key '%s' twice in one mapping", ka);
			}
		}
	}
	return 0;
}

int web_config_load(const char *path, struct web_config *c, char *err, size_t errlen)
{
	struct parse p = { .path = path, .c = c, .err = err, .errlen = errlen };
	yaml_parser_t parser;
	FILE *f;
	int ret = -1;

	memset(c, 0, sizeof(*c));
	if (!(f = fopen(path, "re"))) {
		snprintf(err, errlen, "cannot read --web-config '%s': %s", path, strerror(errno));
		diag_one_line(err);
		return -1;
	}
	if (!yaml_parser_initialize(&parser)) {
		fclose(f);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	yaml_parser_set_input_file(&parser, f);
	if (!yaml_parser_load(&parser, &p.doc)) {
		snprintf(err, errlen, "%s:%zu: %s", path, parser.problem_mark.line + 1,
			 parser.problem ? parser.problem : "not YAML");
	} else {
		ret = duplicate_keys(&p) || top_level(&p) ? -1 : 0;
		yaml_document_delete(&p.doc);
	}
	yaml_parser_delete(&parser);
	fclose(f);
	if (ret) {
		web_config_free(c);
		diag_one_line(err); /* a folded scalar keeps a newline for an empty line */
	}
	return ret;
}

static void pairs_free(struct web_pair *pairs, int n)
{
	for (int i = 0; i < n; i++) {
		free(pairs[i].name);
		free(pairs[i].value);
	}
	free(pairs);
}

void web_config_free(struct web_config *c)
{
	pairs_free(c->users, c->nr_users);
	pairs_free(c->headers, c->nr_headers);
	/* the key in memory no longer than needed */
	if (c->key_pem)
		explicit_bzero(c->key_pem, strlen(c->key_pem));
	free(c->key_pem);
	free(c->cert_pem);
	free(c->client_ca_pem);
	memset(c, 0, sizeof(*c));
}

void web_config_priorities(const struct web_config *c, char *buf, size_t len)
{
	static const char *const vers[] = { NULL, "TLS1.0", "TLS1.1", "TLS1.2", "TLS1.3" };
	size_t n = (size_t)snprintf(buf, len, "NORMAL");

	/* GnuTLS: NORMAL enables every version it allows; take out those outside */
	for (int v = WEB_TLS10; v <= WEB_TLS13 && n < len; v++)
		if ((c->min_version && v < (int)c->min_version) ||
		    (c->max_version && v > (int)c->max_version))
			n += (size_t)snprintf(buf + n, len - n, ":-VERS-%s", vers[v]);
}
