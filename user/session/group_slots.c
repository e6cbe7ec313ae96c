/* Node slots from member slots (group_slots.h). */
#include "session/group_slots.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int group_slots_from_cpus(struct group_slot *gslots, int nr_groups,
			  const struct idle_cpu_slot *cpus, int nr_cpus, bool lazy_only)
{
	bool *idle = malloc((size_t)nr_groups * sizeof(*idle));
	uint64_t *since = calloc((size_t)nr_groups, sizeof(*since));
	uint32_t *state = malloc((size_t)nr_groups * sizeof(*state));

	if (!idle || !since || !state) {
		free(idle);
		free(since);
		free(state);
		return -1;
	}
	for (int g = 0; g < nr_groups; g++) {
		idle[g] = true;
		state[g] = UINT32_MAX;
	}
	for (int c = 0; c < nr_cpus; c++) {
		const struct idle_cpu_slot *sl = &cpus[c];
		int g = (int)sl->group_id1 - 1;

		if (g < 0 || g >= nr_groups)
			continue;
		if (!sl->enter_ns) {
			idle[g] = false;
			continue;
		}
		since[g] = sl->enter_ns > since[g] ? sl->enter_ns : since[g];
		state[g] = sl->state < state[g] ? sl->state : state[g];
	}
	for (int g = 0; g < nr_groups; g++) {
		struct group_slot *gs = &gslots[g];
		uint32_t last = gs->fields ? gs->fields - 1 : 0;
		int p = (int)gs->parent1 - 1;

		state[g] = state[g] < last ? state[g] : last;
		if (p > g && p < nr_groups) {
			idle[p] &= idle[g];
			since[p] = since[g] > since[p] ? since[g] : since[p];
			state[p] = state[g] < state[p] ? state[g] : state[p];
		}
		if (lazy_only && !gs->lazy)
			continue;
		gs->word = idle[g] ? gs->nr_children & 0xffff : 0;
		gs->idle_since = idle[g] ? since[g] : 0;
		gs->state = idle[g] ? state[g] : 0;
	}
	free(idle);
	free(since);
	free(state);
	return 0;
}

void group_stats_from_cpus(struct group_stats *dst, const struct group_slot *gs,
			   const struct group_stats *copies, int nr_cpus)
{
	uint32_t n = gs->nr_children < GROUP_LAZY_MAX ? gs->nr_children : GROUP_LAZY_MAX;

	memset(dst, 0, sizeof(*dst));
	for (uint32_t i = 0; i < n; i++) {
		const struct group_stats *c;

		if (gs->member[i] >= nr_cpus)
			continue;
		c = &copies[gs->member[i]];
		if (c->periods && (!dst->min_ns || (c->min_ns && c->min_ns < dst->min_ns)))
			dst->min_ns = c->min_ns;
		dst->max_ns = c->max_ns > dst->max_ns ? c->max_ns : dst->max_ns;
		dst->periods += c->periods;
		dst->time_ns += c->time_ns;
		dst->races += c->races;
		dst->folded += c->folded;
		for (int s = 0; s < IS_MAX_STATES; s++) {
			dst->state_periods[s] += c->state_periods[s];
			dst->state_time_ns[s] += c->state_time_ns[s];
		}
		for (int b = 0; b < IS_HIST_BUCKETS; b++)
			dst->hist[b] += c->hist[b];
		if (c->cut_epoch > dst->cut_epoch) {
			dst->cut_epoch = c->cut_epoch;
			dst->cut_time_ns = 0;
			memset(dst->cut_state_time_ns, 0, sizeof(dst->cut_state_time_ns));
		}
		if (c->cut_epoch && c->cut_epoch == dst->cut_epoch) {
			dst->cut_time_ns += c->cut_time_ns;
			for (int s = 0; s < IS_MAX_STATES; s++)
				dst->cut_state_time_ns[s] += c->cut_state_time_ns[s];
		}
	}
}
