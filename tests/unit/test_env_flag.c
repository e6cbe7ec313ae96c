/* Unit tests for user/util/env_flag.c: set and not "0" means on; unset,
 * empty and "0" mean off (IDLESCOPE_POLL_STATE_FILES=0 polls nothing). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "util/env_flag.h"

static void test_values(void **state)
{
	(void)state;
	unsetenv("IDLESCOPE_TEST_FLAG");
	assert_false(env_flag("IDLESCOPE_TEST_FLAG"));
	setenv("IDLESCOPE_TEST_FLAG", "", 1);
	assert_false(env_flag("IDLESCOPE_TEST_FLAG"));
	setenv("IDLESCOPE_TEST_FLAG", "0", 1);
	assert_false(env_flag("IDLESCOPE_TEST_FLAG"));
	setenv("IDLESCOPE_TEST_FLAG", "1", 1);
	assert_true(env_flag("IDLESCOPE_TEST_FLAG"));
	setenv("IDLESCOPE_TEST_FLAG", "yes", 1);
	assert_true(env_flag("IDLESCOPE_TEST_FLAG"));
	unsetenv("IDLESCOPE_TEST_FLAG");
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_values) };

	return cmocka_run_group_tests_name("env_flag", tests, NULL, NULL);
}
