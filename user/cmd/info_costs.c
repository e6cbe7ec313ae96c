/* Measures what each part costs (costs.h). */
#include "cmd/info_costs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "model/stats.h"
#include "session/kernel_features.h"
#include "session/live.h"
#include "session/parts.h"
#include "session/self_cost.h"
#include "sys/group_levels.h"
#include "sys/sysfs.h"
#include "sys/topology.h"
#include "util/clock.h"
#include "cmd/pingpong_load.h"

/* The BPF run time of every loaded program, and of cpu_idle's, so far
 * (the same reading serve exports, session/self_cost.c). */
struct run_stats {
	uint64_t ns, idle_ns, idle_cnt;
};

static void read_stats(struct live *l, struct run_stats *s)
{
	static struct self_cost c;

	memset(s, 0, sizeof(*s));
	self_cost_read(&l->sess, &c);
	for (int i = 0; i < c.nr_progs; i++) {
		s->ns += c.progs[i].run_ns;
		if (!strcmp(c.progs[i].name, "tp_btf_cpu_idle") ||
		    !strcmp(c.progs[i].name, "raw_tp_cpu_idle")) {
			s->idle_ns += c.progs[i].run_ns;
			s->idle_cnt += c.progs[i].runs;
		}
	}
}

/* One run of configuration c: its figures into the run's slot. */
struct sample {
	double rounds_per_s, bpf_ns_per_round, idle_ns_per_event, idle_events_per_round;
};

static int run_one(const struct topology *t, const struct cost_report *rep,
		   const struct cost_config *c, struct sample *out, char *err, size_t errlen)
{
	struct live l;
	struct run_stats a = { 0 }, b = { 0 };
	uint64_t ns;
	int ret = 0;

	if (c->observed) {
		struct live_opts o = { .wake = !(c->without & PART_WAKEUPS), .without = c->without,
				       .packing = c->packing, .freq = true };

		if (live_prepare(&l, t, &o) || live_load(&l) || live_attach(&l)) {
			live_close(&l);
			snprintf(err, errlen, "cannot run the %s configuration (above)", c->name);
			return -1;
		}
		live_start(&l, idle_now_ns());
		read_stats(&l, &a);
	}
	if (pingpong_run(rep->cpu_a, rep->cpu_b, rep->rounds, &ns)) {
		snprintf(err, errlen, "the ping-pong load failed: %s", strerror(errno));
		ret = -1;
	}
	if (c->observed) {
		read_stats(&l, &b);
		live_close(&l);
	}
	out->rounds_per_s = ns ? rep->rounds * 1e9 / (double)ns : 0;
	out->bpf_ns_per_round = (double)(b.ns - a.ns) / (double)rep->rounds;
	out->idle_ns_per_event = b.idle_cnt > a.idle_cnt ?
				 (double)(b.idle_ns - a.idle_ns) / (double)(b.idle_cnt - a.idle_cnt) : 0;
	out->idle_events_per_round = (double)(b.idle_cnt - a.idle_cnt) / (double)rep->rounds;
	return ret;
}

static void add_config(struct cost_report *rep, const char *name, const char *part,
		       unsigned int without, bool observed, bool packing)
{
	struct cost_config *c = &rep->c[rep->nr++];

	snprintf(c->name, sizeof(c->name), "%s", name);
	c->part = part;
	c->without = without;
	c->observed = observed;
	c->packing = packing;
}

/* The configurations this machine has the parts for. */
static void choose_configs(const struct topology *t, struct cost_report *rep)
{
	const struct kernel_features *f = features_get();
	struct groups g = { 0 };
	char gerr[256];
	bool groups = !f->atomic_fetch && !groups_build(t, NULL, &g, gerr, sizeof(gerr)) &&
		      g.nr_groups > 0;

	groups_free(&g);
	add_config(rep, "none", NULL, 0, false, false);
	add_config(rep, "default", NULL, 0, true, false);
	add_config(rep, "without wakeups", "wakeups", PART_WAKEUPS, true, false);
	add_config(rep, "without timers", "timers", PART_TIMERS, true, false);
	add_config(rep, "without details", "details", PART_DETAILS, true, false);
	if (groups)
		add_config(rep, "without groups", "groups", PART_GROUPS, true, false);
	if (f->cpu_idle_miss)
		add_config(rep, "without miss", "miss", PART_MISS, true, false);
	if (sysfs_exists("devices/system/cpu/cpufreq/policy0"))
		add_config(rep, "without freq", "freq", PART_FREQ, true, false);
	if (!f->idle_fexit)
		add_config(rep, "without fexit", "fexit", PART_FEXIT, true, false);
	if (groups)
		add_config(rep, "with packing", "packing", 0, true, true);
}

int costs_measure(const struct topology *t, struct cost_report *rep, char *err, size_t errlen)
{
	static struct sample s[COST_MAX_CONFIGS][COST_RUNS];
	int stats_fd, ret = 0;

	memset(rep, 0, sizeof(*rep));
	rep->cpu_a = cpulist_first(&t->online);
	rep->cpu_b = -1;
	for (int c = rep->cpu_a + 1; c < IS_CPULIST_MAX && rep->cpu_b < 0; c++)
		if (cpulist_has(&t->online, c))
			rep->cpu_b = c;
	if (rep->cpu_a < 0 || rep->cpu_b < 0) {
		snprintf(err, errlen, "--costs needs two online CPUs for its ping-pong load");
		return -1;
	}
	rep->runs = COST_RUNS;
	/* run-time statistics while this fd is open; off again when it closes */
	stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (stats_fd < 0) {
		snprintf(err, errlen, "cannot enable BPF run-time statistics: %s", strerror(errno));
		return -1;
	}
	choose_configs(t, rep);
	/* calibrate: about COST_RUN_NS of the load un-observed per run */
	{
		uint64_t ns;

		if (pingpong_run(rep->cpu_a, rep->cpu_b, 1000, &ns)) {
			snprintf(err, errlen, "the ping-pong load failed: %s", strerror(errno));
			close(stats_fd);
			return -1;
		}
		rep->rounds = (long)(1000 * COST_RUN_NS / (ns ? ns : 1));
		if (rep->rounds < 1000)
			rep->rounds = 1000;
	}
	/* interleaved: a drift of the machine spreads over every configuration */
	for (int r = 0; r < rep->runs && !ret; r++)
		for (int c = 0; c < rep->nr && !ret; c++)
			ret = run_one(t, rep, &rep->c[c], &s[c][r], err, errlen);
	close(stats_fd);
	if (ret)
		return -1;
	for (int c = 0; c < rep->nr; c++) {
		double v[COST_RUNS];
		struct sample_stats st;

#define MEDIAN_OF(field)                                   \
		do {                                       \
			for (int r = 0; r < rep->runs; r++) \
				v[r] = s[c][r].field;      \
			sample_stats(v, rep->runs, &st);   \
			rep->c[c].field = st.median;       \
		} while (0)
		MEDIAN_OF(rounds_per_s);
		rep->c[c].rounds_min = st.min;
		rep->c[c].rounds_max = st.max;
		MEDIAN_OF(bpf_ns_per_round);
		MEDIAN_OF(idle_ns_per_event);
		MEDIAN_OF(idle_events_per_round);
#undef MEDIAN_OF
	}
	return 0;
}

const struct cost_config *costs_find(const struct cost_report *rep, const char *name)
{
	for (int c = 0; c < rep->nr; c++)
		if (!strcmp(rep->c[c].name, name))
			return &rep->c[c];
	return NULL;
}
