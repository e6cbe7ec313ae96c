/* Prometheus text exposition of the summary model: one family after the
 * other, labels bounded by CPUs, states, wakeup causes and groups; the
 * histograms and the wakeups per CPU only when asked for. */
#include "render/prom.h"

#include <inttypes.h>
#include <stddef.h>
#include <string.h>

#include "model/wake_names.h"
#include "session/self_cost.h"

const char *prom_seconds(char *buf, size_t len, uint64_t ns)
{
	uint64_t frac = (uint64_t)(ns % 1000000000ULL);
	int n;

	n = snprintf(buf, len, "%" PRIu64, (uint64_t)(ns / 1000000000ULL));
	if (frac && n > 0 && (size_t)n < len) {
		char *p;

		snprintf(buf + n, len - (size_t)n, ".%09" PRIu64, (uint64_t)frac);
		for (p = buf + strlen(buf) - 1; *p == '0'; p--) /* exact: trim zeros only */
			*p = '\0';
	}
	return buf;
}

const char *prom_label(char *buf, size_t len, const char *v)
{
	size_t o = 0;

	for (; *v && o + 3 < len; v++) {
		if (*v == '\\' || *v == '"') {
			buf[o++] = '\\';
			buf[o++] = *v;
		} else if (*v == '\n') {
			buf[o++] = '\\';
			buf[o++] = 'n';
		} else {
			buf[o++] = *v;
		}
	}
	buf[o] = '\0';
	return buf;
}

static void family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* The labels of one CPU and state: cpu="0",state="POLL" */
static const char *cpu_state(char *buf, size_t len, int cpu, const char *state)
{
	char esc[2 * IS_NAME_LEN + 1];

	snprintf(buf, len, "cpu=\"%d\",state=\"%s\"", cpu, prom_label(esc, sizeof(esc), state));
	return buf;
}

/* One histogram's samples from a BPF quarter-octave histogram: bucket le=L
 * counts the values <= L ns; with integer ns that is every BPF bucket below
 * 2^k, so the bound printed is 2^k - 1 ns, exact. */
static void hist_samples(FILE *f, const char *name, const char *labels, const uint64_t *hist,
			 uint64_t sum_ns)
{
	uint64_t cum = 0, total = 0;
	char sec[32];
	int b = 0;

	for (int i = 0; i < IS_HIST_BUCKETS; i++)
		total += hist[i];
	for (int k = PROM_HIST_MIN_LOG2; k <= PROM_HIST_MAX_LOG2; k += 2) {
		uint64_t bound = 1ULL << k;

		for (; b < IS_HIST_BUCKETS && is_hist_upper((uint32_t)b) <= bound; b++)
			cum += hist[b];
		fprintf(f, "%s_bucket{%s,le=\"%s\"} %" PRIu64 "\n", name, labels,
			prom_seconds(sec, sizeof(sec), bound - 1), cum);
	}
	/* +Inf and _count from the same copy of the buckets, so they agree */
	fprintf(f, "%s_bucket{%s,le=\"+Inf\"} %" PRIu64 "\n", name, labels, total);
	fprintf(f, "%s_sum{%s} %s\n", name, labels, prom_seconds(sec, sizeof(sec), sum_ns));
	fprintf(f, "%s_count{%s} %" PRIu64 "\n", name, labels, total);
}

enum state_field { SF_ENTRIES, SF_TIME, SF_ABOVE, SF_BELOW, SF_TARGET, SF_EXIT, SF_DISABLED,
		   SF_EARLY, SF_EARLY_TIME, SF_EXIT_COST };

