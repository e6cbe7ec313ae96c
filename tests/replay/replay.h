/* What every replay test needs: time units and one call to send an event
 * through the real BPF handlers (asserting the program accepted it). */
#ifndef IDLESCOPE_REPLAY_H
#define IDLESCOPE_REPLAY_H

#include <stdint.h>
#include <string.h>

#include "idle_loader.h"

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
	replay_send(s, (struct replay_event){ .kind = REPLAY_IDLE, .cpu = cpu, .now_ns = now_ns,
					      .state = state });
}

/* A task name as two u64 context words. */
static inline void replay_comm(const char *comm, __u64 *lo, __u64 *hi)
{
	char buf[16] = { 0 };

	strncpy(buf, comm, sizeof(buf) - 1);
	memcpy(lo, buf, 8);
	memcpy(hi, buf + 8, 8);
}

#endif
