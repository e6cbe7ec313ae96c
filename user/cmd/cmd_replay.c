/* `idlescope replay FILE`: a recorded trace (trace-cmd report, ftrace text,
 * idlestat's trace file) through the same BPF handlers as `record`, in
 * batches through BPF_PROG_TEST_RUN, rendered like `record`. The machine the
 * trace came from is described by the file's header or --profile, never by
 * the machine running the replay. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cmd/cli.h"
#include "cmd/commands.h"
#include "model/flatten.h"
#include "sys/groups.h"
#include "session/idle_loader.h"
#include "session/replay_drive.h"
#include "model/model.h"
#include "render/render.h"
#include "sys/topology.h"
#include "replay/trace_parse.h"
#include "replay/trace_profile.h"
#include "util/units.h"

/* Replayed timestamps start here: 0 means "not idle" in the BPF slots. */
#define REPLAY_BASE_NS 1000000ULL
#define MAX_TRACE_BYTES (16ULL << 30)

struct replay {
	struct common_opts o;
	const char *file;
	const char *profile_path;
	const char *topology; /* none, custom:..., NULL = header/profile */
	bool wake;
	int assert_ret;
	char *buf;
	size_t len;
	struct trace_data td;
	struct trace_profile prof;
	bool have_prof;
	int nr_cpus;
	struct cpuidle_cpu_info *info;
	struct topology topo;
	struct groups groups;
	struct cpulist sel;
	struct idle_session sess;
	const char *tables_from;
	bool exit_latency_known;
	bool no_driver;   /* an idlestat header without any named state */
	int index_tables; /* CPUs whose states are known by index only */
	bool have_miss, have_freq;
	uint64_t first_ns, last_ns;
	uint64_t replayed, rejected, feed_ns;
	uint64_t timer_starts;    /* hrtimer_start events read for their expiry */
	uint64_t timer_unmatched; /* hrtimer_expire_entry without a start: not replayed */
	uint64_t parse_ns; /* reading and parsing the file, sorting */
	FILE *out;
};

static const char doc[] =
	"Replay a recorded trace (trace-cmd report text, the ftrace trace file, or an idlestat "
	"trace file) through the same BPF handlers as record, and print the same summary.\v"
	"The idle-state tables and groups come from the file's idlestat header or from "
	"--profile FILE (docs/replay.md), never from this machine; without either, states are "
	"reported by index.";

enum { OPT_PROFILE = 0x300, OPT_NO_WAKEUPS, OPT_TOPOLOGY };