/* A state's value of field; false where it has none (no sample). */
static bool state_value(const struct state_summary *st, enum state_field field, uint64_t *v)
{
	switch (field) {
	case SF_ENTRIES: *v = st->entries; break;
	case SF_TIME: *v = st->time_ns; break;
	case SF_ABOVE: *v = st->above; break;
	case SF_BELOW: *v = st->below; break;
	case SF_TARGET: *v = st->target_residency_ns; break;
	case SF_EXIT: *v = st->exit_latency_ns; break;
	case SF_DISABLED: *v = st->disabled; break;
	case SF_EARLY: *v = st->early; break;
	case SF_EARLY_TIME: *v = st->early_ns; break;
	case SF_EXIT_COST: /* unknown without a table */
		*v = st->exit.declared_ns;
		return st->classified;
	}
	return true;
}

static void sample(FILE *f, const char *name, const char *labels, enum state_field field,
		   uint64_t v)
{
	char sec[32];
	bool seconds = field == SF_TIME || field == SF_TARGET || field == SF_EXIT ||
		       field == SF_EARLY_TIME || field == SF_EXIT_COST;

	if (seconds)
		fprintf(f, "%s{%s} %s\n", name, labels, prom_seconds(sec, sizeof(sec), v));
	else
		fprintf(f, "%s{%s} %" PRIu64 "\n", name, labels, v);
}

/* Per CPU and state. */
static void state_family(FILE *f, const struct summary *s, const char *name, const char *type,
			 const char *help, enum state_field field)
{
	char labels[128];
	uint64_t v;

	family(f, name, type, help);
	for (int c = 0; c < s->nr_cpus; c++) {
		const struct cpu_summary *cs = &s->cpus[c];

		for (int i = 0; i < cs->nr_states; i++) {
			cpu_state(labels, sizeof(labels), cs->cpu, cs->states[i].name);
			if (state_value(&cs->states[i], field, &v))
				sample(f, name, labels, field, v);
		}
	}
}

/* Per state over the selected CPUs (the totals' states, a name under two
 * indexes added up under the first, as the histograms are), or per CPU and
 * state with per_cpu (--per-cpu-detail). */
static void state_sum_family(FILE *f, const struct summary *s, const char *name, const char *type,
			     const char *help, enum state_field field, bool per_cpu)
{
	const struct cpu_summary *t = &s->totals;
	char labels[128], esc[2 * IS_NAME_LEN + 1];

	if (per_cpu) {
		state_family(f, s, name, type, help, field);
		return;
	}
	family(f, name, type, help);
	for (int j = 0; j < t->nr_states; j++) {
		uint64_t sum = 0, v;
		bool first = true, known = true;

		for (int i = 0; i < j; i++)
			first &= strcmp(t->states[i].name, t->states[j].name) != 0;
		if (!first)
			continue;
		for (int i = j; i < t->nr_states; i++)
			if (!strcmp(t->states[i].name, t->states[j].name)) {
				known &= state_value(&t->states[i], field, &v);
				sum += v;
			}
		if (!known)
			continue;
		snprintf(labels, sizeof(labels), "state=\"%s\"",
			 prom_label(esc, sizeof(esc), t->states[j].name));
		sample(f, name, labels, field, sum);
	}
}

/* The histograms over all selected CPUs are per state name of s->totals,
 * whose states the model matches by index and name: a name under two
 * indexes (tables that differ between CPUs) is one label value here, so
 * its slots are added up under the first. False for a slot an earlier one
 * took. */
static bool total_hist(const struct summary *s, int j, bool lat, uint64_t *hist, uint64_t *sum_ns)
{
	const struct cpu_summary *t = &s->totals;

	for (int i = 0; i < j; i++)
		if (!strcmp(t->states[i].name, t->states[j].name))
			return false;
	memset(hist, 0, IS_HIST_BUCKETS * sizeof(*hist));
	*sum_ns = 0;
	for (int i = j; i < t->nr_states; i++) {
		const uint64_t *h = lat ? t->wake.lat[i].hist : t->states[i].hist;

		if (strcmp(t->states[i].name, t->states[j].name))
			continue;
		for (int b = 0; b < IS_HIST_BUCKETS; b++)
			hist[b] += h[b];
		*sum_ns += lat ? t->wake.lat[i].sum_ns : t->states[i].time_ns;
	}
	return true;
}

