/* The wakeup part of the report: causes per CPU, timer lateness per idle
 * state against the declared exit latency, top IRQs/timers/wakees; as a
 * table and as JSON. */
#include <inttypes.h>
#include <jansson.h>
#include <string.h>

#include "render/render.h"
#include "render/render_wake.h"
#include "util/units.h"
#include "model/wake_names.h"

/* The name of the tree's group id (what BPF records), or "group N". */
static const char *group_name(const struct summary *s, uint32_t id)
{
	static char buf[32];

	for (int g = 0; g < s->nr_groups; g++)
		if ((uint32_t)s->groups[g].id == id)
			return s->groups[g].name;
	snprintf(buf, sizeof(buf), "group %u", id);
	return buf;
}

#define TOP_ROWS 10

const char *lat_verdict(const struct state_summary *st, const struct lat_summary *l)
{
	if (!l->count || !st->classified)
		return "";
	if (!st->exit_latency_ns)
		return "n/a (declared 0)";
	if (l->p50_ns > 2 * st->exit_latency_ns)
		return "slower than declared (>2x)";
	if (2 * l->p50_ns < st->exit_latency_ns)
		return "faster than declared (<1/2)";
	return "within 2x";
}

static void causes_table(FILE *f, const struct summary *s)
{
	fprintf(f, "\nWakeups: what ended each counted idle period (early = shorter than the "
		   "state's target residency)\n  %-16s", "cause");
	for (int c = 0; c < s->nr_cpus; c++)
		fprintf(f, " %8s%-3d", "cpu", s->cpus[c].cpu);
	fprintf(f, " %11s %8s\n", "all", "early");
	for (int k = 0; k < WAKE_NR_KINDS; k++) {
		if (!s->totals.wake.count[k] && k != WAKE_UNKNOWN)
			continue;
		fprintf(f, "  %-16s", wake_kind_name(k));
		for (int c = 0; c < s->nr_cpus; c++)
			fprintf(f, " %11" PRIu64, s->cpus[c].wake.count[k]);
		fprintf(f, " %11" PRIu64 " %8" PRIu64 "\n", s->totals.wake.count[k],
			s->totals.wake.early[k]);
	}
	fprintf(f, "  %-16s", "total");
	for (int c = 0; c < s->nr_cpus; c++)
		fprintf(f, " %11" PRIu64, s->cpus[c].wake.total);
	fprintf(f, " %11" PRIu64 "  (idle periods: %" PRIu64 ")\n", s->totals.wake.total,
		s->totals.entries);
}

static void lateness_line(FILE *f, const char *who, const struct state_summary *st,
			  const struct lat_summary *l)
{
	if (!l->count)
		return;
	fprintf(f, "  %-4s %-16.16s %7" PRIu64 " %8s %8s %8s %8s %8s  %8s  %s\n", who, st->name,
		l->count, ns_text(l->min_ns), ns_text(l->p50_ns), ns_text(l->p90_ns), ns_text(l->p99_ns),
		ns_text(l->max_ns), st->classified ? ns_text(st->exit_latency_ns) : "-", lat_verdict(st, l));
}

static void lateness_table(FILE *f, const struct summary *s)
{
	bool any = false;

	for (int i = 0; i < s->totals.nr_states; i++)
		any |= s->totals.wake.lat[i].count > 0;
	if (!any)
		return;
	fprintf(f, "\nTimer lateness (hrtimer expiry -> handler) of periods a timer ended: the "
		   "measured exit latency\n  %-4s %-16s %7s %8s %8s %8s %8s %8s  %8s\n", "cpu", "state",
		"count", "min", "p50", "p90", "p99", "max", "declared");
	for (int c = 0; c < s->nr_cpus; c++) {
		char who[16];

		snprintf(who, sizeof(who), "%d", s->cpus[c].cpu);
		for (int i = 0; i < s->cpus[c].nr_states; i++)
			lateness_line(f, who, &s->cpus[c].states[i], &s->cpus[c].wake.lat[i]);
	}
	if (s->nr_cpus > 1)
		for (int i = 0; i < s->totals.nr_states; i++)
			lateness_line(f, "all", &s->totals.states[i], &s->totals.wake.lat[i]);
}

