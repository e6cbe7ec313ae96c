/* Unit tests for user/web/listen.c: --listen values accepted and refused, and
 * the address bound for port 0 (a real loopback socket). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "web/listen.h"

static void expect_ok(const char *arg, const char *formatted, uint16_t port)
{
	struct listen_addr a;
	char err[256] = "", buf[80];

	assert_int_equal(listen_parse(arg, &a, err, sizeof(err)), 0);
	listen_format(&a.sa, buf, sizeof(buf));
	assert_string_equal(buf, formatted);
	assert_int_equal(a.port, port);
}

static void expect_bad(const char *arg, const char *needle)
{
	struct listen_addr a;
	char err[256] = "";

	assert_int_equal(listen_parse(arg, &a, err, sizeof(err)), -1);
	if (!strstr(err, needle))
		fail_msg("'%s': '%s' does not say '%s'", arg, err, needle);
}

static void test_accepted(void **state)
{
	(void)state;
	expect_ok(LISTEN_DEFAULT, "127.0.0.1:9464", 9464);
	expect_ok("0.0.0.0:80", "0.0.0.0:80", 80);
	expect_ok("localhost:0", "127.0.0.1:0", 0);
	expect_ok("[::1]:9464", "[::1]:9464", 9464);
	expect_ok("[::]:65535", "[::]:65535", 65535);
}

static void test_refused(void **state)
{
	(void)state;
	expect_bad("9464", "expected HOST:PORT");
	expect_bad("127.0.0.1", "expected HOST:PORT");
	expect_bad(":9464", "no host");
	expect_bad("127.0.0.1:", "port '' is not a number 0-65535");
	expect_bad("127.0.0.1:65536", "port '65536'");
	expect_bad("127.0.0.1:-1", "port '-1'");
	expect_bad("127.0.0.1:+80", "port '+80'");
	expect_bad("127.0.0.1:80x", "port '80x'");
	expect_bad("127.0.0.1:99999999999999999999", "is not a number");
	expect_bad("example.org:80", "'example.org' is not an IP address");
	expect_bad("256.0.0.1:80", "not an IP address");
	expect_bad("::1:9464", "expected HOST:PORT");
	expect_bad("[::1]9464", "expected [IPV6]:PORT");
	expect_bad("[::1:9464", "expected [IPV6]:PORT");
	expect_bad("[127.0.0.1]:80", "not an IP address");
}

/* Port 0: the kernel picks one, and bound names it; the same port again
 * is busy (EADDRINUSE). */
static void test_open_port0_then_busy(void **state)
{
	struct listen_addr a;
	char err[256], bound[80], again[80];
	int fd, fd2;

	(void)state;
	assert_int_equal(listen_parse("127.0.0.1:0", &a, err, sizeof(err)), 0);
	fd = listen_open(&a, bound, sizeof(bound), err, sizeof(err));
	assert_true(fd >= 0);
	assert_int_equal(strncmp(bound, "127.0.0.1:", 10), 0);
	assert_true(atoi(bound + 10) > 0);
	assert_int_equal(listen_parse(bound, &a, err, sizeof(err)), 0);
	fd2 = listen_open(&a, again, sizeof(again), err, sizeof(err));
	assert_int_equal(fd2, -1);
	assert_non_null(strstr(err, "Address already in use"));
	assert_non_null(strstr(err, bound));
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_accepted),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_open_port0_then_busy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