/* A histogram family of the idle periods (lat false) or of the timer
 * lateness (lat true): per CPU and state with --per-cpu-histograms,
 * otherwise per state over the selected CPUs. */
static void state_hist_family(FILE *f, const struct summary *s, const char *name, const char *help,
			      bool lat, bool per_cpu)
{
	char labels[128], esc[2 * IS_NAME_LEN + 1];
	uint64_t hist[IS_HIST_BUCKETS], sum_ns;

	family(f, name, "histogram", help);
	if (!per_cpu) {
		for (int j = 0; j < s->totals.nr_states; j++) {
			if (!total_hist(s, j, lat, hist, &sum_ns))
				continue;
			snprintf(labels, sizeof(labels), "state=\"%s\"",
				 prom_label(esc, sizeof(esc), s->totals.states[j].name));
			hist_samples(f, name, labels, hist, sum_ns);
		}
		return;
	}
	for (int c = 0; c < s->nr_cpus; c++) {
		const struct cpu_summary *cs = &s->cpus[c];

		for (int i = 0; i < cs->nr_states; i++) {
			cpu_state(labels, sizeof(labels), cs->cpu, cs->states[i].name);
			if (lat)
				hist_samples(f, name, labels, cs->wake.lat[i].hist, cs->wake.lat[i].sum_ns);
			else
				hist_samples(f, name, labels, cs->states[i].hist, cs->states[i].time_ns);
		}
	}
}

static void wake_families(FILE *f, const struct summary *s, const struct prom_scrape *p)
{
	static const char *const names[2] = { "idlescope_wakeups_total",
					      "idlescope_wakeups_early_total" };
	bool per_cpu = p->cpu_detail;
	const char *const helps[2] = {
		per_cpu ? "Idle periods by what ended them (cause class), completed periods only."
			: "Idle periods of the selected CPUs by what ended them (cause class), "
			  "completed periods only.",
		"Of idlescope_wakeups_total, the periods shorter than the entered state's target "
		"residency.",
	};

	for (int e = 0; e < 2; e++) {
		family(f, names[e], "counter", helps[e]);
		if (!per_cpu) {
			const struct wake_summary *w = &s->totals.wake;

			for (int k = 0; k < WAKE_NR_KINDS; k++)
				fprintf(f, "%s{cause=\"%s\"} %" PRIu64 "\n", names[e], wake_kind_name(k),
					e ? w->early[k] : w->count[k]);
			continue;
		}
		for (int c = 0; c < s->nr_cpus; c++) {
			const struct wake_summary *w = &s->cpus[c].wake;

			for (int k = 0; k < WAKE_NR_KINDS; k++) {
				uint64_t v = e ? w->early[k] : w->count[k];

				fprintf(f, "%s{cpu=\"%d\",cause=\"%s\"} %" PRIu64 "\n", names[e],
					s->cpus[c].cpu, wake_kind_name(k), v);
			}
		}
	}
	if (p->no_timers)
		return;
	state_hist_family(f, s, "idlescope_timer_lateness_seconds",
			  p->cpu_hist ? "Timer lateness (hrtimer expiry to handler) of the idle periods "
					"a timer ended, by idle state: the measured exit latency plus "
					"interrupt entry."
				      : "Timer lateness (hrtimer expiry to handler) of the idle periods "
					"a timer ended on the selected CPUs, by idle state: the measured "
					"exit latency plus interrupt entry.",
			  true, p->cpu_hist);
}

