/* Unit tests for user/sys/sysfs_watch.c on the fake tree (fake_sysfs.h):
 * a write to a watched file is an event, reading one twice is not, a file
 * that does not exist is -ENOENT, a removed one is an event (its watch to
 * add again). The kernel's own sysfs raises the same IN_MODIFY on a write
 * (vfs_write); live.bats checks that a live session sees one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "fake_sysfs.h"
#include "sys/sysfs.h"
#include "sys/sysfs_watch.h"

static void test_write_is_an_event(void **state)
{
	struct sysfs_watch w;
	char buf[16];

	(void)state;
	assert_int_equal(sysfs_watch_open(&w), 0);
	assert_int_equal(sysfs_watch_add(&w, CPU "/cpu0/cpuidle/state%d/disable", 2), 0);
	assert_int_equal(sysfs_watch_add(&w, CPU "/cpu1/cpuidle/state3/disable"), 0);
	assert_int_equal(w.watched, 2);
	assert_false(sysfs_watch_drain(&w));
	/* a read is not a write */
	assert_int_equal(sysfs_read_str(buf, sizeof(buf), CPU "/cpu0/cpuidle/state2/disable"), 0);
	assert_false(sysfs_watch_drain(&w));
	assert_int_equal(sysfs_write_str("1", CPU "/cpu1/cpuidle/state3/disable"), 0);
	assert_true(sysfs_watch_drain(&w));
	assert_false(sysfs_watch_drain(&w)); /* drained */
	/* a file not watched changes nothing */
	assert_int_equal(sysfs_write_str("1", CPU "/cpu2/cpuidle/state3/disable"), 0);
	assert_false(sysfs_watch_drain(&w));
	sysfs_watch_close(&w);
	assert_false(sysfs_watch_drain(&w)); /* closed: never readable */
}

static void test_missing_and_removed(void **state)
{
	struct sysfs_watch w;

	(void)state;
	assert_int_equal(sysfs_watch_open(&w), 0);
	assert_int_equal(sysfs_watch_add(&w, CPU "/cpu9/cpuidle/state0/disable"), -ENOENT);
	assert_int_equal(w.watched, 0);
	assert_int_equal(sysfs_watch_add(&w, CPU "/cpu3/cpuidle/state1/disable"), 0);
	fs_rm(CPU "/cpu3/cpuidle/state1/disable");
	assert_true(sysfs_watch_drain(&w)); /* IN_IGNORED */
	sysfs_watch_close(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_write_is_an_event, build_tree, destroy_tree),
		cmocka_unit_test_setup_teardown(test_missing_and_removed, build_tree, destroy_tree),
	};

	return cmocka_run_group_tests_name("sysfs_watch", tests, NULL, NULL);
}
