/* Unit tests for user/web/web_config.c (the exporter-toolkit web configuration:
 * what it accepts, and one error line for each thing it refuses) and
 * user/web/web_auth.c (bcrypt against hashes made by other implementations:
 * Apache's htpasswd and the crypt_blowfish test vectors, and the cache). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "web/web_auth.h"
#include "web/web_config.h"

/* `htpasswd -nbBC 10 alice 'correct horse'` (apache2-utils 2.4.71) */
#define ALICE_HASH "$2y$10$E/MEewLqda0gk58XKB80n.8ggddLq4XOqS205y9pNz.l1Eh2PTPBa"
/* `htpasswd -nbBC 4 bob 'b:c é'`: a ':' and UTF-8 in the password */
#define BOB_HASH "$2y$04$Gk6tSjzm73oZeM/LTUTz.etrThaYm7f2lCZCoHjv/lGRpfaa5dm.S"
/* crypt_blowfish's published test vectors (Openwall, wrapper.c): "U*U", "U*U*" */
#define VECTOR1 "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW"
#define VECTOR2 "$2a$05$CCCCCCCCCCCCCCCCCCCCC.VGOzA784oUp/Z0DY336zx7pLYAy0lwK"

static char dir[64];

static void put(const char *name, const char *text)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_non_null(f = fopen(path, "w"));
	fputs(text, f);
	fclose(f);
}

/* Writes text as web.yml in the test directory and loads it. */
static int load(const char *text, struct web_config *c, char *err, size_t len)
{
	char path[128];

	put("web.yml", text);
	snprintf(path, sizeof(path), "%s/web.yml", dir);
	err[0] = '\0';
	return web_config_load(path, c, err, len);
}

static void load_ok(const char *text, struct web_config *c)
{
	char err[512];

	if (load(text, c, err, sizeof(err)))
		fail_msg("refused: %s\n%s", err, text);
}

/* Refused, with one line holding needle (and the line number "web.yml:N:"
 * when line > 0). */
