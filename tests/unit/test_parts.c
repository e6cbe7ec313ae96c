/* Unit tests for the --without part names (user/session/parts.c): every
 * name parses to its own bit, lists add up, unknown names and empty items
 * are refused by name, and formatting gives back the list. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "session/parts.h"

static void test_each_name(void **state)
{
	static const struct {
		const char *name;
		unsigned int bit;
	} want[] = {
		{ "wakeups", PART_WAKEUPS }, { "timers", PART_TIMERS }, { "details", PART_DETAILS },
		{ "groups", PART_GROUPS },   { "miss", PART_MISS },     { "freq", PART_FREQ },
		{ "fexit", PART_FEXIT },
	};
	char err[160], buf[96];

	(void)state;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		unsigned int p = 0;

		assert_int_equal(parts_parse(want[i].name, &p, err, sizeof(err)), 0);
		assert_int_equal(p, want[i].bit);
		parts_format(p, buf, sizeof(buf));
		assert_string_equal(buf, want[i].name);
	}
}

static void test_lists(void **state)
{
	char err[160], buf[96];
	unsigned int p = 0;

	(void)state;
	assert_int_equal(parts_parse("details,timers", &p, err, sizeof(err)), 0);
	assert_int_equal(p, PART_TIMERS | PART_DETAILS);
	/* a second --without adds to the first */
	assert_int_equal(parts_parse("groups", &p, err, sizeof(err)), 0);
	assert_int_equal(p, PART_TIMERS | PART_DETAILS | PART_GROUPS);
	parts_format(p, buf, sizeof(buf));
	assert_string_equal(buf, "timers,details,groups");
	parts_format(0, buf, sizeof(buf));
	assert_string_equal(buf, "");
	parts_format(PART_WAKEUPS | PART_TIMERS | PART_DETAILS | PART_GROUPS | PART_MISS |
			     PART_FREQ | PART_FEXIT,
		     buf, sizeof(buf));
	assert_string_equal(buf, "wakeups,timers,details,groups,miss,freq,fexit");
}

static void test_errors(void **state)
{
	char err[160];
	unsigned int p = 0;

	(void)state;
	assert_int_equal(parts_parse("timers,bogus", &p, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "unknown part 'bogus'"));
	assert_int_equal(parts_parse("time", &p, err, sizeof(err)), -1); /* no prefixes */
	assert_non_null(strstr(err, "'time'"));
	assert_int_equal(parts_parse("timers,,miss", &p, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "unknown part ''"));
	assert_int_equal(parts_parse("timers,", &p, err, sizeof(err)), -1);
	assert_int_equal(parts_parse("", &p, err, sizeof(err)), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_each_name),
		cmocka_unit_test(test_lists),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
