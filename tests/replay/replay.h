/* What every replay test needs: time units and one call to send an event
 * through the real BPF handlers (asserting the program accepted it). */
#ifndef IDLESCOPE_REPLAY_H
#define IDLESCOPE_REPLAY_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session/idle_loader.h"
#include "session/replay_drive.h"
#include "session/snapshot.h"

#define US 1000ULL
#define MS 1000000ULL
#define EXIT IS_PWR_EVENT_EXIT

static inline void replay_send(struct idle_session *s, struct replay_event e)
{
	assert_int_equal(idle_session_replay(s, &e), 0);
}

/* power:cpu_idle on cpu at now_ns: state, or EXIT. */
static inline void replay_idle(struct idle_session *s, uint64_t cpu, uint64_t now_ns,
			       uint64_t state)
{
	replay_send(s, (struct replay_event){ .kind = RE_IDLE, .cpu = cpu, .now_ns = now_ns,
					      .idle.state = state });
}

/* An idle exit whose CPU found work queued and no interrupt inside (what
 * a live session reads at the exit: RE_EXIT_NOIPI). */
static inline void replay_exit_noipi(struct idle_session *s, uint64_t cpu, uint64_t now_ns)
{
	replay_send(s, (struct replay_event){ .kind = RE_IDLE, .cpu = (uint32_t)cpu,
					      .now_ns = now_ns, .idle.state = EXIT,
					      .idle.facts = RE_EXIT_NOIPI });
}

/* A task name into an event's task.comm. */
static inline void replay_comm(const char *comm, char out[16])
{
	memset(out, 0, 16);
	strncpy(out, comm, 15);
}

/* The 3-state ARM-like table: WFI 1/1 us, CPU_PD 100/1000 us, CLS_PD
 * 1000/10000 us (exit latency / target residency), no PM QoS limit. */
static inline struct idle_params replay_arm_table(uint32_t disabled_mask)
{
	struct idle_params p = {
		.nr_states = 3, .flags = IS_PARAMS_VALID, .disabled_mask = disabled_mask,
		.qos_limit_ns = UINT64_MAX,
		.exit_latency_ns = { 1 * US, 100 * US, 1000 * US },
		.target_residency_ns = { 1 * US, 1000 * US, 10000 * US },
	};
	return p;
}

/* A topology tree for session_opts.groups: nr levels, level i named
 * names[i] with groups lists[i] ("0-1;2-3": groups split by ';'). Aborts
 * the test program on a bad spec. */
static inline void replay_tree(struct groups *g, int nr_cpus, int nr, const char *const *names,
			       const char *const *lists)
{
	struct group_level lv[IS_MAX_LEVELS];
	char err[256];

	memset(lv, 0, sizeof(lv));
	for (int i = 0; i < nr; i++) {
		char *copy = strdup(lists[i]), *save = NULL;

		snprintf(lv[i].name, sizeof(lv[i].name), "%s", names[i]);
		lv[i].cpus = calloc(4096, sizeof(*lv[i].cpus));
		for (char *p = strtok_r(copy, ";", &save); p; p = strtok_r(NULL, ";", &save))
			if (cpulist_parse(p, &lv[i].cpus[lv[i].nr++], err, sizeof(err)))
				abort();
		free(copy);
	}
	if (groups_assemble(lv, nr, false, nr_cpus, g, err, sizeof(err))) {
		fprintf(stderr, "replay_tree: %s\n", err);
		abort();
	}
}

/* 2 clusters x 2 CPUs: {0,1} and {2,3}. */
static inline void replay_2x2_groups(struct groups *g)
{
	replay_tree(g, 4, 1, (const char *const[]){ "cluster" }, (const char *const[]){ "0-1;2-3" });
}

/* A session plus what it read, for cmocka group fixtures. */
struct replay_fixture {
	struct idle_session s;
	struct idle_raw raw;
};

static inline int replay_fixture_teardown(void **state)
{
	struct replay_fixture *f = *state;

	idle_raw_free(&f->raw);
	idle_session_close(&f->s);
	return 0;
}

#endif
