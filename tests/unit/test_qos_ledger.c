/* Unit tests for user/session/qos_ledger.c: the PM QoS ledger fed by hand
 * with the records bpf/qos.bpf.h sends (the kernel's own order: an open of
 * /dev/cpu_dma_latency adds a request at the default, a write updates it,
 * the close removes it with the default), and which row each CPU's limit is
 * charged to. The live check is tests/bats/qos.bats. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "session/qos_ledger.h"

#define NONE UINT64_MAX
#define US 1000ull
/* PM_QOS_DEFAULT_VALUE: what an open of /dev/cpu_dma_latency adds and what
 * every remove carries */
#define DEF (-1)

static struct qos_event req(uint8_t action, int32_t value, uint32_t tgid, const char *comm,
			    uint64_t ts)
{
	struct qos_event e = { .what = QOS_NOTIFY_REQUEST, .action = action,
			       .scope = QOS_SCOPE_CPU_LATENCY, .value = value, .tgid = tgid,
			       .pid = tgid, .ts_ns = ts };

	snprintf(e.comm, sizeof(e.comm), "%s", comm);
	return e;
}

static struct qos_event dev(uint8_t action, int32_t value, const char *name, uint32_t tgid,
			    uint64_t ts)
{
	struct qos_event e = req(action, value, tgid, "sh", ts);

	e.scope = QOS_SCOPE_RESUME;
	snprintf(e.dev, sizeof(e.dev), "%s", name);
	return e;
}

static void apply(struct qos_ledger *l, struct qos_event e)
{
	qos_ledger_apply(l, &e);
}

static const struct qos_entry *row_of(const struct qos_ledger *l, int pid, int cpu)
{
	for (int i = 0; i < l->nr; i++)
		if (l->e[i].pid == pid && l->e[i].cpu == cpu && (l->e[i].limited || l->e[i].open))
			return &l->e[i];
	return NULL;
}

/* open, write 10, write 20, close: one row, its first limit's time, its
 * last value, one change, closed at the close */
static void test_holder_lifetime(void **state)
{
	struct qos_ledger l;
	const struct qos_entry *e;

	(void)state;
	qos_ledger_init(&l);
	apply(&l, req(QOS_ADD, DEF, 100, "cyclictest", 1000));
	apply(&l, req(QOS_UPDATE, 10, 100, "cyclictest", 2000));
	apply(&l, req(QOS_UPDATE, 20, 100, "cyclictest", 3000));
	e = row_of(&l, 100, -1);
	assert_non_null(e);
	assert_true(e->open && e->limited);
	assert_int_equal(e->value_us, 20);
	assert_int_equal(e->first_ns, 2000);
	assert_int_equal(e->since_ns, 3000);
	assert_int_equal(e->changes, 1);
	assert_string_equal(e->comm, "cyclictest");
	assert_int_equal(qos_ledger_slot(&l, 0, 20 * US, NONE), 1);
	apply(&l, req(QOS_REMOVE, DEF, 100, "cyclictest", 4000));
	assert_false(e->open);
	assert_int_equal(e->until_ns, 4000);
	assert_int_equal(qos_ledger_slot(&l, 0, NONE, NONE), 0);
	assert_int_equal(l.unmatched, 0);
}

/* readers (open and close at the default) leave no row behind, however
 * many: their rows are reused */
static void test_readers_leave_nothing(void **state)
{
	struct qos_ledger l;

	(void)state;
	qos_ledger_init(&l);
	for (int i = 0; i < 3 * QOS_LEDGER_ROWS; i++) {
		apply(&l, req(QOS_ADD, i % 2 ? DEF : 2000000000, 200 + (uint32_t)i, "cat",
			      10 * (uint64_t)i));
		apply(&l, req(QOS_REMOVE, DEF, 200 + (uint32_t)i, "cat", 10 * (uint64_t)i + 5));
	}
	assert_int_equal(l.nr, 1);
	assert_false(l.e[0].limited);
	assert_int_equal(l.dropped, 0);
	assert_int_equal(l.next_slot, 1);
}

