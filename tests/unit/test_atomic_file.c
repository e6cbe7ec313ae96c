/* Unit tests for user/util/atomic_file.c in a scratch directory: the file
 * replaced whole (a reader holding the old one keeps the old content), no
 * temporary file left after a commit or an abort, mode 0644 for a new file
 * whatever the umask and the mode an existing file had otherwise, and the
 * errors a start-up check reports. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/atomic_file.h"

static char dir[64], path[128];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test_atomic_file.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/idlescope.prom", dir);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) ? -1 : 0;
}

static int entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

static void put(const char *text)
{
	struct atomic_file a;

	assert_int_equal(atomic_file_begin(&a, path), 0);
	fputs(text, a.f);
	assert_int_equal(atomic_file_commit(&a), 0);
}

static void test_replaced_whole(void **state)
{
	char buf[32] = "";
	FILE *old;
	struct stat st;

	(void)state;
	umask(077);
	put("first\n");
	umask(022);
	assert_int_equal(entries(), 1);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	old = fopen(path, "r");
	assert_non_null(old);
	put("second\n");
	/* the reader that opened it before keeps the first content whole */
	assert_non_null(fgets(buf, sizeof(buf), old));
	assert_string_equal(buf, "first\n");
	fclose(old);
	old = fopen(path, "r");
	assert_non_null(fgets(buf, sizeof(buf), old));
	assert_string_equal(buf, "second\n");
	fclose(old);
	assert_int_equal(entries(), 1);
	/* a mode set on it stays */
	assert_int_equal(chmod(path, 0640), 0);
	put("third\n");
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0640);
}

static void test_abort_keeps_the_file(void **state)
{
	struct atomic_file a;
	char buf[32] = "";
	FILE *f;

	(void)state;
	put("kept\n");
	assert_int_equal(atomic_file_begin(&a, path), 0);
	assert_int_equal(entries(), 2); /* the temporary file beside it */
	/* hidden, and not *.prom: node_exporter's collector never reads it */
	assert_int_equal(strrchr(a.tmp, '/')[1], '.');
	assert_string_equal(a.tmp + strlen(a.tmp) - 4, ".tmp");
	fputs("half", a.f);
	atomic_file_abort(&a);
	assert_int_equal(entries(), 1);
	f = fopen(path, "r");
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_string_equal(buf, "kept\n");
}

static void test_stale_temporary_replaced(void **state)
{
	struct atomic_file a;
	FILE *f;

	(void)state;
	/* a file left under this pid's temporary name (a killed process) */
	assert_int_equal(atomic_file_begin(&a, path), 0);
	f = a.f;
	a.f = NULL;
	fclose(f);
	assert_int_equal(atomic_file_check(path), 0);
	assert_int_equal(access(a.tmp, F_OK), -1);
	put("new\n");
	assert_int_equal(entries(), 1);
}

static void test_errors(void **state)
{
	char missing[160];

	(void)state;
	snprintf(missing, sizeof(missing), "%s/no/such/x.prom", dir);
	assert_int_equal(atomic_file_check(missing), -ENOENT);
	assert_int_equal(atomic_file_check(dir), -EISDIR);
	assert_int_equal(atomic_file_check("/tmp/"), -EISDIR);
	assert_int_equal(atomic_file_check(path), 0);
	assert_int_equal(entries(), 0); /* the check leaves nothing */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_replaced_whole, setup, teardown),
		cmocka_unit_test_setup_teardown(test_abort_keeps_the_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stale_temporary_replaced, setup, teardown),
		cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