static void group_families(FILE *f, const struct summary *s, bool hist)
{
	char labels[128], sec[32];

	family(f, "idlescope_group_info", "gauge",
	       "Topology groups (--topology): level, enclosing group and CPUs; always 1.");
	/* a CPU list (digits, ',' and '-') needs no escaping, and is never cut */
	for (int g = 0; g < s->nr_groups; g++)
		fprintf(f, "idlescope_group_info{group=\"%s\",level=\"%s\",parent=\"%s\",cpus=\"%s\"} 1\n",
			s->groups[g].name, s->groups[g].level, s->groups[g].parent, s->groups[g].cpus);
	family(f, "idlescope_group_all_idle_seconds_total", "counter",
	       "Time during which every CPU of the group was idle at once, completed intervals.");
	for (int g = 0; g < s->nr_groups; g++)
		fprintf(f, "idlescope_group_all_idle_seconds_total{group=\"%s\"} %s\n",
			s->groups[g].name, prom_seconds(sec, sizeof(sec), s->groups[g].time_ns));
	family(f, "idlescope_group_all_idle_periods_total", "counter",
	       "Completed intervals during which every CPU of the group was idle.");
	for (int g = 0; g < s->nr_groups; g++)
		fprintf(f, "idlescope_group_all_idle_periods_total{group=\"%s\"} %" PRIu64 "\n",
			s->groups[g].name, s->groups[g].periods);
	if (!hist)
		return;
	family(f, "idlescope_group_all_idle_duration_seconds", "histogram",
	       "Length of the group's all-idle intervals.");
	for (int g = 0; g < s->nr_groups; g++) {
		snprintf(labels, sizeof(labels), "group=\"%s\"", s->groups[g].name);
		hist_samples(f, "idlescope_group_all_idle_duration_seconds", labels,
			     s->groups[g].hist, s->groups[g].time_ns);
	}
}

/* With wakeups on: the causes of the woken-early periods (10 series per
 * state) and the timers that ended periods against what the governor was
 * told (5 per state). */
static void gov_wake_families(FILE *f, const struct summary *s)
{
	char st[96], sec[48];

	family(f, "idlescope_governor_woken_early_total", "counter",
	       "Too deep periods woken before the next timer the governor was told of, by the "
	       "wakeup's cause.");
	for (int i = 0; i < s->totals.nr_states; i++) {
		const struct state_summary *t = &s->totals.states[i];

		if (!t->classified)
			continue;
		prom_label(st, sizeof(st), t->name);
		for (int k = 0; k < WAKE_NR_KINDS; k++)
			fprintf(f, "idlescope_governor_woken_early_total{state=\"%s\",cause=\"%s\"} %" PRIu64
				   "\n", st, wake_kind_name(k), t->gov.above_cause[k]);
	}
	family(f, "idlescope_governor_timer_ended_periods_total", "counter",
	       "Periods an hrtimer ended, by its expiry against the next event the governor was told "
	       "of (as told: within 1 us).");
	for (int i = 0; i < s->totals.nr_states; i++) {
		const struct gov_split *g = &s->totals.states[i].gov;
		const uint64_t v[] = { g->timer_known - g->timer_later - g->timer_earlier -
					       g->timer_tick_first,
				       g->timer_tick_first, g->timer_later, g->timer_earlier };
		static const char *const vs[] = { "as_told", "tick_first", "later", "earlier" };

		if (!s->totals.states[i].classified)
			continue;
		prom_label(st, sizeof(st), s->totals.states[i].name);
		for (int k = 0; k < 4; k++)
			fprintf(f, "idlescope_governor_timer_ended_periods_total{state=\"%s\",vs=\"%s\"} %"
				   PRIu64 "\n", st, vs[k], v[k]);
	}
	family(f, "idlescope_governor_timer_error_seconds_total", "counter",
	       "Sum of |expiry - the next event told| over those periods.");
	for (int i = 0; i < s->totals.nr_states; i++)
		if (s->totals.states[i].classified)
			fprintf(f, "idlescope_governor_timer_error_seconds_total{state=\"%s\"} %s\n",
				prom_label(st, sizeof(st), s->totals.states[i].name),
				prom_seconds(sec, sizeof(sec), s->totals.states[i].gov.timer_err_sum_ns));
}

