/* advise's report from its model (render_advise.h): the JSON document, and
 * the table read back from it so that both show the same numbers. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "render/render_advise.h"
#include "render/render_budget.h"
#include "render/render_poll_advice.h"
#include "util/json_num.h"
#include "util/units.h"

static const char *break_even_name(enum adv_break_even be)
{
	return be == ADV_BE_AT ? "at" : be == ADV_BE_NEVER ? "never" : "unknown";
}

static json_t *state_json(const struct advise_table_report *tr, int k)
{
	const struct adv_table_in *t = tr->in;
	const struct adv_state_in *s = &t->st[k];
	const struct adv_result *r = &tr->res[k];
	const struct adv_state *st = &tr->st[k];
	json_t *js = json_object();

	json_object_set_new(js, "index", json_integer(s->index));
	json_object_set_new(js, "name", json_string(s->name));
	json_object_set_new(js, "enabled", json_boolean(!s->disabled));
	json_object_set_new(js, "exit_latency_ns", json_u64(s->exit_ns));
	json_object_set_new(js, "measured_exit_latency_ns",
			    s->lat_count ? json_u64(adv_lat_median(s)) : json_null());
	json_object_set_new(js, "timer_lateness_count", json_u64(s->lat_count));
	json_object_set_new(js, "target_residency_ns", json_u64(s->target_ns));
	json_object_set_new(js, "entries", json_u64(s->entries));
	json_object_set_new(js, "above", json_u64(s->above));
	json_object_set_new(js, "below", json_u64(s->below));
	json_object_set_new(js, "below_qos", json_u64(s->below_qos));
	json_object_set_new(js, "above_share",
			    json_real(s->entries ? (double)s->above / (double)s->entries : 0));
	json_object_set_new(js, "below_share",
			    json_real(s->entries ? (double)s->below / (double)s->entries : 0));
	json_object_set_new(js, "model_above", json_real(r->above));
	json_object_set_new(js, "model_below", json_real(r->below));
	json_object_set_new(js, "shallower",
			    r->prev >= 0 ? json_string(t->st[r->prev].name) : json_null());
	if (r->have_proposal) {
		uint32_t b = is_hist_bucket(r->proposed_ns);

		json_object_set_new(js, "proposed_target_residency_ns", json_u64(r->proposed_ns));
		json_object_set_new(js, "resolution_ns",
				    json_u64(is_hist_upper(b) - is_hist_lower(b)));
		json_object_set_new(js, "misses_current", json_real(r->misses_current));
		json_object_set_new(js, "misses_proposed", json_real(r->misses_proposed));
	} else {
		json_object_set_new(js, "proposed_target_residency_ns", json_null());
		json_object_set_new(js, "resolution_ns", json_null());
		json_object_set_new(js, "misses_current", json_null());
		json_object_set_new(js, "misses_proposed", json_null());
	}
	json_object_set_new(js, "power", st->have_power ? json_real(st->power) : json_null());
	json_object_set_new(js, "entry_exit_energy",
			    st->have_tr ? json_real(st->tr_energy) : json_null());
	json_object_set_new(js, "break_even",
			    r->prev >= 0 ? json_string(break_even_name(r->be)) : json_null());
	json_object_set_new(js, "break_even_ns",
			    r->prev >= 0 && r->be == ADV_BE_AT ? json_real(r->break_even_ns)
							       : json_null());
	return js;
}

static json_t *table_json(const struct advise_report *a, const struct advise_table_report *tr)
{
	const struct adv_table_in *t = tr->in;
	const struct adv_energy *e = &tr->e;
	json_t *o = json_object(), *states = json_array(), *en;
	char *cpus;

	for (int k = 0; k < t->nr_states; k++)
		json_array_append_new(states, state_json(tr, k));
	cpus = cpulist_str(&t->cpus);
	json_object_set_new(o, "cpus", cpus ? json_string(cpus) : json_null());
	free(cpus);
	json_object_set_new(o, "latency_budget",
			    a->have_budget ? budget_json(t, &tr->budget) : json_null());
	json_object_set_new(o, "halt_polling",
			    tr->have_hp ? poll_advice_json(&tr->hp, &tr->hp_in,
							   a->poll_goal == HP_GOAL_BUDGET
								   ? a->poll_target * (double)a->in->duration_ns *
									     tr->hp_in.nr_cpus
								   : a->poll_target,
							   a->percentile / 100)
					: json_null());
	json_object_set_new(o, "periods", json_real(tr->periods));
	json_object_set_new(o, "states", states);
	json_object_set_new(o, "misses", json_pack("{s:o,s:o}", "current",
						    json_real(tr->misses_current), "proposed",
						    json_real(tr->misses_proposed)));
	if (tr->cluster >= 0 && e->valid) {
		char cl[16];

		snprintf(cl, sizeof(cl), "cluster%c", 'A' + tr->cluster);
		en = json_object();
		json_object_set_new(en, "cluster", json_string(cl));
		json_object_set_new(en, "unit", json_string("power unit x s"));
		json_object_set_new(en, "measured", json_real(e->measured));
		json_object_set_new(en, "current_thresholds", json_real_or_null(e->current));
		json_object_set_new(en, "proposed_thresholds", json_real_or_null(e->proposed));
		json_object_set_new(en, "break_even_thresholds",
				    e->have_break_even ? json_real_or_null(e->break_even)
						       : json_null());
		json_object_set_new(o, "energy", en);
		json_object_set_new(o, "energy_note", json_null());
	} else {
		json_object_set_new(o, "energy", json_null());
		json_object_set_new(o, "energy_note", json_string(tr->energy_note));
	}
	return o;
}

static json_t *assumptions(const struct advise_report *a)
{
	json_t *l = json_array();

#define SAY(s) json_array_append_new(l, json_string(s))
	SAY("Residencies come from idlescope's quarter-octave histograms (a bucket is at most 25% "
	    "of its value wide); a count at a threshold inside a bucket is interpolated as if the "
	    "bucket's periods were spread evenly over it, so a proposal is only as fine as the "
	    "bucket around it (resolution_ns).");
	SAY("above/below and their shares are the measured counters (the kernel's rule on "
	    "idlescope's residencies); model_above/model_below replay that rule on the "
	    "histograms.");
	SAY("The governor's choices are held fixed. misses(T) of a state s = its periods shorter "
	    "than T (above) + the periods in the next shallower enabled state p, not above, whose "
	    "residency minus p's exit latency reaches T (below). The proposal minimises misses(T) "
	    "over T >= s's exit latency, the other thresholds at their current values; ties go to "
	    "the value closest to the current one, then the smaller.");
	SAY(a->measured_exit
		    ? "Exit latencies: measured, the median timer lateness of the state's periods a "
		      "timer ended (it includes interrupt entry); the declared one where no timer "
		      "ended a period."
		    : "Exit latencies: as declared in sysfs, as the kernel's rule uses them "
		      "(--exit-latency measured uses the median timer lateness).");
	SAY("Periods made too shallow by PM QoS or ended at the poll limit count as below, as in "
	    "the kernel's counter.");
	if (a->have_budget)
		SAY("Latency budget: a state's exit latency is the chosen percentile of its timer "
		    "lateness (interrupt entry included; in a VM also the host's delivery of the "
		    "interrupt), its declared one below 10 samples. A state over the budget is left "
		    "out; its periods go to the deepest kept state shallower than it (the governor's "
		    "other choices held fixed), which is the cost. The percentile afterwards is at "
		    "most the largest latency among the states that will hold periods. PM QoS "
		    "(/dev/cpu_dma_latency) does the same where every left-out state is deeper than "
		    "the kept ones and declares more than they do.");
	if (a->have_poll)
		SAY("Halt-polling: the waits are the woken polls (the POLL periods less the "
		    "timed-out ones, the longest) and the halts (each one wait, its residency: short "
		    "of the poll before it). Under a ceiling L held by the governor a wait shorter "
		    "than L is caught after polling it, a longer one polls L and halts; buckets are "
		    "spread uniformly. A caught wait saves a halt's wake: the mean the recording "
		    "measured per woken poll, else the halt state's timer lateness or declared exit "
		    "latency. The grow/shrink factors are left as they are: the model takes the "
		    "limit at its ceiling, where growth takes it while waits fit under it; for a "
		    "latency target, a recording whose limit shrank as often as it grew is told that "
		    "guest_halt_poll_allow_shrink=N would keep it there.");
	if (a->have_em) {
		SAY("Energy: a period of r in state k costs tr(k) + P(k) r, with P(k) the model's "
		    "core power plus cluster power of the C-state named like k (as if the CPU were "
		    "alone in its cluster) and tr(k) the optional 4th column (power unit x us; 0 when "
		    "absent). Break-even of k against the next shallower enabled state p: "
		    "(tr(k) - tr(p)) / (P(p) - P(k)); 'never' when k draws no less power and costs "
		    "more to enter.");
		SAY("Energy measured: the states the governor chose. current/proposed/break-even "
		    "thresholds: perfect prediction, each period in the deepest enabled state whose "
		    "threshold it reaches. Each residency counts at its bucket's mean; busy time, "
		    "P-states and idlestat's wakeup line are not counted.");
	}
	if (a->kem)
		SAY("The kernel's energy model (debugfs) holds P-state power only, no idle-state "
		    "power: it is listed, not used for idle energies.");
#undef SAY
	return l;
}

static json_t *kernel_em_json(const struct advise_report *a)
{
	json_t *d;

	if (!a->kem)
		return json_null();
	d = json_array();
	for (int i = 0; i < a->kem->nr_domains; i++) {
		const struct kernel_em_domain *k = &a->kem->domains[i];
		json_t *ps = json_array();

		for (int j = 0; j < k->nr_pstates; j++)
			json_array_append_new(ps, json_pack("{s:I,s:I}", "khz",
							    (json_int_t)k->pstates[j].khz, "power",
							    (json_int_t)k->pstates[j].power));
		json_array_append_new(d, json_pack("{s:s,s:s,s:o}", "name", k->name, "cpus", k->cpus,
						   "pstates", ps));
	}
	return json_pack("{s:o}", "domains", d);
}

json_t *advise_report_json(const struct advise_report *a)
{
	const struct adv_input *in = a->in;
	json_t *o = json_object(), *tables = json_array();

	if (!o || !tables) {
		json_decref(o);
		json_decref(tables);
		return NULL;
	}
	json_object_set_new(o, "schema", json_string(ADVISE_SCHEMA));
	json_object_set_new(o, "source", json_string(a->source));
	json_object_set_new(o, "kernel", json_string(in->kernel));
	json_object_set_new(o, "cpuidle", json_pack("{s:s,s:s}", "driver", in->driver, "governor",
						     in->governor));
	json_object_set_new(o, "duration_ns", json_u64(in->duration_ns));
	json_object_set_new(o, "exit_latency", json_string(a->measured_exit ? "measured" : "declared"));
	json_object_set_new(o, "energy_model",
			    a->have_em ? json_pack("{s:s,s:s,s:i}", "format", "idlestat", "path",
						   a->em_path, "clusters", a->em_clusters)
				       : json_null());
	json_object_set_new(o, "kernel_energy_model", kernel_em_json(a));
	for (int j = 0; j < a->nr_tables; j++)
		json_array_append_new(tables, table_json(a, &a->tables[j]));
	json_object_set_new(o, "tables", tables);
	json_object_set_new(o, "skipped_cpus_without_driver", json_integer(in->no_driver_cpus));
	json_object_set_new(o, "assumptions", assumptions(a));
	return o;
}

static const char *ns_or_dash(char *buf, size_t len, const json_t *v)
{
	if (!json_is_number(v))
		return "-";
	return fmt_ns(buf, len, (uint64_t)llround(json_number_value(v)));
}

static const char *num(char *buf, size_t len, const json_t *v)
{
	double d;

	if (!json_is_number(v))
		return "-";
	d = json_number_value(v);
	if (d == floor(d) && fabs(d) < 1e12)
		snprintf(buf, len, "%.0f", d);
	else
		snprintf(buf, len, "%.1f", d);
	return buf;
}

static const char *energy_cell(char *buf, size_t len, const json_t *v)
{
	if (!json_is_number(v))
		return "-";
	snprintf(buf, len, "%.6g", json_number_value(v));
	return buf;
}

/* "  - text" wrapped at 96 columns, continued under the text. */
static void print_wrapped(FILE *f, const char *text)
{
	const char *p = text;
	int col = 4;

	fputs("  - ", f);
	while (*p) {
		size_t w = strcspn(p, " ");

		if (col > 4 && col + 1 + (int)w > 96) {
			fputs("\n    ", f);
			col = 4;
		} else if (col > 4) {
			fputc(' ', f);
			col++;
		}
		fprintf(f, "%.*s", (int)w, p);
		col += (int)w;
		p += w;
		while (*p == ' ')
			p++;
	}
	fputc('\n', f);
}

