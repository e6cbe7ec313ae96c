/* The PM QoS ledger's section (render_qos.h). */
#include "render/render_qos.h"

#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

#include "util/json_num.h"
#include "util/units.h"

static const char *scope_text(const struct qos_row *r, char *buf, size_t len)
{
	if (r->scope == QOS_SCOPE_RESUME)
		snprintf(buf, len, "cpu%d", r->cpu);
	else
		snprintf(buf, len, "all");
	return buf;
}

static const char *who_text(const struct qos_row *r, char *buf, size_t len)
{
	if (!r->pid)
		snprintf(buf, len, "(set before)");
	else if (r->requests > 1)
		snprintf(buf, len, "%s[%d] x%d", r->comm, r->pid, r->requests);
	else
		snprintf(buf, len, "%s[%d]", r->comm, r->pid);
	return buf;
}

static const char *value_text(const struct qos_row *r, char *buf, size_t len)
{
	int64_t none = r->scope == QOS_SCOPE_RESUME ? QOS_RESUME_NONE_US : QOS_CPU_LATENCY_NONE_US;

	if (r->value_us < 0)
		snprintf(buf, len, "?");
	else if (r->value_us >= none)
		snprintf(buf, len, "none");
	else
		snprintf(buf, len, "%" PRId64 "us", r->value_us);
	return buf;
}

/* a time from the window's start: "+1.234s", "before" when earlier */
static const char *when_text(bool known, int64_t ns, char *buf, size_t len)
{
	if (!known || ns < 0)
		snprintf(buf, len, "before");
	else
		snprintf(buf, len, "+%.3fs", (double)ns / 1e9);
	return buf;
}

void render_qos_table(FILE *f, const struct summary *s)
{
	const struct summary_qos *q = &s->qos;
	bool states = summary_classified(s);

	if (!q->kept)
		return;
	if (!q->nr && !q->other_periods) {
		fprintf(f, "\nPM QoS: no CPU latency request or resume-latency limit during the window\n");
		return;
	}
	fprintf(f, "\nPM QoS: who limited idle (CPU latency requests, CPU resume-latency limits); "
		   "forced = periods too shallow because the limit barred the deeper state\n");
	fprintf(f, "  %-24s %-6s %9s %9s %9s %10s %11s  %s\n", "holder", "scope", "value", "since",
		"until", "forced", "forced-idle", "deepest reachable");
	for (int i = 0; i < q->nr; i++) {
		const struct qos_row *r = &q->rows[i];
		char who[48], scope[16], val[24], since[24], until[24], forced[24] = "-",
			fidle[24] = "-";

		if (r->open)
			snprintf(until, sizeof(until), "held");
		else
			when_text(true, r->until_ns, until, sizeof(until));
		if (states && r->charged) {
			snprintf(forced, sizeof(forced), "%" PRIu64, r->forced_periods);
			snprintf(fidle, sizeof(fidle), "%s", ns_text(r->forced_idle_ns));
		}
		fprintf(f, "  %-24s %-6s %9s %9s %9s %10s %11s  %s\n",
			who_text(r, who, sizeof(who)), scope_text(r, scope, sizeof(scope)),
			value_text(r, val, sizeof(val)),
			when_text(r->since_known, r->since_ns, since, sizeof(since)), until, forced,
			fidle, r->deepest >= 0 ? r->deepest_name : "-");
	}
	if (q->other_periods)
		fprintf(f, "  %-24s %-6s %9s %9s %9s %10" PRIu64 " %11s\n", "(not told apart)", "", "",
			"", "", q->other_periods, ns_text(q->other_idle_ns));
	if (!states)
		fprintf(f, "  no idle states to choose between here: nothing can be forced shallower\n");
	if (q->dropped || q->unslotted || q->lost || q->unmatched)
		fprintf(f, "  %" PRIu64 " requests past the ledger's rows, %" PRIu64
			   " past its cost slots, %" PRIu64 " records lost, %" PRIu64
			   " removes of unseen requests\n",
			q->dropped, q->unslotted, q->lost, q->unmatched);
}

static json_t *row_json(const struct qos_row *r)
{
	int64_t none = r->scope == QOS_SCOPE_RESUME ? QOS_RESUME_NONE_US : QOS_CPU_LATENCY_NONE_US;
	json_t *o = json_object();

	json_object_set_new(o, "scope", json_string(r->scope == QOS_SCOPE_RESUME ? "cpu" : "all"));
	json_object_set_new(o, "cpu", r->scope == QOS_SCOPE_RESUME ? json_integer(r->cpu) : json_null());
	json_object_set_new(o, "pid", r->pid ? json_integer(r->pid) : json_null());
	json_object_set_new(o, "comm", r->pid ? json_string(r->comm) : json_null());
	json_object_set_new(o, "requests", json_integer(r->requests));
	json_object_set_new(o, "value_us",
			    r->value_us >= 0 && r->value_us < none ? json_integer(r->value_us)
								   : json_null());
	json_object_set_new(o, "value_known", json_boolean(r->value_us >= 0));
	json_object_set_new(o, "held_before", json_boolean(r->before));
	json_object_set_new(o, "since_ns", r->since_known ? json_integer(r->since_ns) : json_null());
	json_object_set_new(o, "value_since_ns",
			    r->value_since_known ? json_integer(r->value_since_ns) : json_null());
	json_object_set_new(o, "until_ns", r->open ? json_null() : json_integer(r->until_ns));
	json_object_set_new(o, "changes", json_integer(r->changes));
	json_object_set_new(o, "forced_periods", r->charged ? json_u64(r->forced_periods) : json_null());
	json_object_set_new(o, "forced_idle_ns", r->charged ? json_u64(r->forced_idle_ns) : json_null());
	json_object_set_new(o, "deepest_reachable_state",
			    r->deepest >= 0 ? json_string(r->deepest_name) : json_null());
	return o;
}

json_t *qos_json(const struct summary *s)
{
	const struct summary_qos *q = &s->qos;
	json_t *rows;

	if (!q->kept)
		return json_null();
	rows = json_array();
	for (int i = 0; i < q->nr; i++)
		json_array_append_new(rows, row_json(&q->rows[i]));
	return json_pack("{s:o,s:{s:o,s:o},s:o,s:o,s:o,s:o}", "requests", rows, "other",
			 "forced_periods", json_u64(q->other_periods), "forced_idle_ns",
			 json_u64(q->other_idle_ns), "dropped", json_u64(q->dropped), "unslotted",
			 json_u64(q->unslotted), "unmatched_removes", json_u64(q->unmatched),
			 "lost_records", json_u64(q->lost));
}
