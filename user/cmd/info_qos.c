/* info's PM QoS lines (info_qos.h). */
#include "cmd/info_qos.h"

#include <stdlib.h>
#include <string.h>

/* The deepest enabled state whose exit latency the limit allows, the way
 * the governors pick (cpuidle_governor_latency_req); state 0 when none. */
static const char *deepest_allowed(const struct cpuidle_cpu_info *ci, uint64_t limit_ns)
{
	int d = 0;

	if (!ci->nr_states)
		return "";
	for (int i = 0; i < ci->nr_states; i++)
		if (!ci->states[i].disabled && ci->states[i].exit_latency_ns <= limit_ns)
			d = i;
	return ci->states[d].name;
}

int info_qos_gather(struct info_qos_data *d, int nr_possible, const struct cpuidle_cpu_info *cpu0,
		    const char *governor)
{
	struct haltpoll_params hp;
	struct info_qos *v = &d->view;

	memset(d, 0, sizeof(*d));
	v->limit_ns = cpuidle_global_qos_ns();
	v->deepest = v->limit_ns == UINT64_MAX ? "" : deepest_allowed(cpu0, v->limit_ns);
	if (qos_holders_scan("/proc", &d->holders))
		memset(&d->holders, 0, sizeof(d->holders)); /* no /proc: none listed */
	d->rows = calloc((size_t)d->holders.nr + 1, sizeof(*d->rows));
	d->cpus = calloc((size_t)nr_possible + 1, sizeof(*d->cpus));
	if (!d->rows || !d->cpus) {
		info_qos_free(d);
		return -1;
	}
	for (int i = 0; i < d->holders.nr; i++)
		d->rows[i] = (struct info_qos_holder){ .pid = d->holders.h[i].pid,
						       .comm = d->holders.h[i].comm,
						       .requests = d->holders.h[i].fds };
	v->nr_holders = d->holders.nr;
	v->holders = d->rows;
	v->unlisted = d->holders.unreadable;
	for (int c = 0; c < nr_possible; c++) {
		uint64_t ns = cpuidle_dev_qos_ns(c);

		if (ns != UINT64_MAX)
			d->cpus[v->nr_cpus++] = (struct info_qos_cpu){ .cpu = c, .limit_ns = ns };
	}
	v->cpus = d->cpus;
	haltpoll_params_read(&hp);
	v->haltpoll = hp.present;
	v->haltpoll_in_use = hp.present && !strcmp(governor, "haltpoll");
	v->poll_ns = hp.poll_ns;
	v->grow = hp.grow;
	v->grow_start = hp.grow_start;
	v->shrink = hp.shrink;
	v->allow_shrink = hp.allow_shrink;
	return 0;
}

void info_qos_free(struct info_qos_data *d)
{
	qos_holders_free(&d->holders);
	free(d->rows);
	free(d->cpus);
	d->rows = NULL;
	d->cpus = NULL;
}
