/* Unit tests for user/sys/settings.c's haltpoll kind: `ab --set
 * guest_halt_poll_ns=A,B` and its companions parsed, saved, applied and
 * restored on a fake sysfs tree (fake_sysfs.h, IDLESCOPE_SYSFS) holding the
 * haltpoll governor's module parameters; the file contents are the oracle. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fake_sysfs.h"
#include "sys/settings.h"

#define PARAMS "module/haltpoll/parameters"

static void put_params(void)
{
	fs_put("200000\n", PARAMS "/guest_halt_poll_ns");
	fs_put("2\n", PARAMS "/guest_halt_poll_grow");
	fs_put("50000\n", PARAMS "/guest_halt_poll_grow_start");
	fs_put("2\n", PARAMS "/guest_halt_poll_shrink");
	fs_put("Y\n", PARAMS "/guest_halt_poll_allow_shrink");
	fs_put("haltpoll\n", CPU "/cpuidle/current_driver");
}

static void file_is(const char *rel, const char *want)
{
	char path[512], buf[64] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", fake_root, rel);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	assert_string_equal(buf, want);
}

static void test_apply_restore(void **state)
{
	struct setting s;
	char err[256] = "";

	(void)state;
	put_params();
	assert_int_equal(setting_parse("guest_halt_poll_ns=50000,400000", &s, err, sizeof(err)), 0);
	assert_int_equal(s.kind, SET_HALTPOLL);
	assert_int_equal(s.nr_values, 2);
	assert_int_equal(s.nr_saved, 0); /* nothing written or held while parsing */
	assert_int_equal(setting_save(&s, err, sizeof(err)), 0);
	assert_int_equal(s.nr_saved, 1);
	assert_string_equal(s.saved[0], "200000");
	assert_int_equal(setting_apply(&s, 1, err, sizeof(err)), 0);
	file_is(PARAMS "/guest_halt_poll_ns", "400000");
	assert_int_equal(setting_apply(&s, 0, err, sizeof(err)), 0);
	file_is(PARAMS "/guest_halt_poll_ns", "50000");
	assert_int_equal(setting_restore(&s), 0);
	file_is(PARAMS "/guest_halt_poll_ns", "200000");
	setting_free(&s);
	/* the companions: allow_shrink's Y/N back as it was read */
	assert_int_equal(setting_parse("guest_halt_poll_allow_shrink=N,1", &s, err, sizeof(err)), 0);
	assert_int_equal(setting_save(&s, err, sizeof(err)), 0);
	assert_int_equal(setting_apply(&s, 0, err, sizeof(err)), 0);
	file_is(PARAMS "/guest_halt_poll_allow_shrink", "N");
	assert_int_equal(setting_restore(&s), 0);
	file_is(PARAMS "/guest_halt_poll_allow_shrink", "Y");
	setting_free(&s);
	assert_int_equal(setting_parse("guest_halt_poll_grow=4", &s, err, sizeof(err)), 0);
	setting_free(&s);
}

static void refused(const char *spec, const char *want)
{
	struct setting s;
	char err[256] = "";

	assert_int_equal(setting_parse(spec, &s, err, sizeof(err)), -1);
	if (!strstr(err, want))
		fail_msg("'%s': '%s' lacks '%s'", spec, err, want);
	setting_free(&s);
}

static void test_refused(void **state)
{
	(void)state;
	put_params();
	/* values the kernel's kstrtouint/kstrtobool would not take as we mean them */
	refused("guest_halt_poll_ns=-1", "whole number from 0 to 4294967295, not '-1'");
	refused("guest_halt_poll_ns=4294967296", "not '4294967296'");
	refused("guest_halt_poll_ns=1e5", "not '1e5'");
	refused("guest_halt_poll_ns=0x10", "not '0x10'");
	refused("guest_halt_poll_ns=010", "not '010'");
	refused("guest_halt_poll_ns=100, 200", "not ' 200'");
	refused("guest_halt_poll_allow_shrink=yes", "takes Y, N, 1 or 0, not 'yes'");
	refused("guest_halt_poll_ns=", "--set needs KEY=V1,V2");
	/* a driver that is not haltpoll: the governor would choose nothing */
	fs_put("acpi_idle\n", CPU "/cpuidle/current_driver");
	refused("guest_halt_poll_ns=1000", "the cpuidle driver is 'acpi_idle', not haltpoll");
	/* no governor: its parameter files are absent */
	fs_put("haltpoll\n", CPU "/cpuidle/current_driver");
	fs_rm(PARAMS "/guest_halt_poll_grow_start");
	refused("guest_halt_poll_grow_start=1000", "no haltpoll governor on this machine");
	/* the bad value is named before the machine is looked at */
	refused("guest_halt_poll_grow_start=x", "not 'x'");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_apply_restore),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests_name("settings", tests, build_tree, destroy_tree);
}