/* two descriptors in one process: a second open does not reset the value,
 * the row closes with the last */
static void test_two_descriptors(void **state)
{
	struct qos_ledger l;
	const struct qos_entry *e;

	(void)state;
	qos_ledger_init(&l);
	apply(&l, req(QOS_ADD, DEF, 7, "db", 1));
	apply(&l, req(QOS_UPDATE, 5, 7, "db", 2));
	apply(&l, req(QOS_ADD, DEF, 7, "db", 3));
	e = row_of(&l, 7, -1);
	assert_int_equal(e->requests, 2);
	assert_int_equal(e->value_us, 5);
	apply(&l, req(QOS_REMOVE, DEF, 7, "db", 4));
	assert_true(e->open);
	apply(&l, req(QOS_REMOVE, DEF, 7, "db", 5));
	assert_false(e->open);
	assert_int_equal(e->until_ns, 5);
	/* a remove of a request never seen is counted, not applied */
	apply(&l, req(QOS_REMOVE, DEF, 8, "x", 6));
	assert_int_equal(l.unmatched, 1);
}

/* the limit in force: the lowest value, the earliest of equals; a CPU's
 * resume limit when lower than the global one */
static void test_binding_row(void **state)
{
	struct qos_ledger l;

	(void)state;
	qos_ledger_init(&l);
	apply(&l, req(QOS_ADD, 50, 1, "a", 10));
	apply(&l, req(QOS_ADD, 20, 2, "b", 20));
	apply(&l, req(QOS_ADD, 20, 3, "c", 30));
	/* b is behind 20 us (earlier than c) */
	assert_int_equal(qos_ledger_slot(&l, 0, 20 * US, NONE), 1);
	assert_int_equal(row_of(&l, 2, -1)->slot, 1);
	apply(&l, req(QOS_REMOVE, DEF, 2, "b", 40));
	assert_int_equal(qos_ledger_slot(&l, 0, 20 * US, NONE), 2); /* now c */
	assert_int_equal(row_of(&l, 3, -1)->slot, 2);
	/* cpu1's resume limit 5 us, lower: its own row */
	apply(&l, dev(QOS_UPDATE, 5, "cpu1", 99, 50));
	assert_int_equal(qos_ledger_slot(&l, 1, 20 * US, 5 * US), 3);
	assert_int_equal(qos_ledger_slot(&l, 0, 20 * US, NONE), 2);
	/* a limit no row explains: slot 0 */
	assert_int_equal(qos_ledger_slot(&l, 0, 7 * US, NONE), 0);
	/* a slot is handed out once per row */
	assert_int_equal(qos_ledger_slot(&l, 1, 20 * US, 5 * US), 3);
	assert_int_equal(l.next_slot, 4);
}

/* a resume-latency write replaces the CPU's row; "no constraint" closes it;
 * other devices and the raw "n/a" (0: no latency at all) */
static void test_resume_rows(void **state)
{
	struct qos_ledger l;
	const struct qos_entry *e;

	(void)state;
	qos_ledger_init(&l);
	qos_ledger_seed_resume(&l, 2, 40 * US);
	qos_ledger_seed_resume(&l, 3, NONE); /* nothing */
	assert_int_equal(l.nr, 1);
	assert_true(l.e[0].before);
	assert_int_equal(l.e[0].value_us, 40);
	apply(&l, dev(QOS_UPDATE, 30, "cpu2", 11, 100));
	assert_false(l.e[0].open);
	assert_int_equal(l.e[0].until_ns, 100);
	e = row_of(&l, 11, 2);
	assert_non_null(e);
	assert_int_equal(e->value_us, 30);
	assert_int_equal(e->first_ns, 100);
	apply(&l, dev(QOS_UPDATE, (int32_t)QOS_RESUME_NONE_US, "cpu2", 12, 200));
	assert_false(e->open);
	assert_int_equal(e->until_ns, 200);
	assert_null(row_of(&l, 12, 2));
	apply(&l, dev(QOS_UPDATE, 0, "cpu0", 13, 300));
	e = row_of(&l, 13, 0);
	assert_non_null(e);
	assert_int_equal(e->value_us, 0);
	assert_int_equal(qos_ledger_slot(&l, 0, NONE, 0), 1);
	apply(&l, dev(QOS_UPDATE, 5, "cpufreq", 14, 400)); /* not a CPU */
	apply(&l, dev(QOS_UPDATE, 5, "cpu1x", 14, 400));
	assert_null(row_of(&l, 14, 1));
}