/* The table: the same numbers as the JSON, read back from it. */
static void print_table(FILE *f, const json_t *r)
{
	const json_t *t, *s, *l;
	size_t i, j;

	fprintf(f, "idlescope advise: %s; cpuidle %s, governor %s; exit latencies %s\n",
		json_string_value(json_object_get(r, "source")),
		json_string_value(json_object_get(json_object_get(r, "cpuidle"), "driver")),
		json_string_value(json_object_get(json_object_get(r, "cpuidle"), "governor")),
		json_string_value(json_object_get(r, "exit_latency")));
	json_array_foreach(json_object_get(r, "tables"), i, t) {
		const json_t *e = json_object_get(t, "energy"), *m = json_object_get(t, "misses");
		char b[12][32];

		fprintf(f, "\nCPUs %s: %s idle periods\n", json_string_value(json_object_get(t, "cpus")),
			num(b[0], 32, json_object_get(t, "periods")));
		fprintf(f, "  %-16s %8s %8s %8s %9s %6s %6s %9s %8s %15s %10s\n", "state", "exit",
			"measured", "target", "periods", "above", "below", "proposed", "+-bucket",
			"misses now->new", "break-even");
		json_array_foreach(json_object_get(t, "states"), j, s) {
			const char *be = json_string_value(json_object_get(s, "break_even"));
			char mis[40] = "-";

			if (json_is_number(json_object_get(s, "misses_current")))
				snprintf(mis, sizeof(mis), "%s -> %s",
					 num(b[5], 32, json_object_get(s, "misses_current")),
					 num(b[6], 32, json_object_get(s, "misses_proposed")));
			fprintf(f, "  %-16.16s %8s %8s %8s %9s %5.1f%% %5.1f%% %9s %8s %15s %10s%s\n",
				json_string_value(json_object_get(s, "name")),
				ns_or_dash(b[0], 32, json_object_get(s, "exit_latency_ns")),
				ns_or_dash(b[1], 32, json_object_get(s, "measured_exit_latency_ns")),
				ns_or_dash(b[2], 32, json_object_get(s, "target_residency_ns")),
				num(b[3], 32, json_object_get(s, "entries")),
				100 * json_number_value(json_object_get(s, "above_share")),
				100 * json_number_value(json_object_get(s, "below_share")),
				ns_or_dash(b[4], 32, json_object_get(s, "proposed_target_residency_ns")),
				ns_or_dash(b[7], 32, json_object_get(s, "resolution_ns")), mis,
				be && !strcmp(be, "never") ? "never"
				: be && !strcmp(be, "at") ? ns_or_dash(b[8], 32, json_object_get(s, "break_even_ns"))
							  : "-",
				json_is_true(json_object_get(s, "enabled")) ? "" : "  (disabled)");
		}
		json_array_foreach(json_object_get(t, "states"), j, s)
			if (json_integer_value(json_object_get(s, "below_qos")))
				fprintf(f, "  %s: %lld of its below periods were forced by PM QoS (a deeper "
					   "state was not allowed): no threshold changes those\n",
					json_string_value(json_object_get(s, "name")),
					(long long)json_integer_value(json_object_get(s, "below_qos")));
		fprintf(f, "  misses (model, all states): %s now, %s with every proposal\n",
			num(b[0], 32, json_object_get(m, "current")),
			num(b[1], 32, json_object_get(m, "proposed")));
		if (json_is_object(e))
			fprintf(f, "  energy (%s, %s): measured %s; perfect prediction at the current "
				   "thresholds %s, proposed %s, break-even %s\n",
				json_string_value(json_object_get(e, "cluster")),
				json_string_value(json_object_get(e, "unit")),
				energy_cell(b[0], 32, json_object_get(e, "measured")),
				energy_cell(b[1], 32, json_object_get(e, "current_thresholds")),
				energy_cell(b[2], 32, json_object_get(e, "proposed_thresholds")),
				energy_cell(b[3], 32, json_object_get(e, "break_even_thresholds")));
		else
			fprintf(f, "  energy: not estimated: %s\n",
				json_string_value(json_object_get(t, "energy_note")));
		if (json_is_object(json_object_get(t, "latency_budget")))
			budget_print(f, json_object_get(t, "latency_budget"));
		if (json_is_object(json_object_get(t, "halt_polling")))
			poll_advice_print(f, json_object_get(t, "halt_polling"));
	}
	if (json_integer_value(json_object_get(r, "skipped_cpus_without_driver")))
		fprintf(f, "\n%lld CPUs without a cpuidle driver skipped\n",
			(long long)json_integer_value(json_object_get(r, "skipped_cpus_without_driver")));
	fprintf(f, "\nAssumptions:\n");
	json_array_foreach(json_object_get(r, "assumptions"), i, l)
		print_wrapped(f, json_string_value(l));
}

int render_advise(FILE *f, enum out_format fmt, const struct advise_report *a)
{
	json_t *r = advise_report_json(a);

	if (!r)
		return -1;
	if (fmt == FMT_JSON) {
		if (json_dumpf(r, f, JSON_INDENT(2)) == 0)
			fputc('\n', f);
	} else {
		print_table(f, r);
	}
	json_decref(r);
	return 0;
}

int render_advise_ab(FILE *f, const struct advise_report *a)
{
	json_t *r = advise_report_json(a);
	int lines;

	if (!r)
		return -1;
	lines = a->have_budget ? budget_write_ab(f, json_object_get(r, "tables"), a->budget_ns,
						 a->percentile)
			       : poll_advice_write_ab(f, json_object_get(r, "tables"));
	json_decref(r);
	return lines;
}
