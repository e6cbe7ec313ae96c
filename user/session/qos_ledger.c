/* The PM QoS ledger (qos_ledger.h). */
#include "session/qos_ledger.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void qos_ledger_init(struct qos_ledger *l)
{
	memset(l, 0, sizeof(*l));
	l->next_slot = 1;
}

/* A row for a new holding; NULL (counted) when the table is full of rows
 * to keep. Rows that never limited anything and are closed are reused:
 * readers of /dev/cpu_dma_latency (an open adds a request at the default)
 * leave no trace. */
static struct qos_entry *new_row(struct qos_ledger *l)
{
	struct qos_entry *e = NULL;

	for (int i = 0; i < l->nr && !e; i++)
		if (!l->e[i].open && !l->e[i].limited)
			e = &l->e[i];
	if (!e && l->nr < QOS_LEDGER_ROWS)
		e = &l->e[l->nr++];
	if (!e) {
		l->dropped++;
		return NULL;
	}
	memset(e, 0, sizeof(*e));
	e->cpu = -1;
	e->open = true;
	return e;
}

static bool limits(const struct qos_entry *e)
{
	int64_t none = e->scope == QOS_SCOPE_RESUME ? QOS_RESUME_NONE_US : QOS_CPU_LATENCY_NONE_US;

	return e->value_us >= 0 && e->value_us < none;
}

static void set_value(struct qos_entry *e, int64_t us, uint64_t ts)
{
	e->changes += limits(e) && e->value_us != us;
	e->value_us = us;
	e->since_ns = ts;
	if (limits(e) && !e->limited)
		e->first_ns = ts;
	e->limited |= limits(e);
}

void qos_ledger_seed_holder(struct qos_ledger *l, int pid, const char *comm, int requests)
{
	struct qos_entry *e = new_row(l);

	if (!e)
		return;
	e->scope = QOS_SCOPE_CPU_LATENCY;
	e->pid = pid;
	snprintf(e->comm, sizeof(e->comm), "%s", comm ? comm : "");
	e->requests = requests > 0 ? requests : 1;
	e->value_us = -1;
	e->before = true;
	/* listed: it holds a request whose value no one can read back */
	e->limited = true;
}

/* ns as sysfs shows it back to the request's us */
static int64_t resume_us(uint64_t ns)
{
	return ns == UINT64_MAX ? QOS_RESUME_NONE_US : (int64_t)(ns / 1000);
}

void qos_ledger_seed_resume(struct qos_ledger *l, int cpu, uint64_t limit_ns)
{
	struct qos_entry *e;

	if (limit_ns == UINT64_MAX || !(e = new_row(l)))
		return;
	e->scope = QOS_SCOPE_RESUME;
	e->cpu = cpu;
	e->value_us = resume_us(limit_ns);
	e->before = true;
	e->limited = true;
}

void qos_ledger_seeded(struct qos_ledger *l, uint64_t global_ns)
{
	struct qos_entry *only = NULL;
	int n = 0;

	for (int i = 0; i < l->nr; i++) {
		struct qos_entry *e = &l->e[i];

		if (e->scope != QOS_SCOPE_CPU_LATENCY || !e->before || !e->open)
			continue;
		if (global_ns == UINT64_MAX) {
			/* nobody limits: all at the default, listed once they write */
			e->value_us = QOS_CPU_LATENCY_NONE_US;
			e->limited = false;
		}
		only = e;
		n++;
	}
	if (n == 1 && global_ns != UINT64_MAX && only->requests == 1)
		only->value_us = (int64_t)(global_ns / 1000);
}

/* The open CPU latency holding of tgid, or NULL. */
static struct qos_entry *holding_of(struct qos_ledger *l, uint32_t tgid)
{
	for (int i = 0; i < l->nr; i++)
		if (l->e[i].open && l->e[i].scope == QOS_SCOPE_CPU_LATENCY &&
		    l->e[i].pid == (int)tgid)
			return &l->e[i];
	return NULL;
}

static void close_row(struct qos_entry *e, uint64_t ts)
{
	e->open = false;
	e->requests = 0;
	e->until_ns = ts;
}

