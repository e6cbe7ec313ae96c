/* Unit tests for user/web/web_libs.c: serve's libraries opened whole, or one
 * line naming what is missing and nothing left open; the table's functions
 * are the libraries' own. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "web/web_libs.h"

static void test_open(void **state)
{
	char err[512] = "";

	(void)state;
	assert_int_equal(web_libs_open(err, sizeof(err)), 0);
	assert_non_null(web_lib.MHD_start_daemon);
	assert_non_null(web_lib.MHD_free);
	/* a call through the table: the library answers */
	assert_true(web_lib.MHD_is_feature_supported(MHD_FEATURE_MESSAGES) == MHD_YES);
#ifdef IDLESCOPE_GNUTLS
	assert_string_equal(web_lib.gnutls_strerror(GNUTLS_E_SUCCESS), "Success.");
	assert_non_null(web_lib.gnutls_free_var);
#endif
	assert_int_equal(web_libs_open(err, sizeof(err)), 0); /* once */
	web_libs_close();
}

#ifdef IDLESCOPE_WEB_DLOPEN
static void expect_fail(const char *mhd, const char *gnutls, const char *needle)
{
	char err[512] = "";

	assert_int_equal(web_libs_open_named(mhd, gnutls, err, sizeof(err)), -1);
	if (!strstr(err, needle))
		fail_msg("'%s' lacks '%s'", err, needle);
	assert_null(strchr(err, '\n'));
	assert_null(web_lib.MHD_start_daemon); /* emptied */
	assert_null(web_lib.MHD_free);
}

static void test_missing(void **state)
{
	(void)state;
	expect_fail("libidlescope-none.so.12", WEB_LIBS_GNUTLS_SONAME,
		    "serve needs libidlescope-none.so.12: libidlescope-none.so.12: cannot open");
	/* a library that is there but is not libmicrohttpd */
	expect_fail("libz.so.1", WEB_LIBS_GNUTLS_SONAME,
		    "serve needs libz.so.1 with MHD_start_daemon, which ");
#ifdef IDLESCOPE_GNUTLS
	expect_fail(WEB_LIBS_MHD_SONAME, "libz.so.1", "with gnutls_strerror, which ");
	expect_fail(WEB_LIBS_MHD_SONAME, "libidlescope-none.so.30", "libidlescope-none.so.30");
#endif
	/* and the real ones still open after */
	test_open(NULL);
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open),
#ifdef IDLESCOPE_WEB_DLOPEN
		cmocka_unit_test(test_missing),
#endif
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
