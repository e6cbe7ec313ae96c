/* Unit tests for user/sys/sysfs.c: the root named by IDLESCOPE_SYSFS and the
 * readers, against the fake tree of fake_sysfs.h. */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "sys/sysfs.h"
#include "fake_sysfs.h"

static void test_sysfs_root_and_readers(void **state)
{
	char buf[64];
	uint64_t v = 0;

	(void)state;
	assert_string_equal(sysfs_root(), fake_root);
	/* the trailing newline is cut */
	assert_int_equal(sysfs_read_str(buf, sizeof(buf), CPU "/possible"), 0);
	assert_string_equal(buf, "0-3");
	assert_int_equal(sysfs_read_u64(&v, CPU "/cpu%d/cpuidle/state%d/time", 0, 3), 0);
	assert_int_equal(v, 48000);
	/* "n/a" is not a number */
	assert_int_equal(sysfs_read_u64(&v, CPU "/cpu1/power/pm_qos_resume_latency_us"), -EINVAL);
	assert_int_equal(sysfs_read_u64(&v, CPU "/nope"), -ENOENT);
	assert_int_equal(sysfs_read_str(buf, sizeof(buf), CPU "/nope"), -ENOENT);
	assert_true(sysfs_exists(CPU "/cpu%d/topology", 2));
	assert_false(sysfs_exists(CPU "/cpu%d/topology", 9));
	/* a trailing blank goes too ("0 \n" -> "0") */
	fs_put("7 \n", "x/u64");
	assert_int_equal(sysfs_read_u64(&v, "x/u64"), 0);
	assert_int_equal(v, 7);
	/* write then read back */
	assert_int_equal(sysfs_write_str("1", CPU "/cpu0/cpuidle/state3/disable"), 0);
	assert_int_equal(sysfs_read_u64(&v, CPU "/cpu0/cpuidle/state3/disable"), 0);
	assert_int_equal(v, 1);
	assert_int_equal(sysfs_write_str("1", "no/such/dir/file"), -ENOENT);
	/* an empty IDLESCOPE_SYSFS means the real /sys */
	setenv("IDLESCOPE_SYSFS", "", 1);
	assert_string_equal(sysfs_root(), "/sys");
	setenv("IDLESCOPE_SYSFS", fake_root, 1);
}

/* Kept open (a live session's refresh): the same descriptor read again,
 * so a change in place shows; a file gone is opened afresh, or an error. */
static void test_sysfs_keep_open(void **state)
{
	uint64_t v = 0;
	char buf[16];

	(void)state;
	fs_put("3\n", "k/a");
	sysfs_keep_open(true);
	assert_true(sysfs_keeping());
	assert_int_equal(sysfs_read_u64(&v, "k/a"), 0);
	assert_int_equal(v, 3);
	fs_put("12\n", "k/a"); /* the same file, rewritten */
	assert_int_equal(sysfs_read_u64(&v, "k/a"), 0);
	assert_int_equal(v, 12);
	assert_int_equal(sysfs_read_str(buf, sizeof(buf), "k/a"), 0);
	assert_string_equal(buf, "12");
	assert_int_equal(sysfs_read_u64(&v, "k/none"), -ENOENT);
	sysfs_keep_open(false);
	assert_false(sysfs_keeping());
	fs_put("5\n", "k/a");
	assert_int_equal(sysfs_read_u64(&v, "k/a"), 0);
	assert_int_equal(v, 5);
}

static void test_sysfs_long_root(void **state)
{
	char root[700];
	pid_t pid;
	int status;

	(void)state;
	/* Was a bug: user/sys/sysfs.c build_path(): n = snprintf(path, 512, "%s/", root)
	 * is the untruncated length; with a 700-character IDLESCOPE_SYSFS,
	 * n = 700 > 512, so vsnprintf(path + n, len - n, ...) writes past the
	 * stack buffer with a wrapped size (SIGSEGV here). Expected: an error
	 * return such as -ENAMETOOLONG. Run in a child so a crash is contained. */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char buf[64];

		/* cmocka's handlers would resume the test run in the child */
		signal(SIGSEGV, SIG_DFL);
		signal(SIGBUS, SIG_DFL);
		signal(SIGABRT, SIG_DFL);
		signal(SIGILL, SIG_DFL);

		memset(root, 'a', sizeof(root));
		root[0] = '/';
		root[sizeof(root) - 1] = '\0';
		setenv("IDLESCOPE_SYSFS", root, 1);
		_exit(sysfs_read_str(buf, sizeof(buf), CPU "/possible") < 0 ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!WIFEXITED(status))
		fail_msg("sysfs_read_str with a 700-char root killed by signal %d",
			 WIFSIGNALED(status) ? WTERMSIG(status) : -1);
	assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sysfs_root_and_readers, build_tree, destroy_tree),
		cmocka_unit_test_setup_teardown(test_sysfs_long_root, build_tree, destroy_tree),
		cmocka_unit_test_setup_teardown(test_sysfs_keep_open, build_tree, destroy_tree),
	};

	return cmocka_run_group_tests_name("sysfs", tests, NULL, NULL);
}
