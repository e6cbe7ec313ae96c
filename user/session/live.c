/* The live session of record, top, serve and hist (live.h): one start-up,
 * one degradation on kernels without atomic fetch ops, one way to follow
 * what the kernel changes during the window (events, else a refresh tick). */
#include "session/live.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "session/kernel_features.h"
#include "session/parts.h"
#include "session/window.h"
#include "sys/group_levels.h"
#include "sys/qos_holders.h"
#include "sys/sysfs.h"
#include "util/diag.h"
#include "util/env_flag.h"

int live_prepare(struct live *l, const struct topology *t, const struct live_opts *o)
{
	int n = t->nr_possible;
	char err[256] = "";
	uint64_t qos;

	memset(l, 0, sizeof(*l));
	l->watch.fd = -1;
	l->event_fd = -1;
	l->topo = t;
	l->o = *o;
	l->info = calloc((size_t)n, sizeof(*l->info));
	l->params = calloc((size_t)n, sizeof(*l->params));
	if (!l->info || !l->params) {
		diag_error("out of memory");
		return EXIT_RUNTIME;
	}
	cpuidle_read_system(&l->sys);
	qos = cpuidle_global_qos_ns();
	for (int c = 0; c < n; c++)
		cpuidle_read_cpu(&l->sys, c, &l->info[c], qos);

	if ((o->without & PART_GROUPS) && o->topology && strcmp(o->topology, "none")) {
		diag_error("--without groups contradicts --topology %s", o->topology);
		return EXIT_USAGE;
	}
	if (!(o->without & PART_GROUPS) && !(o->topology && !strcmp(o->topology, "none")) &&
	    groups_build(t, o->topology, &l->groups, err, sizeof(err))) {
		diag_error("--topology: %s", err);
		return EXIT_USAGE;
	}
	if (o->packing && !l->groups.nr_groups) {
		diag_error("--packing needs topology groups (not --topology none or --without groups)");
		return EXIT_USAGE;
	}
	/* group counters use fetch-and-add, packing cmpxchg: BPF atomics that
	 * return the old value (5.12+); without them the verifier refuses both,
	 * so the rest runs without group rows */
	if (l->groups.nr_groups && features_lack_atomic_fetch()) {
		if (o->packing) {
			diag_error("--packing needs BPF atomic fetch ops (kernel 5.12+); this kernel lacks them");
			return EXIT_RUNTIME;
		}
		fprintf(stderr, "idlescope: no group rows: they need BPF atomic fetch ops (kernel 5.12+)\n");
		groups_free(&l->groups);
		memset(&l->groups, 0, sizeof(l->groups));
	}
	/* frequency residency where cpufreq exists (events only on changes) */
	l->freq = o->freq && !(o->without & PART_FREQ) && (sysfs_exists("devices/system/cpu/cpufreq/policy0") ||
			      sysfs_exists("devices/system/cpu/cpu0/cpufreq/scaling_cur_freq"));
	return EXIT_OK;
}

static void push_params(struct live *l, bool all_files)
{
	idle_session_push_cpuidle(&l->sess, &l->sys, l->info, l->params, l->topo->nr_possible,
				  all_files);
}

/* The ledger's first rows: the holders of /dev/cpu_dma_latency now (this
 * process's own descriptor, which reads the limit, left out) and every
 * CPU's resume-latency limit; the request records follow from the attach. */
static void seed_ledger(struct live *l)
{
	struct qos_holders h;

	qos_ledger_init(&l->ledger);
	if (!qos_holders_scan("/proc", &h)) {
		for (int i = 0; i < h.nr; i++)
			if (h.h[i].pid != getpid())
				qos_ledger_seed_holder(&l->ledger, h.h[i].pid, h.h[i].comm, h.h[i].fds);
		qos_holders_free(&h);
	}
	for (int c = 0; c < l->topo->nr_possible; c++)
		qos_ledger_seed_resume(&l->ledger, c, cpuidle_dev_qos_ns(c));
	qos_ledger_seeded(&l->ledger, cpuidle_global_qos_ns());
}

