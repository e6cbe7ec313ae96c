/* Unit tests for user/util/fdlimit.c: the soft descriptor limit goes up to the
 * hard one and back, checked with getrlimit. The process's limits are put
 * back as they were after each test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>

#include <cmocka.h>

#include "util/fdlimit.h"

static struct rlimit saved;

static int save_limit(void **state)
{
	(void)state;
	return getrlimit(RLIMIT_NOFILE, &saved);
}

static int restore_limit(void **state)
{
	(void)state;
	return setrlimit(RLIMIT_NOFILE, &saved);
}

static void test_raise_and_restore(void **state)
{
	struct rlimit low = saved, now;

	(void)state;
	if (saved.rlim_max <= 64)
		skip();
	low.rlim_cur = 64;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	fdlimit_raise();
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &now), 0);
	assert_true(now.rlim_cur == saved.rlim_max);
	assert_true(now.rlim_max == saved.rlim_max);
	/* once: a second call does not take the raised limit as the original */
	fdlimit_raise();
	fdlimit_restore();
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &now), 0);
	assert_true(now.rlim_cur == 64);
	assert_true(now.rlim_max == saved.rlim_max);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_raise_and_restore, save_limit, restore_limit),
	};

	return cmocka_run_group_tests_name("fdlimit", tests, NULL, NULL);
}