/* Top rows of one detail kind, summed over CPUs by (detail, aux). */
static void top_table(FILE *f, const struct summary *s, int kind, const char *title,
		      const char *col)
{
	struct wake_row agg[TOP_ROWS * 4];
	int n = 0, shown = 0;

	for (int i = 0; i < s->nr_wake_rows && n < (int)(sizeof(agg) / sizeof(agg[0])); i++) {
		const struct wake_row *r = &s->wake_rows[i];
		int j;

		if (r->kind != kind)
			continue;
		for (j = 0; j < n; j++)
			if (agg[j].detail == r->detail && agg[j].aux == r->aux)
				break;
		if (j == n) {
			agg[n] = *r;
			agg[n].cpu = -1;
			agg[n].count = agg[n].early = 0;
			n++;
		}
		agg[j].count += r->count;
		agg[j].early += r->early;
	}
	if (!n)
		return;
	fprintf(f, "\n%s\n  %8s %8s  %-12s %s\n", title, "count", "early", col, "name");
	for (int pass = 0; shown < n && shown < TOP_ROWS; pass++) {
		int best = -1;

		for (int j = 0; j < n; j++)
			if (agg[j].count && (best < 0 || wake_row_cmp(&agg[j], &agg[best]) < 0))
				best = j;
		if (best < 0)
			break;
		if (kind == WDETAIL_WAKEE)
			fprintf(f, "  %8" PRIu64 " %8" PRIu64 "  pid %-8" PRIu64 " %s (woken by CPU %u)\n",
				agg[best].count, agg[best].early, agg[best].detail, agg[best].name,
				agg[best].aux);
		else if (kind == WDETAIL_GROUP_WAKEE)
			fprintf(f, "  %8" PRIu64 " %8s  pid %-8" PRIu64 " %s (%s)\n", agg[best].count,
				"", agg[best].detail, agg[best].name, group_name(s, agg[best].aux));
		else if (kind == WDETAIL_TIMER_FN)
			fprintf(f, "  %8" PRIu64 " %8" PRIu64 "  %-12s %s\n", agg[best].count,
				agg[best].early, "", agg[best].name);
		else
			fprintf(f, "  %8" PRIu64 " %8" PRIu64 "  %-12" PRIu64 " %s\n", agg[best].count,
				agg[best].early, agg[best].detail, agg[best].name);
		agg[best].count = 0;
		shown++;
	}
}

void render_wake_table(FILE *f, const struct summary *s)
{
	if (!s->wake_enabled)
		return;
	causes_table(f, s);
	lateness_table(f, s);
	top_table(f, s, WDETAIL_TIMER_FN, "Timers that ended idle periods", "");
	top_table(f, s, WDETAIL_IRQ, "IRQs that ended idle periods", "irq");
	top_table(f, s, WDETAIL_SOFTIRQ, "Softirqs that ended idle periods", "vector");
	top_table(f, s, WDETAIL_WAKEE, "Top wakees (tasks woken onto idle CPUs)", "");
	top_table(f, s, WDETAIL_GROUP_WAKEE, "Tasks whose wakeup ended a group's all-idle time", "");
}