static void cpu_latency(struct qos_ledger *l, const struct qos_event *ev)
{
	struct qos_entry *e = holding_of(l, ev->tgid);
	/* PM_QOS_DEFAULT_VALUE (-1), what an open adds and every remove
	 * carries, is the default: no limit */
	int64_t value = ev->value < 0 ? QOS_CPU_LATENCY_NONE_US : ev->value;

	if (ev->action == QOS_REMOVE) {
		if (!e) {
			l->unmatched++;
			return;
		}
		if (--e->requests <= 0)
			close_row(e, ev->ts_ns);
		return;
	}
	if (!e) {
		if (!(e = new_row(l)))
			return;
		e->scope = QOS_SCOPE_CPU_LATENCY;
		e->pid = (int)ev->tgid;
		/* an update of a request this ledger did not see added: made
		 * before it began (a kernel driver's, or a process's) */
		e->before = ev->action == QOS_UPDATE;
		e->requests = ev->action == QOS_UPDATE;
		e->value_us = QOS_CPU_LATENCY_NONE_US;
	}
	memcpy(e->comm, ev->comm, sizeof(e->comm));
	e->comm[sizeof(e->comm) - 1] = '\0';
	if (ev->action == QOS_ADD && e->requests++ && value >= QOS_CPU_LATENCY_NONE_US)
		return; /* another descriptor opened: nothing written to it yet */
	/* a process with several requests: the last value written stands for
	 * them (the kernel's records carry no request) */
	set_value(e, value, ev->ts_ns);
}

/* "cpu12" -> 12, -1 for anything else */
static int dev_cpu(const char *dev, size_t len)
{
	char buf[16];
	char *end;
	long c;

	if (len >= sizeof(buf))
		len = sizeof(buf) - 1;
	memcpy(buf, dev, len);
	buf[len] = '\0';
	if (strncmp(buf, "cpu", 3) || buf[3] < '0' || buf[3] > '9')
		return -1;
	c = strtol(buf + 3, &end, 10);
	return *end || c > 1 << 20 ? -1 : (int)c;
}

/* A resume-latency write replaces the CPU's limit: the old row closes, a
 * row for the new value opens (the writer is usually gone at once). */
static void resume(struct qos_ledger *l, const struct qos_event *ev)
{
	int cpu = dev_cpu(ev->dev, sizeof(ev->dev));
	struct qos_entry *e;

	if (cpu < 0)
		return;
	for (int i = 0; i < l->nr; i++)
		if (l->e[i].open && l->e[i].scope == QOS_SCOPE_RESUME && l->e[i].cpu == cpu)
			close_row(&l->e[i], ev->ts_ns);
	if (ev->action == QOS_REMOVE || ev->value < 0 || ev->value >= QOS_RESUME_NONE_US)
		return;
	if (!(e = new_row(l)))
		return;
	e->scope = QOS_SCOPE_RESUME;
	e->cpu = cpu;
	e->pid = (int)ev->tgid;
	memcpy(e->comm, ev->comm, sizeof(e->comm));
	e->comm[sizeof(e->comm) - 1] = '\0';
	e->value_us = -1;
	set_value(e, ev->value, ev->ts_ns);
}

void qos_ledger_apply(struct qos_ledger *l, const struct qos_event *ev)
{
	if (ev->what != QOS_NOTIFY_REQUEST)
		return;
	l->events = true;
	if (ev->scope == QOS_SCOPE_CPU_LATENCY)
		cpu_latency(l, ev);
	else if (ev->scope == QOS_SCOPE_RESUME)
		resume(l, ev);
}

static uint32_t slot_of(struct qos_ledger *l, struct qos_entry *e)
{
	if (!e->slot) {
		if (l->next_slot >= QOS_SLOTS) {
			l->unslotted++;
			e->slot = UINT32_MAX; /* counted once; charged to slot 0 */
		} else {
			e->slot = l->next_slot++;
		}
	}
	return e->slot == UINT32_MAX ? 0 : e->slot;
}

uint32_t qos_ledger_slot(struct qos_ledger *l, int cpu, uint64_t global_ns, uint64_t dev_ns)
{
	bool device = dev_ns < global_ns;
	uint64_t limit = device ? dev_ns : global_ns;
	struct qos_entry *best = NULL;

	if (limit == UINT64_MAX)
		return 0;
	for (int i = 0; i < l->nr; i++) {
		struct qos_entry *e = &l->e[i];

		if (!e->open || e->value_us < 0 || (uint64_t)e->value_us * 1000 != limit)
			continue;
		if (device ? e->scope != QOS_SCOPE_RESUME || e->cpu != cpu
			   : e->scope != QOS_SCOPE_CPU_LATENCY)
			continue;
		if (!best || e->since_ns < best->since_ns)
			best = e;
	}
	return best ? slot_of(l, best) : 0;
}