/* What observing costs, for an alert on the observer itself. */
/* Why the governor missed, over the selected CPUs, per state: only where
 * its inputs were watched (bpf/gov.bpf.h); 7 series per state. */
static void gov_families(FILE *f, const struct summary *s)
{
	static const char *const why[] = { "above_timer_near", "above_woken_before_timer",
					   "below_qos", "below_tick_kept", "below_predicted_short",
					   "below_timer_moved" };
	char st[96];

	family(f, "idlescope_governor_known_periods_total", "counter",
	       "Idle periods whose governor inputs (sleep length, tick decision) were seen.");
	for (int i = 0; i < s->totals.nr_states; i++)
		if (s->totals.states[i].classified)
			fprintf(f, "idlescope_governor_known_periods_total{state=\"%s\"} %" PRIu64 "\n",
				prom_label(st, sizeof(st), s->totals.states[i].name),
				s->totals.states[i].gov.known);
	family(f, "idlescope_governor_misses_total", "counter",
	       "Too deep and too shallow periods of the known ones, by why (docs/metrics.md, Why "
	       "the governor missed).");
	for (int i = 0; i < s->totals.nr_states; i++) {
		const struct state_summary *t = &s->totals.states[i];
		const uint64_t v[] = { t->gov.above_near, t->gov.above_unannounced, t->below_qos,
				       t->gov.below_tick, t->gov.below_history, t->gov.below_timer };

		if (!t->classified)
			continue;
		prom_label(st, sizeof(st), t->name);
		for (size_t k = 0; k < sizeof(why) / sizeof(why[0]); k++)
			fprintf(f, "idlescope_governor_misses_total{state=\"%s\",why=\"%s\"} %" PRIu64 "\n",
				st, why[k], v[k]);
	}
	if (s->wake_enabled)
		gov_wake_families(f, s);
}

/* The PM QoS ledger in three series per family: the periods the limits
 * forced shallower by the kind of request behind them, "unknown" for those
 * not told apart. Who holds them (a pid, a comm) is the JSON's: labels of
 * processes would make the series count follow the machine's processes. */
static void qos_families(FILE *f, const struct summary *s)
{
	static const char *const source[3] = { "cpu_latency", "resume_latency", "unknown" };
	const struct summary_qos *q = &s->qos;
	uint64_t periods[3] = { 0, 0, q->other_periods }, ns[3] = { 0, 0, q->other_idle_ns };
	char sec[32];
	int open = 0;

	for (int i = 0; i < q->nr; i++) {
		const struct qos_row *r = &q->rows[i];
		int k = r->scope == QOS_SCOPE_RESUME;

		open += r->open;
		periods[k] += r->forced_periods;
		ns[k] += r->forced_idle_ns;
	}
	family(f, "idlescope_pm_qos_requests", "gauge",
	       "PM QoS requests limiting idle now: CPU latency requests and CPU resume-latency "
	       "limits (who: the JSON's pm_qos).");
	fprintf(f, "idlescope_pm_qos_requests %d\n", open);
	family(f, "idlescope_pm_qos_forced_periods_total", "counter",
	       "Idle periods too shallow because a PM QoS limit barred the deeper state, by the kind "
	       "of request behind the limit.");
	for (int k = 0; k < 3; k++)
		fprintf(f, "idlescope_pm_qos_forced_periods_total{source=\"%s\"} %" PRIu64 "\n",
			source[k], periods[k]);
	family(f, "idlescope_pm_qos_forced_seconds_total", "counter",
	       "Idle time of those periods, by the kind of request behind the limit.");
	for (int k = 0; k < 3; k++)
		fprintf(f, "idlescope_pm_qos_forced_seconds_total{source=\"%s\"} %s\n", source[k],
			prom_seconds(sec, sizeof(sec), ns[k]));
}