static json_t *lat_json(const struct state_summary *st, const struct lat_summary *l)
{
	json_t *hist = json_array();

	for (int b = 0; b < IS_HIST_BUCKETS; b++)
		if (l->hist[b])
			json_array_append_new(hist, json_pack("{s:I,s:I,s:I}", "lo_ns",
							      (json_int_t)is_hist_lower((__u32)b), "hi_ns",
							      (json_int_t)is_hist_upper((__u32)b), "count",
							      (json_int_t)l->hist[b]));
	return json_pack("{s:i,s:s,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:o,s:s,s:o}", "state", st->index,
			 "name", st->name, "count", (json_int_t)l->count, "min_ns",
			 (json_int_t)l->min_ns, "max_ns", (json_int_t)l->max_ns, "p50_ns",
			 (json_int_t)l->p50_ns, "p90_ns", (json_int_t)l->p90_ns, "p99_ns",
			 (json_int_t)l->p99_ns, "sum_ns", (json_int_t)l->sum_ns,
			 "declared_exit_latency_ns",
			 st->classified ? json_integer((json_int_t)st->exit_latency_ns) : json_null(),
			 "verdict", lat_verdict(st, l), "hist", hist);
}

json_t *wake_cpu_json(const struct cpu_summary *cs)
{
	json_t *o = json_object(), *causes = json_object(), *lat = json_array();

	for (int k = 0; k < WAKE_NR_KINDS; k++)
		json_object_set_new(causes, wake_kind_name(k),
				    json_pack("{s:I,s:I}", "count", (json_int_t)cs->wake.count[k], "early",
					      (json_int_t)cs->wake.early[k]));
	json_object_set_new(o, "causes", causes);
	json_object_set_new(o, "total", json_integer((json_int_t)cs->wake.total));
	json_object_set_new(o, "in_flight", json_integer((json_int_t)cs->wake.in_flight));
	json_object_set_new(o, "detail_drops", json_integer((json_int_t)cs->wake.detail_drops));
	for (int i = 0; i < cs->nr_states; i++)
		if (cs->wake.lat[i].count)
			json_array_append_new(lat, lat_json(&cs->states[i], &cs->wake.lat[i]));
	json_object_set_new(o, "timer_lateness", lat);
	return o;
}

json_t *wake_rows_json(const struct summary *s)
{
	static const char *const kinds[] = { [WDETAIL_IRQ] = "irqs", [WDETAIL_SOFTIRQ] = "softirqs",
					     [WDETAIL_TIMER_FN] = "timers",
					     [WDETAIL_WAKEE] = "wakees",
					     [WDETAIL_GROUP_WAKEE] = "group_wakees" };
	json_t *o = json_object();

	for (int k = WDETAIL_IRQ; k <= WDETAIL_GROUP_WAKEE; k++)
		json_object_set_new(o, kinds[k], json_array());
	for (int i = 0; i < s->nr_wake_rows; i++) {
		const struct wake_row *r = &s->wake_rows[i];
		json_t *row;

		if (r->kind < WDETAIL_IRQ || r->kind > WDETAIL_GROUP_WAKEE)
			continue;
		row = json_pack("{s:i,s:I,s:I,s:s}", "cpu", r->cpu, "count", (json_int_t)r->count,
				"early", (json_int_t)r->early, "name", r->name);
		if (r->kind == WDETAIL_WAKEE) {
			json_object_set_new(row, "pid", json_integer((json_int_t)r->detail));
			json_object_set_new(row, "waker_cpu", json_integer(r->aux));
		} else if (r->kind == WDETAIL_GROUP_WAKEE) {
			json_object_set_new(row, "pid", json_integer((json_int_t)r->detail));
			json_object_set_new(row, "group", json_integer(r->aux));
			json_object_set_new(row, "group_name", json_string(group_name(s, r->aux)));
		} else if (r->kind == WDETAIL_TIMER_FN) {
			char addr[32];

			snprintf(addr, sizeof(addr), "0x%" PRIx64, r->detail);
			json_object_set_new(row, "function", json_string(addr));
		} else {
			json_object_set_new(row, r->kind == WDETAIL_IRQ ? "irq" : "vector",
					    json_integer((json_int_t)r->detail));
		}
		json_array_append_new(json_object_get(o, kinds[r->kind]), row);
	}
	return o;
}