int live_load(struct live *l)
{
	struct session_opts session_opts = {
		.wake = l->o.wake && !(l->o.without & PART_WAKEUPS),
		.without = l->o.without,
		.groups = l->groups.nr_groups ? &l->groups : NULL,
		.packing = l->o.packing,
		.freq = l->freq,
		/* the governor's select is what tells a poll's end */
		.haltpoll = !strcmp(l->sys.driver, "haltpoll") && !strcmp(l->sys.governor, "haltpoll"),
		.state_slots = cpuidle_state_slots(l->info, l->topo->nr_possible),
		.hist = l->o.hist,
		.qos_events = true,
		/* record follows hotplug; every command re-watches the disable
		 * flags of a CPU whose cpuidle directory came back */
		.hotplug_events = true,
	};
	char err[256] = "";

	if (idle_session_open(&l->sess, l->topo->nr_possible, &session_opts, err, sizeof(err))) {
		diag_error("%s", err);
		return EXIT_RUNTIME;
	}
	if (window_check_interrupted()) /* loading took a while */
		return EXIT_RUNTIME;
	if (session_opts.qos_events) {
		seed_ledger(l);
		l->sess.ledger = &l->ledger;
	}
	push_params(l, false);
	for (int c = 0; l->freq && c < l->topo->nr_possible; c++) {
		uint64_t khz;

		if (!sysfs_read_u64(&khz, "devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq", c))
			idle_session_set_freq(&l->sess, c, (uint32_t)khz);
	}
	return EXIT_OK;
}

/* The CPUs still of unknown state (sess.unknown_at_start), once attached. */
static void count_unknown(struct live *l, const char *when)
{
	l->sess.unknown_at_start = idle_session_unknown(&l->sess, &l->online);
	if (l->o.verbose)
		fprintf(stderr, "idlescope: %d CPUs of unknown state %s\n", l->sess.unknown_at_start,
			when);
}

/* PM QoS, and for record hotplug, come as events: only the state files
 * are left to poll */
static bool events_cover(const struct live *l)
{
	return idle_session_qos_fd(&l->sess) >= 0 &&
	       (!l->o.track_hotplug || l->sess.hotplug_attached);
}

/* Every online CPU's disable flags watched (again after hotplug: a driver
 * may register the CPU's cpuidle device anew, new files). Returns 0, or
 * -errno when a file could not be watched (then the files are polled). */
static int watch_disable_flags(struct live *l)
{
	for (int c = 0; c < l->topo->nr_possible; c++) {
		for (int i = 0; i < l->info[c].nr_states; i++) {
			int e = sysfs_watch_add(&l->watch, "devices/system/cpu/cpu%d/cpuidle/state%d/disable",
						c, i);

			if (e && e != -ENOENT) /* ENOENT: offline now */
				return e;
		}
	}
	return 0;
}

static int epoll_add(int ep, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };

	return epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
}

/* Nothing left to poll when PM QoS, hotplug (every command: the watches
 * follow it) and the disable flags' writes come as events: then one
 * descriptor wakes the session for all three, and no timer does. */
static void start_watching(struct live *l)
{
	int e;

	if (idle_session_qos_fd(&l->sess) < 0 || !l->sess.hotplug_attached ||
	    env_flag("IDLESCOPE_POLL_STATE_FILES"))
		return;
	if ((e = sysfs_watch_open(&l->watch)) || (e = watch_disable_flags(l)))
		goto poll;
	l->event_fd = epoll_create1(EPOLL_CLOEXEC);
	if (l->event_fd < 0 || epoll_add(l->event_fd, idle_session_qos_fd(&l->sess)) ||
	    epoll_add(l->event_fd, l->watch.fd)) {
		e = -errno;
		goto poll;
	}
	l->watching = true;
	return;
poll:
	if (l->o.verbose)
		fprintf(stderr, "idlescope: the state files are polled: cannot watch them: %s\n",
			strerror(-e));
	if (l->event_fd >= 0)
		close(l->event_fd);
	l->event_fd = -1;
	sysfs_watch_close(&l->watch);
}