static void self_families(FILE *f, const struct summary *s, const struct self_cost *c,
			  bool textfile)
{
	char a[96], sec[32];

	family(f, "idlescope_dropped_total", "counter",
	       "What the BPF side could not count, by reason: events of a CPU beyond the maps, "
	       "idle entries with a state index beyond the state tables, wakeup details that "
	       "found the detail table full (all should stay 0).");
	fprintf(f, "idlescope_dropped_total{reason=\"cpu_out_of_range\"} %" PRIu64 "\n",
		s->cpu_out_of_range);
	fprintf(f, "idlescope_dropped_total{reason=\"bad_state\"} %" PRIu64 "\n", s->totals.bad_state);
	fprintf(f, "idlescope_dropped_total{reason=\"detail_table_full\"} %" PRIu64 "\n",
		s->totals.wake.detail_drops);

	family(f, "idlescope_bpf_stats_enabled", "gauge",
	       "1 when kernel.bpf_stats_enabled is on: only then do the BPF program run counts "
	       "and run times advance.");
	fprintf(f, "idlescope_bpf_stats_enabled %d\n", c->stats_enabled);
	family(f, "idlescope_bpf_program_runs_total", "counter",
	       "Runs of each of idlescope's BPF programs, as the kernel counts them (while "
	       "kernel.bpf_stats_enabled is on).");
	for (int i = 0; i < c->nr_progs; i++)
		fprintf(f, "idlescope_bpf_program_runs_total{program=\"%s\"} %" PRIu64 "\n",
			prom_label(a, sizeof(a), c->progs[i].name), c->progs[i].runs);
	family(f, "idlescope_bpf_program_run_seconds_total", "counter",
	       "CPU time in each of idlescope's BPF programs, as the kernel counts it (while "
	       "kernel.bpf_stats_enabled is on).");
	for (int i = 0; i < c->nr_progs; i++)
		fprintf(f, "idlescope_bpf_program_run_seconds_total{program=\"%s\"} %s\n",
			prom_label(a, sizeof(a), c->progs[i].name),
			prom_seconds(sec, sizeof(sec), c->progs[i].run_ns));
	family(f, "idlescope_bpf_map_memory_bytes", "gauge",
	       "Memory of idlescope's BPF maps (memlock, as /proc/PID/fdinfo and bpftool give it).");
	fprintf(f, "idlescope_bpf_map_memory_bytes %" PRIu64 "\n", c->map_bytes);
	/* no process_* convention for these: the same names in both; before
	 * the process_* families, the file's last one (textfile.bats, complete) */
	if (c->pss_bytes) {
		family(f, "idlescope_memory_pss_bytes", "gauge",
		       "Proportional set size (Pss) of the idlescope process: its resident "
		       "memory with each shared page divided among the processes mapping it.");
		fprintf(f, "idlescope_memory_pss_bytes %" PRIu64 "\n", c->pss_bytes);
		family(f, "idlescope_memory_private_bytes", "gauge",
		       "Resident memory of the idlescope process that no other process maps "
		       "(Private_Clean + Private_Dirty).");
		fprintf(f, "idlescope_memory_private_bytes %" PRIu64 "\n", c->private_bytes);
	}
	/* node_exporter's own process_* win over a file's: another name there */
	snprintf(a, sizeof(a), "%sprocess_cpu_seconds_total", textfile ? "idlescope_" : "");
	family(f, a, "counter", "User and system CPU time of the idlescope process.");
	fprintf(f, "%s %s\n", a, prom_seconds(sec, sizeof(sec), c->cpu_ns));
	snprintf(a, sizeof(a), "%sprocess_resident_memory_bytes", textfile ? "idlescope_" : "");
	family(f, a, "gauge", "Resident memory of the idlescope process.");
	fprintf(f, "%s %" PRIu64 "\n", a, c->rss_bytes);
}

/* A counter of struct haltpoll_summary's two fields at off[0] and off[1],
 * the label's two values: over the CPUs, or per CPU. */
