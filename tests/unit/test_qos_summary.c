/* Unit tests for user/model/qos_summary.c, user/render/render_qos.c and
 * user/report/report_qos.c: a ledger made by hand becomes the window's rows
 * (those that limited idle inside it), each with the periods its slot was
 * charged and the deepest state its value leaves reachable on a
 * hand-written state table; the JSON, and the report's cells read from
 * that JSON, carry them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "model/qos_summary.h"
#include "render/render_qos.h"
#include "report/report_qos.h"

#define US 1000ull

static struct qos_event req(uint8_t action, int32_t value, uint32_t tgid, uint64_t ts)
{
	struct qos_event e = { .what = QOS_NOTIFY_REQUEST, .action = action,
			       .scope = QOS_SCOPE_CPU_LATENCY, .value = value, .tgid = tgid,
			       .pid = tgid, .ts_ns = ts };

	snprintf(e.comm, sizeof(e.comm), "p%u", tgid);
	return e;
}

/* POLL 0 us, C1 2 us, C6 (disabled) 50 us, C7 100 us */
static void table(struct cpuidle_cpu_info *info)
{
	static const char *names[] = { "POLL", "C1", "C6", "C7" };
	static const uint64_t lat[] = { 0, 2, 50, 100 };

	memset(info, 0, sizeof(*info));
	info->nr_states = 4;
	for (int i = 0; i < 4; i++) {
		snprintf(info->states[i].name, sizeof(info->states[i].name), "%s", names[i]);
		info->states[i].exit_latency_ns = lat[i] * US;
	}
	info->states[2].disabled = true;
}

static void test_rows(void **state)
{
	struct qos_ledger l;
	struct cpuidle_cpu_info info[2];
	struct idle_raw raw = { .nr_cpus = 2 };
	struct summary_qos q;
	struct qos_event e;
	struct cpulist sel = { { 0 } };
	const uint64_t start = 1000000, stop = 5000000;

	(void)state;
	table(&info[0]);
	table(&info[1]);
	cpulist_set(&sel, 0);
	cpulist_set(&sel, 1);
	qos_ledger_init(&l);
	/* 1: held 60 us from before the window, released inside it */
	e = req(QOS_ADD, 60, 1, 500000);
	qos_ledger_apply(&l, &e);
	/* 2: 1 us inside the window, still held */
	e = req(QOS_ADD, 1, 2, 2000000);
	qos_ledger_apply(&l, &e);
	/* 3: limited and released before the window: not a row */
	e = req(QOS_ADD, 5, 3, 100);
	qos_ledger_apply(&l, &e);
	e = req(QOS_REMOVE, -1, 3, 200);
	qos_ledger_apply(&l, &e);
	/* 4: after the window: not a row */
	e = req(QOS_ADD, 5, 4, stop + 1);
	qos_ledger_apply(&l, &e);
	/* slots as the tick hands them out: 1 behind 60 us, then 2 behind 1 us */
	assert_int_equal(qos_ledger_slot(&l, 0, 60 * US, UINT64_MAX), 1);
	assert_int_equal(qos_ledger_slot(&l, 0, 1 * US, UINT64_MAX), 2);
	e = req(QOS_REMOVE, -1, 1, 3000000);
	qos_ledger_apply(&l, &e);
	raw.nr_qos_slots = 3;
	raw.qos_cost[0] = (struct qos_cost){ 4, 400 };
	raw.qos_cost[1] = (struct qos_cost){ 10, 1000 };
	raw.qos_cost[2] = (struct qos_cost){ 20, 2000 };

	assert_int_equal(qos_summary_build(&q, &l, &raw, info, &sel, start, stop, 0), 0);
	assert_true(q.kept);
	assert_int_equal(q.nr, 2);
	assert_int_equal(q.rows[0].pid, 1);
	assert_int_equal(q.rows[0].value_us, 60);
	assert_int_equal(q.rows[0].since_ns, 500000 - (int64_t)start);
	assert_false(q.rows[0].open);
	assert_int_equal(q.rows[0].until_ns, 2000000);
	assert_int_equal(q.rows[0].forced_periods, 10);
	assert_int_equal(q.rows[0].forced_idle_ns, 1000);
	assert_int_equal(q.rows[0].deepest, 1); /* C6 disabled, C7 100 us > 60 */
	assert_string_equal(q.rows[0].deepest_name, "C1");
	assert_int_equal(q.rows[1].pid, 2);
	assert_true(q.rows[1].open);
	assert_int_equal(q.rows[1].forced_periods, 20);
	assert_int_equal(q.rows[1].deepest, 0);
	assert_string_equal(q.rows[1].deepest_name, "POLL");
	assert_int_equal(q.other_periods, 4);

	/* the JSON: the same numbers */
	struct summary s = { .qos = q };
	json_t *j = qos_json(&s), *r0 = json_array_get(json_object_get(j, "requests"), 0);

	assert_int_equal(json_array_size(json_object_get(j, "requests")), 2);
	assert_int_equal(json_integer_value(json_object_get(r0, "forced_periods")), 10);
	assert_int_equal(json_integer_value(json_object_get(r0, "value_us")), 60);
	assert_int_equal(json_integer_value(json_object_get(r0, "until_ns")), 2000000);
	assert_string_equal(json_string_value(json_object_get(r0, "deepest_reachable_state")), "C1");
	assert_string_equal(json_string_value(json_object_get(r0, "comm")), "p1");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "other"),
							     "forced_periods")),
			 4);
	/* the report's cells: each number at its JSON path */
	json_t *doc = json_pack("{s:O}", "pm_qos", j);
	char *html = NULL;
	size_t hlen = 0;
	FILE *hf = open_memstream(&html, &hlen);

	report_qos_section(hf, 0, doc);
	fclose(hf);
	assert_non_null(strstr(html, "data-p=\"pm_qos.requests.0.forced_periods\" data-v=\"10\""));
	assert_non_null(strstr(html, "data-p=\"pm_qos.requests.1.forced_idle_ns\" data-v=\"2000\""));
	assert_non_null(strstr(html, "data-p=\"pm_qos.other.forced_periods\" data-v=\"4\""));
	assert_non_null(strstr(html, "<td>C1</td>"));
	assert_non_null(strstr(html, "<td>p2</td>"));
	free(html);
	json_decref(doc);
	json_decref(j);
	qos_summary_free(&q);
}

/* without a ledger (replay): null in JSON, nothing in the table */
static void test_no_ledger(void **state)
{
	struct summary s;
	json_t *j;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	(void)state;
	memset(&s, 0, sizeof(s));
	assert_int_equal(qos_summary_build(&s.qos, NULL, NULL, NULL, NULL, 0, 1, 0), 0);
	j = qos_json(&s);
	assert_true(json_is_null(j));
	json_decref(j);
	render_qos_table(f, &s);
	fclose(f);
	assert_int_equal(len, 0);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_no_ledger),
	};

	return cmocka_run_group_tests_name("qos_summary", tests, NULL, NULL);
}