int live_attach(struct live *l)
{
	char err[256] = "";

	if (idle_session_attach(&l->sess, err, sizeof(err))) {
		diag_error("%s", err);
		return EXIT_RUNTIME;
	}
	if (window_check_interrupted())
		return EXIT_RUNTIME;
	/* every CPU's state known before the window opens */
	if (hotplug_read_online(&l->online))
		l->online = l->topo->online; /* as read at the start-up */
	idle_session_poke(&l->sess, &l->online);
	if (l->o.verbose)
		fprintf(stderr, "idlescope: poke: %d CPUs poked (%d busy, %d idle that left idle and "
				"entered it again) in %.3f ms%s%s\n",
			l->sess.poke.cpus, l->sess.poke.busy, l->sess.poke.woken,
			(double)l->sess.poke.ns / 1e6, l->sess.poke.why[0] ? "; not all: " : "",
			l->sess.poke.why);
	l->attached = true;
	if (l->started)
		count_unknown(l, "after the poke");
	start_watching(l); /* before the window asks how often to refresh */
	return EXIT_OK;
}

int live_start(struct live *l, uint64_t now)
{
	idle_session_start(&l->sess, now);
	l->started = true;
	if (l->attached)
		count_unknown(l, "at the start");
	if (l->o.track_hotplug) {
		struct cpulist online;

		/* no online mask: no hotplug tracking (offline_ns stays 0) */
		if (!hotplug_read_online(&online) &&
		    hotplug_begin(&l->hotplug, l->topo->nr_possible, now, &online)) {
			diag_error("out of memory");
			return EXIT_RUNTIME;
		}
	}
	l->next_state_refresh = now + LIVE_STATE_REFRESH_NS;
	sysfs_keep_open(true); /* the refresh reads the same files again */
	return EXIT_OK;
}

uint64_t live_refresh_ns(const struct live *l)
{
	if (l->watching)
		return 0;
	return events_cover(l) ? LIVE_EVENT_REFRESH_NS : LIVE_REFRESH_NS;
}

uint64_t live_refresh_slack_ns(const struct live *l)
{
	return !l->watching && events_cover(l) ? LIVE_REFRESH_SLACK_NS : 0;
}

int live_qos_fd(const struct live *l)
{
	return l->watching ? l->event_fd : idle_session_qos_fd(&l->sess);
}

void live_qos_event(struct live *l, uint64_t now)
{
	bool written = l->watching && sysfs_watch_drain(&l->watch);
	unsigned int what = idle_session_qos_changed(&l->sess);

	if ((what & IS_NOTIFY_HOTPLUG) && l->o.track_hotplug && l->started)
		hotplug_poll(&l->hotplug, now);
	if ((what & IS_NOTIFY_HOTPLUG) && l->watching)
		watch_disable_flags(l); /* a file that cannot be watched: as before the hotplug */
	if (l->watching && (written || what)) {
		/* nothing is polled: every file read again (the device
		 * QoS files with the global limit, the disable flags) */
		push_params(l, true);
	} else if (what & IS_NOTIFY_REQUEST) {
		push_params(l, true); /* a device's limit may be new: its file too */
	} else if (what & IS_NOTIFY_QOS) {
		push_params(l, false);
	}
	if (l->o.verbose && (what & IS_NOTIFY_QOS)) {
		uint64_t g = cpuidle_global_qos_ns();
		char v[32] = "none";

		if (g != UINT64_MAX)
			snprintf(v, sizeof(v), "%llu ns", (unsigned long long)g);
		fprintf(stderr, "idlescope: PM QoS changed (%llu changes seen): cpu_dma_latency %s\n",
			(unsigned long long)idle_session_qos_changes(&l->sess), v);
	}
	if (l->o.verbose && written)
		fprintf(stderr, "idlescope: a cpuidle state's disable flag was written\n");
}

void live_refresh(struct live *l, uint64_t now)
{
	/* with the events every tick is a full one (live_refresh_ns) */
	bool all = now >= l->next_state_refresh || events_cover(l);

	if (l->o.track_hotplug)
		hotplug_poll(&l->hotplug, now);
	push_params(l, all);
	if (all)
		l->next_state_refresh = now + LIVE_STATE_REFRESH_NS;
}

void live_close(struct live *l)
{
	if (l->watching) {
		close(l->event_fd);
		sysfs_watch_close(&l->watch);
	}
	sysfs_keep_open(false);
	idle_session_close(&l->sess);
	free(l->info);
	free(l->params);
	groups_free(&l->groups);
	hotplug_free(&l->hotplug);
	memset(l, 0, sizeof(*l));
}