static void haltpoll_pair(FILE *f, const struct summary *s, bool per_cpu, const char *name,
			  const char *label, const char *const value[2], const size_t off[2])
{
	for (int k = 0; k < 2; k++) {
		for (int c = per_cpu ? 0 : -1; c < (per_cpu ? s->nr_cpus : 0); c++) {
			const struct haltpoll_summary *h = c < 0 ? &s->totals.haltpoll
								 : &s->cpus[c].haltpoll;
			uint64_t v = *(const uint64_t *)((const char *)h + off[k]);

			if (c < 0)
				fprintf(f, "%s{%s=\"%s\"} %" PRIu64 "\n", name, label, value[k], v);
			else
				fprintf(f, "%s{cpu=\"%d\",%s=\"%s\"} %" PRIu64 "\n", name,
					s->cpus[c].cpu, label, value[k], v);
		}
	}
}

/* Guest halt-polling (docs/metrics.md#halt-polling), where it is counted:
 * how the polls ended and the poll limit's moves, summed over the CPUs
 * (4 series) or per CPU with --per-cpu-detail, plus each CPU's limit then.
 * The poll count and time are the POLL state's entries and residency. */
static void haltpoll_families(FILE *f, const struct summary *s, bool per_cpu)
{
	static const char *const outcome[2] = { "woken", "timed_out" };
	static const char *const direction[2] = { "grow", "shrink" };
	static const size_t ends[2] = { offsetof(struct haltpoll_summary, woken),
					offsetof(struct haltpoll_summary, timed_out) };
	static const size_t moves[2] = { offsetof(struct haltpoll_summary, grow),
					 offsetof(struct haltpoll_summary, shrink) };
	char sec[32];

	family(f, "idlescope_haltpoll_polls_total", "counter",
	       "Polls (POLL periods) by how they ended: woken by work, or timed out into a halt "
	       "(told by the CPU's next idle entry).");
	haltpoll_pair(f, s, per_cpu, "idlescope_haltpoll_polls_total", "outcome", outcome, ends);
	family(f, "idlescope_haltpoll_limit_moves_total", "counter",
	       "power:guest_halt_poll_ns events: the per-CPU poll limit grown or shrunk.");
	haltpoll_pair(f, s, per_cpu, "idlescope_haltpoll_limit_moves_total", "direction", direction,
		      moves);
	family(f, "idlescope_haltpoll_ceiling_seconds", "gauge",
	       "guest_halt_poll_ns, the haltpoll governor's ceiling of the poll limit (read at the "
	       "start).");
	fprintf(f, "idlescope_haltpoll_ceiling_seconds %s\n",
		prom_seconds(sec, sizeof(sec), s->sys.guest_halt_poll_ns));
	if (!per_cpu)
		return;
	family(f, "idlescope_haltpoll_limit_seconds", "gauge",
	       "The CPU's poll limit after its last move (CPUs with a move only).");
	for (int c = 0; c < s->nr_cpus; c++)
		if (s->cpus[c].haltpoll.limit_known)
			fprintf(f, "idlescope_haltpoll_limit_seconds{cpu=\"%d\"} %s\n", s->cpus[c].cpu,
				prom_seconds(sec, sizeof(sec), s->cpus[c].haltpoll.limit_ns));
}

