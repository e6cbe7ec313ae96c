/* CPU hotplug during a window, from polls of the online mask. */
#include "sys/hotplug.h"

#include <stdlib.h>
#include <string.h>

#include "sys/sysfs.h"

int hotplug_begin(struct hotplug *h, int nr_cpus, uint64_t start, const struct cpulist *online)
{
	memset(h, 0, sizeof(*h));
	h->cpu = calloc((size_t)nr_cpus, sizeof(*h->cpu));
	if (!h->cpu)
		return -1;
	h->nr_cpus = nr_cpus;
	h->last_ns = start;
	h->ok = true;
	for (int c = 0; c < nr_cpus; c++)
		if (!cpulist_has(online, c)) {
			h->cpu[c].offline_since = start;
			h->cpu[c].offline_at_start = true;
		}
	return 0;
}

void hotplug_observe(struct hotplug *h, uint64_t now, const struct cpulist *online)
{
	/* the change happened some time since the last poll: split the difference */
	uint64_t at = h->last_ns + (now - h->last_ns) / 2;

	if (!h->ok || now < h->last_ns)
		return;
	for (int c = 0; c < h->nr_cpus; c++) {
		struct hotplug_cpu *p = &h->cpu[c];
		bool up = cpulist_has(online, c);

		if (!up && !p->offline_since) {
			p->offline_since = at;
			p->downs++;
		} else if (up && p->offline_since) {
			p->offline_ns += at - p->offline_since;
			p->offline_since = 0;
			p->ups++;
		}
	}
	h->last_ns = now;
}

uint64_t hotplug_offline_ns(const struct hotplug *h, int cpu, uint64_t stop)
{
	const struct hotplug_cpu *p;

	if (!h->ok || cpu < 0 || cpu >= h->nr_cpus)
		return 0;
	p = &h->cpu[cpu];
	return p->offline_ns + (p->offline_since && stop > p->offline_since ? stop - p->offline_since : 0);
}

uint32_t hotplug_periods(const struct hotplug *h, int cpu)
{
	if (!h->ok || cpu < 0 || cpu >= h->nr_cpus)
		return 0;
	return h->cpu[cpu].downs + (h->cpu[cpu].offline_at_start ? 1 : 0);
}

uint32_t hotplug_events(const struct hotplug *h, int cpu)
{
	if (!h->ok || cpu < 0 || cpu >= h->nr_cpus)
		return 0;
	return h->cpu[cpu].downs + h->cpu[cpu].ups;
}

void hotplug_free(struct hotplug *h)
{
	free(h->cpu);
	memset(h, 0, sizeof(*h));
}

int hotplug_read_online(struct cpulist *out)
{
	char buf[4096], err[128];

	if (sysfs_read_str(buf, sizeof(buf), "devices/system/cpu/online"))
		return -1;
	return cpulist_parse(buf, out, err, sizeof(err));
}

void hotplug_poll(struct hotplug *h, uint64_t now)
{
	struct cpulist online;

	if (h->ok && !hotplug_read_online(&online))
		hotplug_observe(h, now, &online);
}
