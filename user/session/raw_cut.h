/* A live read as at one instant, the reader's cut: BPF keeps each CPU's
 * state at the cut and counts the ends after it apart (bpf/idle.bpf.h), so
 * CPUs and groups read milliseconds apart still agree with each other. */
#ifndef IDLESCOPE_RAW_CUT_H
#define IDLESCOPE_RAW_CUT_H

#include <stdint.h>

#include "session/snapshot.h"

/* Turns r, read after cut_ns was set and had passed, into the maps as they
 * were at cut_ns: each CPU's per-state time less the periods that ended
 * after it, its slot's period in flight as at the cut; each group's
 * all-idle time likewise, and its slot (all idle, since when, state) from
 * its members' slots at the cut, as the word would have had it. read_ns
 * becomes cut_ns. Other counters stay as read. */
void idle_raw_at_cut(struct idle_raw *r, uint64_t cut_ns);

/* idle_session_read as at one instant: a cut set just ahead, passed, then
 * the read turned to it. The CPUs' and groups' idle times and periods in
 * flight agree however long the read takes; read_ns is the cut. For top.
 * next_cut (0: none), a time after the read, is set as the next read's cut
 * at once: a reader on a fixed tick that passes its next tick here reads
 * then without the lead's wait, and so wakes once per tick. */
int idle_session_read_cut(struct idle_session *s, struct idle_raw *out, uint64_t next_cut);

#endif