int prom_write(FILE *f, const struct prom_scrape *p)
{
	const struct summary *s = p->s;
	char a[128], b[128], sec[32];

	family(f, "idlescope_build_info", "gauge", "idlescope's version; always 1.");
	fprintf(f, "idlescope_build_info{version=\"%s\"} 1\n",
		prom_label(a, sizeof(a), p->version));
	family(f, "idlescope_cpuidle_info", "gauge",
	       "The cpuidle driver and governor at this scrape; always 1.");
	fprintf(f, "idlescope_cpuidle_info{driver=\"%s\",governor=\"%s\"} 1\n",
		prom_label(a, sizeof(a), s->sys.driver), prom_label(b, sizeof(b), s->sys.governor));
	family(f, "idlescope_counted_seconds_total", "counter",
	       "Time since the counters started (the BPF programs attached).");
	fprintf(f, "idlescope_counted_seconds_total %s\n",
		prom_seconds(sec, sizeof(sec), s->duration_ns));
	family(f, "idlescope_scrape_duration_seconds", "gauge",
	       "Time taken to read the BPF maps and build this snapshot.");
	fprintf(f, "idlescope_scrape_duration_seconds %s\n",
		prom_seconds(sec, sizeof(sec), p->scrape_ns));

	state_family(f, s, "idlescope_idle_state_entries_total", "counter",
		     "Completed idle periods per CPU and idle state (cpu_idle enter to exit).",
		     SF_ENTRIES);
	state_family(f, s, "idlescope_idle_state_residency_seconds_total", "counter",
		     "Time in completed idle periods per CPU and idle state.", SF_TIME);
	state_family(f, s, "idlescope_idle_state_above_total", "counter",
		     "Too deep: periods shorter than the state's target residency while a shallower "
		     "state was enabled (the kernel's rule).", SF_ABOVE);
	state_family(f, s, "idlescope_idle_state_below_total", "counter",
		     "Too shallow: periods that would have met the first enabled deeper state's "
		     "target residency (the kernel's rule).", SF_BELOW);
	/* per state over the CPUs unless --per-cpu-detail: the default keeps
	 * its 25 series per CPU (docs/metrics.md) */
	state_sum_family(f, s, "idlescope_idle_state_early_total", "counter",
			 "Periods shorter than the state's target residency (above without its "
			 "condition on a shallower state); 0 without a state table.", SF_EARLY,
			 p->cpu_detail);
	state_sum_family(f, s, "idlescope_idle_state_early_seconds_total", "counter",
			 "Time in periods shorter than the state's target residency.", SF_EARLY_TIME,
			 p->cpu_detail);
	state_sum_family(f, s, "idlescope_idle_state_exit_cost_seconds_total", "counter",
			 "Declared exit cost: periods times the state's declared exit latency; no "
			 "sample without a state table.", SF_EXIT_COST, p->cpu_detail);
	if (p->cpu_detail) {
		state_family(f, s, "idlescope_idle_state_target_residency_seconds", "gauge",
			     "The state's target residency (sysfs residency).", SF_TARGET);
		state_family(f, s, "idlescope_idle_state_exit_latency_seconds", "gauge",
			     "The state's declared exit latency (sysfs latency).", SF_EXIT);
		state_family(f, s, "idlescope_idle_state_disabled", "gauge",
			     "1 when the state is disabled (sysfs disable).", SF_DISABLED);
	}

	family(f, "idlescope_cpu_busy_seconds_total", "counter",
	       "Time not idle: counted time minus completed and in-flight idle time.");
	for (int c = 0; c < s->nr_cpus; c++)
		fprintf(f, "idlescope_cpu_busy_seconds_total{cpu=\"%d\"} %s\n", s->cpus[c].cpu,
			prom_seconds(sec, sizeof(sec), s->cpus[c].busy_ns));

	state_hist_family(f, s, "idlescope_idle_duration_seconds",
			  p->cpu_hist ? "Length of the completed idle periods per CPU and idle state."
				      : "Length of the completed idle periods of the selected CPUs, by "
					"idle state.",
			  false, p->cpu_hist);
	if (p->wake)
		wake_families(f, s, p);
	if (s->totals.haltpoll.known)
		haltpoll_families(f, s, p->cpu_detail);
	if (s->nr_groups)
		group_families(f, s, p->group_hist);
	if (s->qos.kept)
		qos_families(f, s);
	if (s->gov_inputs)
		gov_families(f, s);
	if (p->self)
		self_families(f, s, p->self, p->textfile);
	return ferror(f) ? -1 : 0;
}
