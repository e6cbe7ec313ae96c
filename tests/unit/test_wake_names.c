/* Unit tests for user/model/wake_names.c: the names of wakeup kinds and
 * softirq vectors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "model/wake_names.h"

static void test_kind_and_softirq_names(void **state)
{
	(void)state;
	assert_string_equal(wake_kind_name(WAKE_UNKNOWN), "unknown");
	assert_string_equal(wake_kind_name(WAKE_IPI_CALL_SINGLE), "ipi-call-single");
	assert_string_equal(wake_kind_name(WAKE_NO_IPI), "poll-resched");
	assert_string_equal(wake_kind_name(WAKE_POLL_TIMEOUT), "poll-timeout");
	/* every kind has its name */
	for (int k = 0; k < WAKE_NR_KINDS; k++)
		assert_non_null(wake_kind_name(k));
	assert_string_equal(wake_kind_name(WAKE_NR_KINDS), "?");
	assert_string_equal(softirq_name(1), "TIMER");   /* TIMER_SOFTIRQ = 1 */
	assert_string_equal(softirq_name(9), "RCU");     /* RCU_SOFTIRQ = 9 */
	assert_string_equal(softirq_name(10), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kind_and_softirq_names),
	};

	return cmocka_run_group_tests_name("wake_names", tests, NULL, NULL);
}