/* holders found in /proc at the start: one holder's value is the
 * aggregate; with two, neither is known and the limit is charged to slot 0 */
static void test_seeded_holders(void **state)
{
	struct qos_ledger l;

	(void)state;
	qos_ledger_init(&l);
	qos_ledger_seed_holder(&l, 500, "tuned", 1);
	qos_ledger_seeded(&l, 3 * US);
	assert_int_equal(l.e[0].value_us, 3);
	assert_int_equal(qos_ledger_slot(&l, 0, 3 * US, NONE), 1);

	qos_ledger_init(&l);
	qos_ledger_seed_holder(&l, 500, "tuned", 1);
	qos_ledger_seed_holder(&l, 501, "ab", 1);
	qos_ledger_seeded(&l, 3 * US);
	assert_int_equal(l.e[0].value_us, -1);
	assert_int_equal(l.e[1].value_us, -1);
	assert_int_equal(qos_ledger_slot(&l, 0, 3 * US, NONE), 0);
	/* a write by one makes its value known */
	apply(&l, req(QOS_UPDATE, 2, 501, "ab", 10));
	assert_int_equal(qos_ledger_slot(&l, 0, 2 * US, NONE), 1);
	assert_int_equal(l.e[1].slot, 1);

	/* nobody limits: the holders are at the default */
	qos_ledger_init(&l);
	qos_ledger_seed_holder(&l, 500, "reader", 1);
	qos_ledger_seeded(&l, NONE);
	assert_int_equal(l.e[0].value_us, QOS_CPU_LATENCY_NONE_US);
	assert_false(l.e[0].limited);
	/* its first limiting write is when it began to limit */
	apply(&l, req(QOS_UPDATE, 9, 500, "reader", 70));
	assert_true(l.e[0].limited);
	assert_int_equal(l.e[0].first_ns, 70);
	assert_int_equal(l.e[0].changes, 0);
}

/* past QOS_SLOTS - 1 rows behind limits, the rest are charged to slot 0,
 * each counted once; past the rows, requests are counted as dropped */
static void test_bounds(void **state)
{
	struct qos_ledger l;

	(void)state;
	qos_ledger_init(&l);
	for (int i = 0; i < QOS_LEDGER_ROWS + 3; i++)
		apply(&l, req(QOS_ADD, 100 - i, 1000 + (uint32_t)i, "p", 10 + (uint64_t)i));
	assert_int_equal(l.nr, QOS_LEDGER_ROWS);
	assert_int_equal(l.dropped, 3);
	for (int i = 0; i < QOS_SLOTS - 1; i++)
		assert_int_equal(qos_ledger_slot(&l, 0, (uint64_t)(100 - i) * US, NONE), i + 1);
	assert_int_equal(qos_ledger_slot(&l, 0, (uint64_t)(100 - (QOS_SLOTS - 1)) * US, NONE), 0);
	assert_int_equal(qos_ledger_slot(&l, 0, (uint64_t)(100 - (QOS_SLOTS - 1)) * US, NONE), 0);
	assert_int_equal(l.unslotted, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_holder_lifetime),
		cmocka_unit_test(test_readers_leave_nothing),
		cmocka_unit_test(test_two_descriptors),
		cmocka_unit_test(test_binding_row),
		cmocka_unit_test(test_resume_rows),
		cmocka_unit_test(test_seeded_holders),
		cmocka_unit_test(test_bounds),
	};

	return cmocka_run_group_tests_name("qos_ledger", tests, NULL, NULL);
}