static const struct argp_option options[] = {
	{ "profile", OPT_PROFILE, "FILE", 0,
	  "The traced machine: CPU count, idle-state tables, groups (JSON, docs/replay.md)", 0 },
	{ "no-wakeups", OPT_NO_WAKEUPS, NULL, 0, "Skip wakeup attribution", 0 },
	{ "topology", OPT_TOPOLOGY, "SPEC", 0,
	  "Groups: from the header or profile (default), custom:0-3,4-7, or none", 0 },
	{ 0 }
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct replay *r = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &r->o;
		break;
	case OPT_PROFILE:
		r->profile_path = arg;
		break;
	case OPT_NO_WAKEUPS:
		r->wake = false;
		break;
	case OPT_TOPOLOGY:
		r->topology = arg;
		break;
	case ARGP_KEY_ARG:
		if (r->file)
			argp_error(state, "one trace file at a time");
		r->file = arg;
		break;
	case ARGP_KEY_END:
		if (!r->file)
			argp_error(state, "which trace? (idlescope replay FILE)");
		if (r->o.duration_ns || r->o.interval_ns)
			argp_error(state, "-d and -i do not apply to a replay (the trace sets the window)");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child children[] = { { &common_argp, 0, NULL, 0 }, { 0 } };
static const struct argp replay_argp = { options, parse_opt, "FILE", doc, children, NULL, NULL };

static int read_file(struct replay *r)
{
	FILE *f = strcmp(r->file, "-") ? fopen(r->file, "re") : stdin;
	size_t cap = 1 << 20;

	if (!f) {
		diag_error("cannot read '%s': %s", r->file, strerror(errno));
		return -1;
	}
	r->buf = malloc(cap);
	while (r->buf) {
		size_t n = fread(r->buf + r->len, 1, cap - r->len, f);

		r->len += n;
		if (n == 0)
			break;
		if (r->len == cap) {
			char *b = cap < MAX_TRACE_BYTES ? realloc(r->buf, cap * 2) : NULL;

			if (!b) {
				free(r->buf);
				r->buf = NULL;
				break;
			}
			r->buf = b;
			cap *= 2;
		}
	}
	if (!r->buf || ferror(f)) {
		diag_error("cannot read '%s': %s", r->file, r->buf ? strerror(errno) : "out of memory");
		if (f != stdin)
			fclose(f);
		return -1;
	}
	if (f != stdin)
		fclose(f);
	return 0;
}

/* The deepest state index each CPU enters in the trace, -1 for none. */
static int *deepest_states(const struct trace_data *td, int nr_cpus)
{
	int *hi = malloc(sizeof(*hi) * (size_t)nr_cpus);

	if (!hi)
		return NULL;
	for (int c = 0; c < nr_cpus; c++)
		hi[c] = -1;
	for (size_t i = 0; i < td->nr_ev; i++) {
		const struct trace_event *e = &td->ev[i];
		uint64_t state = e->re.idle.state;
		int st = state >= IS_MAX_STATES ? IS_MAX_STATES : (int)state;

		if (e->re.kind == RE_IDLE && state != IS_PWR_EVENT_EXIT && (int)e->re.cpu < nr_cpus &&
		    st > hi[e->re.cpu])
			hi[e->re.cpu] = st;
	}
	return hi;
}

/* States named by index only: no target residency, no classification. */
static void index_table(struct cpuidle_cpu_info *in, int n)
{
	in->nr_states = n;
	in->unclassified = true;
	for (int i = 0; i < n; i++)
		snprintf(in->states[i].name, sizeof(in->states[i].name), "state%d", i);
}

/* Periods in a state the table lacks would vanish: refused by name. */
static int check_states(const struct replay *r, int cpu, int deepest, const char *from)
{
	const struct cpuidle_cpu_info *in = &r->info[cpu];
	int n = in->nr_states;

	if (deepest >= IS_MAX_STATES) {
		diag_error("%s: CPU %d has state %d or deeper events; replay keeps at most %d states",
			  r->file, cpu, IS_MAX_STATES, IS_MAX_STATES);
		return EXIT_USAGE;
	}
	if (n && deepest >= n) {
		diag_error("%s: CPU %d has state %d events; the %s has %d state%s", r->file, cpu,
			  deepest, from, n, n == 1 ? "" : "s");
		return EXIT_USAGE;
	}
	/* no driver: default_idle_call() reports 1, cpu_idle_poll() 0 */
	if (!n && deepest >= 2) {
		diag_error("%s: CPU %d has state %d events; the %s has no idle states for it "
			  "(a host without a cpuidle driver has only 0 and 1)", r->file, cpu, deepest,
			  from);
		return EXIT_USAGE;
	}
	return 0;
}

/* The traced machine's tables: the profile wins over an idlestat header;
 * without either, states by index. */
static int build_tables(struct replay *r)
{
	const struct trace_data *td = &r->td;
	int need = td->max_cpu + 1, *hi = NULL, ret = EXIT_RUNTIME, deepest = 0;
	const char *from;

	if (r->have_prof && need > r->prof.nr_cpus) {
		diag_error("%s: CPU %d has events but the profile describes %d CPU%s", r->file,
			  td->max_cpu, r->prof.nr_cpus, r->prof.nr_cpus == 1 ? "" : "s");
		return EXIT_USAGE;
	}
	if (r->have_prof)
		r->nr_cpus = r->prof.nr_cpus;
	else if (td->have_states)
		r->nr_cpus = td->nr_state_cpus > need ? td->nr_state_cpus : need;
	else
		r->nr_cpus = td->header_cpus > need ? td->header_cpus : need;
	if (r->nr_cpus < 1)
		r->nr_cpus = 1;
	r->info = calloc((size_t)r->nr_cpus, sizeof(*r->info));
	hi = deepest_states(td, r->nr_cpus);
	if (!r->info || !hi)
		goto out;
	for (int c = 0; c < r->nr_cpus; c++)
		if (hi[c] > deepest)
			deepest = hi[c];
	r->no_driver = !r->have_prof && td->have_states;
	for (int c = 0; c < r->nr_cpus; c++) {
		struct cpuidle_cpu_info *in = &r->info[c];
		int n = c < td->nr_state_cpus ? td->nr_states[c] : 0;

		if (r->have_prof) {
			*in = r->prof.info[c];
			from = "profile";
		} else if (td->have_states && n) {
			in->nr_states = n;
			for (int i = 0; i < n; i++) {
				const struct trace_state *ts = &td->states[c * IS_MAX_STATES + i];

				snprintf(in->states[i].name, sizeof(in->states[i].name), "%s", ts->name);
				in->states[i].target_residency_ns = ts->target_residency_ns;
				in->states[i].poll = !strcmp(ts->name, "POLL");
			}
			r->no_driver = false;
			from = "idlestat header";
		} else if (td->have_states && ((c < td->nr_state_cpus && td->described[c]) || hi[c] < 0)) {
			/* no driver (record's default-idle), or offline */
			from = "idlestat header";
		} else {
			/* an ftrace or trace-cmd capture, an idlestat 0.4 file, or a
			 * CPU the header does not describe: the states it enters */
			index_table(in, deepest + 1);
			r->index_tables++;
			if (hi[c] >= 0)
				r->no_driver = false;
			from = "trace";
		}
		in->qos_limit_ns = UINT64_MAX;
		in->dev_qos_ns = UINT64_MAX;
		if ((ret = check_states(r, c, hi[c], from)))
			goto out;
	}
	r->tables_from = r->have_prof ? "profile" : td->have_states ? "idlestat header" : "none";
	r->exit_latency_known = r->have_prof;
	ret = 0;
out:
	if (ret == EXIT_RUNTIME)
		diag_error("out of memory");
	free(hi);
	return ret;
}

/* A topology for the traced machine: every CPU online, groups as clusters. */
static int build_topology(struct replay *r)
{
	struct topology *t = &r->topo;
	const struct trace_data *td = &r->td;
	int ng = r->have_prof ? r->prof.nr_groups : td->nr_clusters;

	memset(t, 0, sizeof(*t));
	t->nr_possible = t->nr_cpus = r->nr_cpus;
	t->cpus = calloc((size_t)r->nr_cpus, sizeof(*t->cpus));
	t->clusters = calloc((size_t)ng + 1, sizeof(*t->clusters));
	if (!t->cpus || !t->clusters)
		return -1;
	for (int g = 0; g < ng; g++) {
		if (r->have_prof)
			t->clusters[g] = r->prof.groups[g];
		else
			for (int c = 0; c < td->nr_state_cpus; c++)
				if (td->cluster_of[c] == g)
					cpulist_set(&t->clusters[g], c);
	}
	t->nr_clusters = ng;
	for (int c = 0; c < r->nr_cpus; c++) {
		struct cpu_topo *ct = &t->cpus[c];
		char l[256] = "";

		cpulist_set(&t->possible, c);
		cpulist_set(&t->online, c);
		ct->cpu = c;
		ct->online = 1;
		ct->package = 0;
		ct->die = ct->core = ct->cluster = -1;
		for (int g = 0; g < ng; g++)
			if (cpulist_has(&t->clusters[g], c)) {
				ct->cluster = g;
				cpulist_format(&t->clusters[g], l, sizeof(l));
			}
		ct->siblings = strdup("");
		ct->cluster_cpus = strdup(l);
		if (!ct->siblings || !ct->cluster_cpus)
			return -1;
	}
	return 0;
}

static int build_groups(struct replay *r)
{
	struct groups *g = &r->groups;
	char err[256] = "";
	const char *level = r->have_prof ? r->prof.group_level : "cluster";

	if (r->topology && !strcmp(r->topology, "none"))
		return 0;
	if (r->topology) {
		if (strncmp(r->topology, "custom:", 7)) {
			diag_error("--topology: replay takes custom:LIST or none (the groups of the traced "
				  "machine come from its header or --profile)");
			return EXIT_USAGE;
		}
		if (groups_build(&r->topo, r->topology, g, err, sizeof(err))) {
			diag_error("--topology: %s", err);
			return EXIT_USAGE;
		}
		return 0;
	}
	if (!r->topo.nr_clusters)
		return 0;
	memset(g, 0, sizeof(*g));
	snprintf(g->level, sizeof(g->level), "%s", level);
	g->nr_cpus = r->nr_cpus;
	g->group_of = malloc(sizeof(*g->group_of) * (size_t)r->nr_cpus);
	g->cpus = calloc((size_t)r->topo.nr_clusters, sizeof(*g->cpus));
	if (!g->group_of || !g->cpus)
		return EXIT_RUNTIME;
	for (int c = 0; c < r->nr_cpus; c++)
		g->group_of[c] = -1;
	for (int i = 0; i < r->topo.nr_clusters; i++) {
		if (!cpulist_count(&r->topo.clusters[i]))
			continue;
		g->cpus[g->nr_groups] = r->topo.clusters[i];
		for (int c = 0; c < r->nr_cpus; c++)
			if (cpulist_has(&r->topo.clusters[i], c))
				g->group_of[c] = g->nr_groups;
		g->nr_groups++;
	}
	return 0;
}

/* Each hrtimer's expiry from its last hrtimer_start: hrtimer_expire_entry
 * gives only "now", and lateness = now - expires. Open addressing on the
 * (hashed) pointer, grown at half full. */
struct expiry_map {
	size_t cap, n;
	uint64_t *key, *val; /* key 0 = empty (a pointer is never 0) */
};

static uint64_t *expiry_slot(struct expiry_map *m, uint64_t key)
{
	size_t i = (size_t)((key * 0x9e3779b97f4a7c15ULL) >> 20) & (m->cap - 1);

	while (m->key[i] && m->key[i] != key)
		i = (i + 1) & (m->cap - 1);
	return &m->key[i];
}

static int expiry_set(struct expiry_map *m, uint64_t key, uint64_t val)
{
	uint64_t *k;

	if (!key)
		return 0;
	if (2 * (m->n + 1) > m->cap) {
		struct expiry_map g = { m->cap ? 2 * m->cap : 1024, 0, NULL, NULL };

		g.key = calloc(g.cap, sizeof(*g.key));
		g.val = calloc(g.cap, sizeof(*g.val));
		if (!g.key || !g.val) {
			free(g.key);
			free(g.val);
			return -1;
		}
		for (size_t i = 0; i < m->cap; i++)
			if (m->key[i])
				expiry_set(&g, m->key[i], m->val[i]);
		free(m->key);
		free(m->val);
		*m = g;
	}
	k = expiry_slot(m, key);
	if (!*k)
		m->n++;
	*k = key;
	m->val[k - m->key] = val;
	return 0;
}

static bool expiry_get(struct expiry_map *m, uint64_t key, uint64_t *val)
{
	uint64_t *k;

	if (!m->cap || !key)
		return false;
	k = expiry_slot(m, key);
	if (!*k)
		return false;
	*val = m->val[k - m->key];
	return true;
}

static int feed(struct replay *r)
{
	const struct trace_data *td = &r->td;
	struct replay_event *batch = malloc(sizeof(*batch) * IS_REPLAY_BATCH);
	struct expiry_map em = { 0 };
	uint64_t t0;
	size_t i = 0;

	if (!batch)
		return -ENOMEM;
	r->first_ns = td->min_ts;
	r->last_ns = td->max_ts;
	idle_session_start(&r->sess, REPLAY_BASE_NS);
	t0 = idle_now_ns();
	while (i < td->nr_ev) {
		size_t n = 0;
		long rej;

		for (; i < td->nr_ev && n < IS_REPLAY_BATCH; i++) {
			const struct trace_event *t = &td->ev[i];
			uint64_t expires;

			struct replay_event *e = &batch[n];

			r->have_miss |= t->re.kind == RE_IDLE_MISS;
			r->have_freq |= t->re.kind == RE_FREQ;
			if (t->re.kind == RE_HRTIMER_START) {
				if (expiry_set(&em, t->re.timer.hrtimer, t->re.timer.expires)) {
					free(batch);
					return -ENOMEM;
				}
				r->timer_starts++;
				continue;
			}
			if (t->re.kind == RE_HRTIMER &&
			    (!expiry_get(&em, t->re.timer.hrtimer, &expires) || !t->re.timer.fn)) {
				r->timer_unmatched++; /* its start is before the trace */
				continue;
			}
			*e = t->re;
			e->now_ns = t->re.now_ns - r->first_ns + REPLAY_BASE_NS;
			/* the hrtimer clock's own now and expires stay as they are */
			if (e->kind == RE_HRTIMER)
				e->timer.expires = expires;
			n++;
		}
		rej = idle_session_replay_batch(&r->sess, batch, n);
		if (rej < 0) {
			free(batch);
			free(em.key);
			free(em.val);
			return (int)rej;
		}
		r->rejected += (uint64_t)rej;
		r->replayed += n;
	}
	r->feed_ns = idle_now_ns() - t0;
	idle_session_stop(&r->sess, r->last_ns - r->first_ns + REPLAY_BASE_NS);
	free(batch);
	free(em.key);
	free(em.val);
	return 0;
}

static double events_per_s(const struct replay *r)
{
	return r->feed_ns ? (double)r->replayed * 1e9 / (double)r->feed_ns : 0.0;
}

/* Including reading, parsing and sorting the file. */
static double total_events_per_s(const struct replay *r)
{
	uint64_t ns = r->feed_ns + r->parse_ns;

	return ns ? (double)r->replayed * 1e9 / (double)ns : 0.0;
}

static json_t *replay_json(const struct replay *r)
{
	const struct trace_data *td = &r->td;
	json_t *sk = json_object();

	for (int i = 0; i < td->nr_skipped_names; i++)
		json_object_set_new(sk, td->skipped_names[i].name,
				    json_integer((json_int_t)td->skipped_names[i].count));
	return json_pack("{s:s,s:o,s:s,s:s,s:b,s:I,s:I,s:I,s:o,s:I,s:o,s:b,s:o,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:f,s:I,s:f,s:I,s:I}",
			 "file", r->file, "format_version",
			 td->version[0] ? json_string(td->version) : json_null(), "format",
			 trace_format_name(td->format), "tables",
			 r->tables_from, "exit_latency_known", r->exit_latency_known, "lines",
			 (json_int_t)td->lines, "events", (json_int_t)r->replayed, "skipped",
			 (json_int_t)td->skipped, "skipped_events", sk, "garbled_lines",
			 (json_int_t)td->garbled, "first_garbled_line",
			 td->garbled ? json_integer(td->first_garbled_line) : json_null(), "truncated",
			 td->truncated, "truncated_line",
			 td->truncated ? json_integer(td->truncated_line) : json_null(), "lost_events",
			 (json_int_t)td->lost_events, "drop_markers", (json_int_t)td->drop_markers,
			 "out_of_order", (json_int_t)td->out_of_order, "reordered_lines",
			 (json_int_t)td->reordered, "held_back", (json_int_t)td->held_back,
			 "index_tables", (json_int_t)r->index_tables, "rejected", (json_int_t)r->rejected, "replay_ns",
			 (json_int_t)r->feed_ns, "events_per_s", events_per_s(r), "parse_ns",
			 (json_int_t)r->parse_ns, "total_events_per_s", total_events_per_s(r),
			 "timer_starts", (json_int_t)r->timer_starts, "timers_unmatched",
			 (json_int_t)r->timer_unmatched);
}

/* The parser's findings, as summary warnings (table, JSON, CSV alike). */
static void warn_trace(const struct replay *r, struct summary *s)
{
	const struct trace_data *td = &r->td;

	if (td->garbled)
		summary_warn(s, "%s: %" PRIu64 " line%s not understood (first: line %u), skipped",
			     r->file, td->garbled, td->garbled == 1 ? "" : "s", td->first_garbled_line);
	if (td->truncated)
		summary_warn(s, "%s: the last line (line %u) has no newline: not replayed (truncated "
				"file?)", r->file, td->truncated_line);
	if (td->lost_events)
		summary_warn(s, "%s: the tracer lost %" PRIu64 " events: periods around them are "
				"wrong or missing", r->file, td->lost_events);
	if (td->drop_markers)
		summary_warn(s, "%s: the tracer dropped events %" PRIu64 " time%s ([EVENTS DROPPED]): "
				"periods around them are wrong or missing", r->file, td->drop_markers,
			     td->drop_markers == 1 ? "" : "s");
	if (td->out_of_order)
		summary_warn(s, "%s: %" PRIu64 " events earlier than the previous one of their CPU; "
				"%" PRIu64 " lines replayed before a line above them, %" PRIu64
				" kept after their CPU's previous line at its time", r->file,
			     td->out_of_order, td->reordered, td->held_back);
	else if (td->reordered || td->held_back)
		summary_warn(s, "%s: %" PRIu64 " lines replayed before a line above them (the CPUs' "
				"buffers merged by time), %" PRIu64 " kept after their CPU's previous "
				"line at its time", r->file, td->reordered, td->held_back);
	if (td->dropped_states)
		summary_warn(s, "%s: %" PRIu64 " idle states beyond %d per CPU ignored", r->file,
			     td->dropped_states, IS_MAX_STATES);
	if (td->unknown_residency)
		summary_warn(s, "%s: %" PRIu64 " idle states with target residency -1 in the header, "
				"taken as 0", r->file, td->unknown_residency);
	if (r->index_tables)
		summary_warn(s, "%s: no idle-state table for %d CPU%s (give --profile FILE): states "
				"named by index, without target residencies or above/below", r->file,
			     r->index_tables, r->index_tables == 1 ? "" : "s");
	else if (!r->exit_latency_known && !r->no_driver)
		summary_warn(s, "idlestat traces carry no exit latencies: taken as 0 for below "
				"(give --profile for the real table)");
	if (r->timer_unmatched)
		summary_warn(s, "%" PRIu64 " hrtimer_expire_entry events without an hrtimer_start of "
				"their timer in the trace: their timer and lateness are not known",
			     r->timer_unmatched);
	if (r->rejected)
		summary_warn(s, "%" PRIu64 " events were rejected by the replay program",
			     r->rejected);
	if (!r->replayed)
		summary_warn(s, "%s: no events to replay", r->file);
}

/* What summary_build took from this machine, replaced by the trace's view. */
static void trace_view(struct replay *r, struct summary *s)
{
	snprintf(s->kernel, sizeof(s->kernel), "unknown (replayed trace)");
	for (int i = 0; i < s->nr_warnings; i++)
		if (!strncmp(s->warnings[i], "power:cpu_idle_miss is not available", 36)) {
			char *w = strdup("the trace has no power:cpu_idle_miss events: above/below are "
					 "the BPF classification only");

			if (w) {
				free(s->warnings[i]);
				s->warnings[i] = w;
			}
		}
	s->have_capacity = false;
	for (int c = 0; c < s->nr_cpus; c++)
		s->cpus[c].capacity = -1;
	for (int i = 0; i < s->nr_wake_rows; i++) {
		struct wake_row *w = &s->wake_rows[i];

		if (w->kind == WDETAIL_TIMER_FN) {
			snprintf(w->name, sizeof(w->name), "%s",
				 w->detail >= 1 && w->detail <= (uint64_t)r->td.nr_fn_names
					 ? r->td.fn_names[w->detail - 1] : "unknown");
			continue;
		}
		if (w->kind != WDETAIL_IRQ)
			continue;
		snprintf(w->name, sizeof(w->name), "irq %" PRIu64, w->detail);
		for (int k = 0; k < r->td.nr_irq_names; k++)
			if (r->td.irq_names[k].irq == w->detail)
				snprintf(w->name, sizeof(w->name), "%s", r->td.irq_names[k].name);
	}
}

static void print_replay_table(FILE *f, const struct replay *r)
{
	const struct trace_data *td = &r->td;
	char dur[32];

	fprintf(f, "\nReplay: %s (%s), tables from the %s\n", r->file, trace_format_name(td->format),
		r->tables_from);
	fprintf(f, "  %" PRIu64 " events replayed in %s (%.0f events/s; %.0f with parsing), %" PRIu64
		   " skipped", r->replayed, fmt_ns(dur, sizeof(dur), r->feed_ns), events_per_s(r),
		total_events_per_s(r), td->skipped);
	for (int i = 0; i < td->nr_skipped_names; i++)
		fprintf(f, "%s%s %" PRIu64, i ? ", " : " (", td->skipped_names[i].name,
			td->skipped_names[i].count);
	fprintf(f, "%s, %" PRIu64 " lines not understood\n", td->nr_skipped_names ? ")" : "",
		td->garbled);
}

static int emit(struct replay *r)
{
	uint64_t start = REPLAY_BASE_NS, stop = r->last_ns - r->first_ns + REPLAY_BASE_NS;
	size_t nk = (size_t)r->nr_cpus * IS_MAX_STATES;
	struct cpuidle_counters *k0 = calloc(nk, sizeof(*k0)), *k1 = calloc(nk, sizeof(*k1));
	struct window_capture w = { .start_ns = start, .stop_ns = stop, .info = r->info,
				    .groups = r->groups.nr_groups ? &r->groups : NULL,
				    .k_start = k0, .k_end = k1 };
	struct summary s = { .command = "replay", .topo = &r->topo, .idle_attach = "trace",
			     .miss_attach = r->have_miss ? "trace" : NULL,
			     .wake_enabled = r->wake, .missing_events = "",
			     .freq_status = r->have_freq ? "ok" : "no cpu_frequency events in the trace",
			     .sched_energy_aware = -1, .energy_model = "unknown (replayed trace)" };
	struct idle_raw raw;
	json_t *doc = NULL;
	int err = -1;

	if (!k0 || !k1) {
		diag_error("out of memory");
		goto out;
	}
	snprintf(s.sys.driver, sizeof(s.sys.driver), "%s",
		 r->have_prof && r->prof.driver[0] ? r->prof.driver
		 : r->no_driver			   ? "none"
						   : "unknown (trace)");
	snprintf(s.sys.governor, sizeof(s.sys.governor), "%s",
		 r->have_prof ? r->prof.governor : "");
	if ((err = idle_session_read(&r->sess, &raw))) {
		diag_error("cannot read the BPF maps: %s", strerror(-err));
		err = -1;
		goto out;
	}
	w.raw = &raw;
	if (summary_build(&s, &w, &r->sel)) {
		idle_raw_free(&raw);
		diag_error("out of memory");
		err = -1;
		goto out;
	}
	trace_view(r, &s);
	warn_trace(r, &s);
	if (r->o.format == FMT_JSON || r->o.nr_asserts) {
		doc = summary_json(&s);
		if (doc) {
			json_t *timers = json_object_get(json_object_get(doc, "wakeup_details"),
							 "timers"), *t;
			size_t i;

			/* a text trace names the function; there is no address */
			json_array_foreach(timers, i, t)
				json_object_set_new(t, "function", json_null());
			json_object_set_new(doc, "replay", replay_json(r));
		}
	}
	err = 0;
	switch (r->o.format) {
	case FMT_JSON:
		err = !doc || json_dumpf(doc, r->out, JSON_INDENT(2)) ? -1 : 0;
		fputc('\n', r->out);
		break;
	case FMT_CSV:
		render_csv(r->out, &s);
		break;
	default:
		render_table(r->out, &s);
		print_replay_table(r->out, r);
	}
	if (!err)
		r->assert_ret = cli_check_asserts(&r->o, doc, flatten_summary, r->out);
	json_decref(doc);
	summary_free(&s);
	idle_raw_free(&raw);
	if (fflush(r->out) || ferror(r->out)) {
		diag_error("cannot write the report: %s", strerror(errno));
		err = -1;
	}
out:
	free(k0);
	free(k1);
	return err;
}

int cmd_replay(int argc, char **argv)
{
	struct replay r = { .o = { .format = FMT_TABLE }, .out = stdout, .wake = true };
	char err[256];
	int ret = EXIT_RUNTIME;

	argp_parse(&replay_argp, argc, argv, ARGP_IN_ORDER, NULL, &r);
	idle_set_verbose(r.o.verbose);
	if (r.o.command) {
		diag_error("replay takes no COMMAND (it reads FILE)");
		return EXIT_USAGE;
	}
	if (r.profile_path) {
		if (trace_profile_load(r.profile_path, &r.prof, err, sizeof(err))) {
			diag_error("--profile %s: %s", r.profile_path, err);
			return EXIT_USAGE;
		}
		r.have_prof = true;
	}
	r.parse_ns = idle_now_ns();
	if (read_file(&r))
		goto cleanup;
	if (trace_parse_buffer(r.buf, r.len, &r.td)) {
		diag_error("%s: %s", r.file, r.td.error);
		goto cleanup;
	}
	free(r.buf);
	r.buf = NULL;
	trace_sort_events(&r.td);
	r.parse_ns = idle_now_ns() - r.parse_ns;
	if ((ret = build_tables(&r)))
		goto cleanup;
	ret = EXIT_RUNTIME;
	if (build_topology(&r)) {
		diag_error("out of memory");
		goto cleanup;
	}
	if ((ret = build_groups(&r)))
		goto cleanup;
	ret = EXIT_RUNTIME;
	if (cli_resolve_cpus(&r.o, &r.topo.possible, &r.sel)) {
		ret = EXIT_USAGE;
		goto cleanup;
	}
	if (r.o.output && !(r.out = fopen(r.o.output, "we"))) {
		diag_error("cannot write '%s': %s", r.o.output, strerror(errno));
		r.out = stdout;
		goto cleanup;
	}
	if (idle_session_open(&r.sess, r.nr_cpus,
			      &(struct session_opts){ .replay = true, .wake = r.wake,
						      .nr_groups = r.groups.nr_groups,
						      .group_of = r.groups.group_of,
						      .group_cpus = r.groups.cpus },
			      err, sizeof(err))) {
		diag_error("%s", err);
		goto cleanup;
	}
	for (int c = 0; c < r.nr_cpus; c++) {
		struct idle_params p;

		cpuidle_to_params(&r.info[c], &p);
		if (idle_session_set_params(&r.sess, c, &p)) {
			diag_error("cannot write CPU %d's idle-state table: %s", c, strerror(errno));
			goto cleanup;
		}
	}
	if ((ret = feed(&r))) {
		diag_error("replay failed: %s", strerror(-ret));
		ret = EXIT_RUNTIME;
		goto cleanup;
	}
	if (r.o.verbose)
		fprintf(stderr, "idlescope: replayed %" PRIu64 " events in %.3f ms: %.0f events/s "
				"(%.0f events/s with reading and parsing, %.3f ms)\n",
			r.replayed, (double)r.feed_ns / 1e6, events_per_s(&r), total_events_per_s(&r),
			(double)r.parse_ns / 1e6);
	ret = emit(&r) ? EXIT_RUNTIME : EXIT_OK;
	if (!ret && r.assert_ret)
		ret = r.assert_ret;
cleanup:
	idle_session_close(&r.sess);
	if (r.out && r.out != stdout)
		fclose(r.out);
	free(r.buf);
	free(r.info);
	trace_data_free(&r.td);
	if (r.have_prof)
		trace_profile_free(&r.prof);
	groups_free(&r.groups);
	topology_free(&r.topo);
	return ret;
}