static void load_bad(const char *text, const char *needle, int line)
{
	struct web_config c;
	char err[512], where[32];

	if (!load(text, &c, err, sizeof(err))) {
		web_config_free(&c);
		fail_msg("accepted, expected an error with '%s':\n%s", needle, text);
	}
	if (!strstr(err, needle))
		fail_msg("error '%s' lacks '%s'", err, needle);
	assert_null(strchr(err, '\n'));
	if (line > 0) {
		snprintf(where, sizeof(where), "web.yml:%d: ", line);
		if (!strstr(err, where))
			fail_msg("error '%s' lacks '%s'", err, where);
	}
	/* refused means nothing to free: the struct is all zero */
	assert_null(c.users);
	assert_null(c.cert_pem);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/idlescope-webcfg-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	put("server.crt", "CERT\n");
	put("server.key", "KEY\n");
	put("ca.crt", "CA\n");
	put("empty.pem", "");
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

static void test_full_file(void **state)
{
	struct web_config c;
	char pri[96];

	(void)state;
	load_ok("# node_exporter's format\n"
		"tls_server_config:\n"
		"  cert_file: server.crt\n"            /* relative to the file's directory */
		"  key_file: server.key\n"
		"  client_auth_type: RequireAndVerifyClientCert\n"
		"  client_ca_file: ca.crt\n"
		"  min_version: TLS12\n"
		"http_server_config:\n"
		"  http2: true\n"
		"  headers:\n"
		"    X-Frame-Options: deny\n"
		"basic_auth_users:\n"
		"  alice: " ALICE_HASH "\n"
		"  'bob': \"" BOB_HASH "\"\n",
		&c);
	assert_true(c.tls);
	assert_string_equal(c.cert_pem, "CERT\n");
	assert_string_equal(c.key_pem, "KEY\n");
	assert_string_equal(c.client_ca_pem, "CA\n");
	assert_int_equal(c.client_auth, WEB_REQUIRE_AND_VERIFY_CLIENT_CERT);
	assert_int_equal(c.min_version, WEB_TLS12);
	assert_int_equal(c.max_version, WEB_TLS_DEFAULT);
	assert_int_equal(c.nr_users, 2);
	assert_string_equal(c.users[0].name, "alice");
	assert_string_equal(c.users[0].value, ALICE_HASH);
	assert_string_equal(c.users[1].name, "bob");
	assert_int_equal(c.nr_headers, 1);
	assert_string_equal(c.headers[0].name, "X-Frame-Options");
	assert_string_equal(c.headers[0].value, "deny");
	/* TLS 1.2 and up: GnuTLS's NORMAL without 1.0 and 1.1 */
	web_config_priorities(&c, pri, sizeof(pri));
	assert_string_equal(pri, "NORMAL:-VERS-TLS1.0:-VERS-TLS1.1");
	web_config_free(&c);
}

static void test_no_tls(void **state)
{
	struct web_config c;
	char pri[96];

	(void)state;
	load_ok("", &c); /* an empty file: plain HTTP for anyone */
	assert_false(c.tls);
	assert_int_equal(c.nr_users, 0);
	web_config_free(&c);
	/* exporter-toolkit: a TLS section with nothing set is no TLS */
	load_ok("tls_server_config:\nbasic_auth_users:\n  alice: " ALICE_HASH "\n", &c);
	assert_false(c.tls);
	assert_int_equal(c.nr_users, 1);
	web_config_free(&c);
	load_ok("tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n"
		"  max_version: TLS12\n", &c);
	assert_true(c.tls);
	assert_null(c.client_ca_pem);
	assert_int_equal(c.client_auth, WEB_NO_CLIENT_CERT);
	web_config_priorities(&c, pri, sizeof(pri));
	assert_string_equal(pri, "NORMAL:-VERS-TLS1.3");
	web_config_free(&c);
}

static void test_unknown_keys(void **state)
{
	(void)state;
	load_bad("tls_config:\n  cert_file: server.crt\n", "unknown key 'tls_config'", 1);
	load_bad("tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n"
		 "  certfile: x\n", "unknown key 'certfile' in tls_server_config", 4);
	load_bad("http_server_config:\n  http3: true\n", "unknown key 'http3' in http_server_config", 2);
	load_bad("tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n"
		 "  cipher_suites: [TLS_AES_128_GCM_SHA256]\n", "cipher_suites is not supported", 4);
	load_bad("http_server_config:\n  headers:\n    Server: idlescope\n", "'Server' is not one of", 3);
	load_bad("basic_auth_users:\n  alice: " ALICE_HASH "\n  alice: " ALICE_HASH "\n",
		 "key 'alice' twice", 3);
}

static void test_bad_values(void **state)
{
	(void)state;
	load_bad("basic_auth_users:\n  alice: correct horse\n", "password of 'alice' is not a bcrypt hash", 2);
	/* a hash cut short, a cost out of range, an unknown variant */
	load_bad("basic_auth_users:\n  alice: $2y$10$E/MEewLqda0gk58XKB80n.8ggddLq4XOqS205y9pNz\n",
		 "not a bcrypt hash", 2);
	load_bad("basic_auth_users:\n  alice: $2y$03$E/MEewLqda0gk58XKB80n.8ggddLq4XOqS205y9pNz.l1Eh2PTPBa\n",
		 "not a bcrypt hash", 2);
	load_bad("basic_auth_users:\n  alice: $2x$10$E/MEewLqda0gk58XKB80n.8ggddLq4XOqS205y9pNz.l1Eh2PTPBa\n",
		 "not a bcrypt hash", 2);
	load_bad("basic_auth_users:\n  'a:b': " ALICE_HASH "\n", "has a ':'", 2);
	load_bad("basic_auth_users: [alice]\n", "basic_auth_users must be a mapping", 1);
	load_bad("tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n"
		 "  client_auth_type: RequireClientCerts\n  client_ca_file: ca.crt\n",
		 "client_auth_type 'RequireClientCerts' is not", 4);
	load_bad("tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n"
		 "  min_version: TLS1.2\n", "min_version 'TLS1.2' is not TLS10", 4);
	load_bad("tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n"
		 "  min_version: TLS13\n  max_version: TLS12\n", "min_version is above max_version", 0);
	load_bad("http_server_config:\n  http2: maybe\n", "http2 must be true or false", 2);
	load_bad("http_server_config:\n  headers:\n    X-Frame-Options: \"deny\\r\\nSet-Cookie: a\"\n",
		 "must be one line", 3);
	load_bad("- tls_server_config\n", "expected a mapping", 1);
	load_bad("tls_server_config:\n  cert_file: [server.crt\n", "web.yml:", 0); /* not YAML */
}

static void test_tls_rules(void **state)
{
	(void)state;
	load_bad("tls_server_config:\n  cert_file: server.crt\n", "missing key_file", 0);
	load_bad("tls_server_config:\n  key_file: server.key\n", "missing cert_file", 0);
	load_bad("tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n"
		 "  client_ca_file: ca.crt\n", "client_ca_file without a client_auth_type", 4);
	load_bad("tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n"
		 "  client_auth_type: RequireAndVerifyClientCert\n", "needs client_ca_file", 0);
}

static void test_missing_files(void **state)
{
	char want[160];

	(void)state;
	snprintf(want, sizeof(want), "cannot read cert_file '%s/nope.crt': No such file or directory", dir);
	load_bad("tls_server_config:\n  cert_file: nope.crt\n  key_file: server.key\n", want, 2);
	load_bad("tls_server_config:\n  cert_file: server.crt\n  key_file: /nonexistent/k.pem\n",
		 "cannot read key_file '/nonexistent/k.pem'", 3);
	load_bad("tls_server_config:\n  cert_file: server.crt\n  key_file: empty.pem\n", "empty file", 3);
	load_bad("tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n"
		 "  client_auth_type: VerifyClientCertIfGiven\n  client_ca_file: nope-ca.crt\n",
		 "cannot read client_ca_file", 5);
	{
		struct web_config c;
		char err[256];

		assert_int_equal(web_config_load("/nonexistent/web.yml", &c, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "cannot read --web-config '/nonexistent/web.yml'"));
	}
}

static void test_bcrypt(void **state)
{
	struct web_config c;
	struct web_auth a;

	(void)state;
	load_ok("basic_auth_users:\n  alice: " ALICE_HASH "\n  bob: " BOB_HASH "\n"
		"  u1: " VECTOR1 "\n  u2: " VECTOR2 "\n", &c);
	assert_int_equal(web_auth_init(&a, &c), 0);
	assert_false(web_auth_check(&a, "alice", "correct hors"));
	assert_false(web_auth_check(&a, "alice", "correct horse "));
	assert_false(web_auth_check(&a, "alice", ""));
	assert_int_equal(a.bcrypt_runs, 3);
	assert_true(web_auth_check(&a, "alice", "correct horse"));
	assert_int_equal(a.bcrypt_runs, 4);
	/* the second time from the cache: no bcrypt run */
	assert_true(web_auth_check(&a, "alice", "correct horse"));
	assert_int_equal(a.bcrypt_runs, 4);
	/* a wrong password after a cached right one still runs bcrypt and fails */
	assert_false(web_auth_check(&a, "alice", "correct horsf"));
	assert_int_equal(a.bcrypt_runs, 5);
	/* another user's password, and an unknown user (a bcrypt run all the same) */
	assert_false(web_auth_check(&a, "bob", "correct horse"));
	assert_false(web_auth_check(&a, "carol", "correct horse"));
	assert_int_equal(a.bcrypt_runs, 7);
	assert_true(web_auth_check(&a, "bob", "b:c é"));
	assert_true(web_auth_check(&a, "u1", "U*U"));
	assert_true(web_auth_check(&a, "u2", "U*U*"));
	assert_false(web_auth_check(&a, "u1", "U*U*"));
	web_auth_free(&a);
	web_config_free(&c);
}

/* An unknown user costs the configured cost (the dummy's was 10 whatever
 * the users': cost-4 refusals in 1 ms, unknown users in 57 ms); with costs
 * that differ, the dearest. A password past bcrypt's 72 bytes is refused
 * without a run. */
static void test_bcrypt_costs(void **state)
{
	struct web_config c;
	struct web_auth a;
	char long_pw[80];

	(void)state;
	load_ok("basic_auth_users:\n  bob: " BOB_HASH "\n", &c);
	assert_int_equal(web_auth_init(&a, &c), 0);
	assert_int_equal(a.min_cost, 4);
	assert_int_equal(a.max_cost, 4);
	assert_false(web_auth_check(&a, "bob", "wrong"));
	assert_int_equal(a.last_cost, 4);
	a.last_cost = 0;
	assert_false(web_auth_check(&a, "carol", "wrong"));
	assert_int_equal(a.last_cost, 4);
	memset(long_pw, 'p', sizeof(long_pw) - 1);
	long_pw[sizeof(long_pw) - 1] = '\0';
	assert_int_equal(a.bcrypt_runs, 2);
	assert_false(web_auth_check(&a, "bob", long_pw));
	assert_false(web_auth_check(&a, "carol", long_pw));
	assert_int_equal(a.bcrypt_runs, 2);
	web_auth_free(&a);
	web_config_free(&c);

	load_ok("basic_auth_users:\n  bob: " BOB_HASH "\n  u1: " VECTOR1 "\n", &c);
	assert_int_equal(web_auth_init(&a, &c), 0);
	assert_int_equal(a.min_cost, 4);
	assert_int_equal(a.max_cost, 5);
	assert_false(web_auth_check(&a, "carol", "wrong"));
	assert_int_equal(a.last_cost, 5);
	web_auth_free(&a);
	web_config_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_file),   cmocka_unit_test(test_no_tls),
		cmocka_unit_test(test_unknown_keys), cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_tls_rules),   cmocka_unit_test(test_missing_files),
		cmocka_unit_test(test_bcrypt),      cmocka_unit_test(test_bcrypt_costs),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
