/* Text trace parser for `idlescope replay`: event lines shared by trace-cmd
 * report and ftrace, and idlestat's header (topology, idle-state names and
 * target residencies). Works on a copy of each line, so the input buffer
 * needs no terminator and may hold anything. */
#include "replay/trace_parse.h"
#include "replay/trace_idle_task.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINE_MAX_LEN 4096
#define MAX_CPU 4095 /* IS_MAX_CPUS - 1 */

const char *trace_format_name(enum trace_format f)
{
	switch (f) {
	case TF_TRACE_CMD:
		return "trace-cmd report";
	case TF_FTRACE:
		return "ftrace";
	case TF_IDLESTAT:
		return "idlestat";
	case TF_TRACE_DAT:
		return "trace-cmd trace.dat";
	default:
		return "unknown";
	}
}

/* Unsigned decimal at *p; advances *p. Returns 0, or -1 without digits or
 * on overflow. */
static int parse_u64(const char **p, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;

	if (!isdigit((unsigned char)*s))
		return -1;
	while (isdigit((unsigned char)*s)) {
		unsigned d = (unsigned)(*s - '0');

		if (v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
		s++;
	}
	*p = s;
	*out = v;
	return 0;
}

/* A pointer as ftrace prints it ("%p": hex, hashed, optional 0x). */
static int parse_hex(const char *p, uint64_t *out)
{
	uint64_t v = 0;
	int n = 0;

	if (p[0] == '0' && p[1] == 'x')
		p += 2;
	for (; isxdigit((unsigned char)*p); p++, n++) {
		if (n == 16)
			return -1;
		v = v * 16 + (uint64_t)(isdigit((unsigned char)*p) ? *p - '0'
								 : tolower((unsigned char)*p) - 'a' + 10);
	}
	if (!n || (*p && *p != ' ' && *p != '\t'))
		return -1;
	*out = v;
	return 0;
}

/* "SEC.FRAC" (1 to 9 fraction digits) to ns, exactly. */
static int parse_ts(const char **p, uint64_t *ns)
{
	const char *s = *p;
	uint64_t sec, frac = 0;
	int digits = 0;

	if (parse_u64(&s, &sec) || *s != '.' || sec > 10000000000ULL)
		return -1;
	s++;
	while (isdigit((unsigned char)*s)) {
		if (digits == 9)
			return -1;
		frac = frac * 10 + (uint64_t)(*s - '0');
		digits++;
		s++;
	}
	if (!digits)
		return -1;
	while (digits++ < 9)
		frac *= 10;
	*ns = sec * 1000000000ULL + frac;
	*p = s;
	return 0;
}

/* The value after " key=" (or at the start) in args, NULL when absent. */
static const char *arg_find(const char *args, const char *key)
{
	size_t k = strlen(key);

	for (const char *p = args; (p = strstr(p, key)); p++)
		if ((p == args || p[-1] == ' ' || p[-1] == '\t') && p[k] == '=')
			return p + k + 1;
	return NULL;
}

static int arg_u64(const char *args, const char *key, uint64_t *v)
{
	const char *p = arg_find(args, key);

	if (!p)
		return -1;
	if (!strncmp(p, "-1", 2) && (p[2] == '\0' || p[2] == ' ')) {
		*v = IS_PWR_EVENT_EXIT; /* some tools print the u32 exit state signed */
		return 0;
	}
	if (parse_u64(&p, v) || (*p && *p != ' ' && *p != '\t'))
		return -1;
	return 0;
}

static void arg_str(const char *args, const char *key, char *out, size_t len)
{
	const char *p = arg_find(args, key);
	size_t n = 0;

	if (p)
		while (p[n] && p[n] != ' ' && p[n] != '\t' && n + 1 < len)
			n++;
	if (len) {
		if (p)
			memcpy(out, p, n);
		out[n] = '\0';
	}
}

/* arm64 ipi_entry: "(Rescheduling interrupts)" -> the x86-style kind. */
enum replay_kind trace_ipi_reason(const char *args)
{
	if (strstr(args, "Rescheduling"))
		return RE_RESCHED;
	if (strstr(args, "Single function call"))
		return RE_CALL_SINGLE;
	if (strstr(args, "Function call"))
		return RE_CALL;
	if (strstr(args, "IRQ work"))
		return RE_IRQ_WORK;
	if (strstr(args, "Timer broadcast"))
		return RE_LOCAL_TIMER;
	return RE_OTHER_VECTOR;
}

static const struct {
	const char *name;
	enum replay_kind kind;
} vectors[] = {
	{ "local_timer_entry", RE_LOCAL_TIMER },
	{ "reschedule_entry", RE_RESCHED },
	{ "call_function_entry", RE_CALL },
	{ "call_function_single_entry", RE_CALL_SINGLE },
	{ "irq_work_entry", RE_IRQ_WORK },
	{ "x86_platform_ipi_entry", RE_OTHER_VECTOR },
	{ "thermal_apic_entry", RE_OTHER_VECTOR },
};

enum replay_kind trace_vector_kind(const char *name)
{
	for (size_t i = 0; i < sizeof(vectors) / sizeof(vectors[0]); i++)
		if (!strcmp(name, vectors[i].name))
			return vectors[i].kind;
	return 0;
}

/* trace-cmd's sched plugin prints sched_wakeup as "COMM:PID [PRIO] CPU:NNN"
 * (the comm may hold spaces and colons: parse from the right). */
static int wakeup_plugin_format(const char *args, struct replay_event *re)
{
	const char *br = strrchr(args, '['), *colon, *cpu = strstr(args, "CPU:");
	uint64_t v;
	size_t n;

	if (!br || br == args || br[-1] != ' ' || !cpu || cpu < br)
		return -1;
	cpu += 4;
	if (parse_u64(&cpu, &v) || v > MAX_CPU)
		return -1;
	re->cpu = (uint32_t)v;
	for (colon = br - 1; colon > args && *colon != ':'; colon--)
		;
	if (*colon != ':' || colon == args)
		return -1;
	{
		const char *p = colon + 1;

		if (parse_u64(&p, &v) || p != br - 1)
			return -1;
		re->task.pid = (uint32_t)v; /* the handlers take a u32 */
	}
	n = (size_t)(colon - args);
	memset(re->task.comm, 0, sizeof(re->task.comm));
	memcpy(re->task.comm, args, n < sizeof(re->task.comm) - 1 ? n : sizeof(re->task.comm) - 1);
	return 1;
}

/* The pid of "COMM:PID [PRIO]" ending at end (the comm may hold colons). */
static int plugin_pid(const char *s, const char *end, uint32_t *pid)
{
	const char *br = end, *colon, *p;
	uint64_t v;

	while (br > s && *br != '[')
		br--;
	if (*br != '[' || br == s || br[-1] != ' ')
		return -1;
	for (colon = br - 1; colon > s && *colon != ':'; colon--)
		;
	p = colon + 1;
	if (*colon != ':' || parse_u64(&p, &v) || p != br - 1 || v > UINT32_MAX)
		return -1;
	*pid = (uint32_t)v;
	return 0;
}

/* trace-cmd's sched plugin prints sched_switch as "PREV:PID [PRIO] STATE ==>
 * NEXT:PID [PRIO]". Always 0 (not replayed); re->kind RE_SWITCH when read. */
static int switch_plugin_format(const char *args, struct replay_event *re)
{
	const char *arrow = strstr(args, " ==> ");
	uint32_t prev, next;

	if (!arrow || plugin_pid(args, arrow, &prev) ||
	    plugin_pid(arrow + 5, arrow + strlen(arrow), &next))
		return 0;
	re->kind = RE_SWITCH;
	re->sw.prev_pid = prev;
	re->sw.next_pid = next;
	return 0;
}

static int field_cpu(const struct trace_fields *f, const char *key, uint32_t *cpu)
{
	uint64_t v;

	if (f->num(f->ctx, key, &v) || v > MAX_CPU)
		return -1;
	*cpu = (uint32_t)v;
	return 0;
}

int trace_decode(const char *name, const struct trace_fields *f, uint32_t on_cpu,
		 struct replay_event *re)
{
	uint64_t v;

	if (!strcmp(name, "cpu_idle") || !strcmp(name, "cpu_frequency")) {
		re->kind = name[4] == 'i' ? RE_IDLE : RE_FREQ;
		if (f->num(f->ctx, "state", &v) || field_cpu(f, "cpu_id", &re->cpu) ||
		    (re->kind == RE_FREQ && v > UINT32_MAX))
			return -1;
		if (re->kind == RE_IDLE)
			re->idle.state = v;
		else
			re->freq.khz = v;
		return 1;
	}
	if (!strcmp(name, "cpu_idle_miss")) {
		uint64_t below;

		re->kind = RE_IDLE_MISS;
		if (f->num(f->ctx, "state", &v) || field_cpu(f, "cpu_id", &re->cpu) ||
		    f->num(f->ctx, "below", &below))
			return -1;
		re->miss.state = v;
		re->miss.below = below != 0;
		return 1;
	}
	re->cpu = on_cpu;
	if (!strcmp(name, "irq_handler_entry")) {
		re->kind = RE_IRQ;
		if (f->num(f->ctx, "irq", &v) || v > UINT32_MAX)
			return -1;
		re->wake.detail = v;
		if (f->str(f->ctx, "name", re->wake.name, sizeof(re->wake.name)))
			re->wake.name[0] = '\0';
		return 1;
	}
	if (!strcmp(name, "softirq_entry")) {
		re->kind = RE_SOFTIRQ;
		if (f->num(f->ctx, "vec", &v) || v > 31)
			return -1;
		re->wake.detail = v;
		return 1;
	}
	if ((re->kind = trace_vector_kind(name))) {
		re->wake.detail = f->num(f->ctx, "vector", &v) ? 0 : v;
		return 1;
	}
	if (!strcmp(name, "ipi_entry")) {
		char reason[128];

		re->kind = trace_ipi_reason(f->str(f->ctx, "reason", reason, sizeof(reason)) ? ""
											  : reason);
		return 1;
	}
	if (!strcmp(name, "ipi_send_cpu") || !strcmp(name, "sched_wake_idle_without_ipi")) {
		/* on the sender: cpu = target, detail = sender */
		re->kind = name[0] == 'i' ? RE_IPI_SEND : RE_NO_IPI;
		re->wake.detail = on_cpu;
		return field_cpu(f, "cpu", &re->cpu) ? -1 : 1;
	}
	if (!strcmp(name, "hrtimer_start") || !strcmp(name, "hrtimer_expire_entry")) {
		int start = !strcmp(name, "hrtimer_start");
		uint64_t t, fn;

		re->kind = start ? RE_HRTIMER_START : RE_HRTIMER;
		if (f->num(f->ctx, "hrtimer", &t) || f->num(f->ctx, "function", &fn) ||
		    f->num(f->ctx, start ? "expires" : "now", &v))
			return -1;
		re->timer.hrtimer = t;
		if (start)
			re->timer.expires = v;
		else
			re->timer.now = v; /* the hrtimer clock's */
		return 1;
	}
	if (!strcmp(name, "sched_switch")) {
		uint64_t prev, next;

		/* not replayed; its idle-task time is kept (trace_idle_task.c) */
		if (!f->num(f->ctx, "prev_pid", &prev) && !f->num(f->ctx, "next_pid", &next) &&
		    prev <= UINT32_MAX && next <= UINT32_MAX) {
			re->kind = RE_SWITCH;
			re->sw.prev_pid = (uint32_t)prev;
			re->sw.next_pid = (uint32_t)next;
		}
		return 0;
	}
	if (!strcmp(name, "guest_halt_poll_ns")) {
		/* on the CPU whose poll limit moved (the haltpoll governor's reflect) */
		uint64_t grow, old;

		re->kind = RE_HALT_POLL;
		if (f->num(f->ctx, "grow", &grow) || f->num(f->ctx, "new", &v) ||
		    f->num(f->ctx, "old", &old) || v > UINT32_MAX || old > UINT32_MAX)
			return -1;
		re->halt.grow = grow != 0;
		re->halt.new_ns = v;
		re->halt.old_ns = old;
		return 1;
	}
	if (!strcmp(name, "sched_wakeup")) {
		re->kind = RE_SCHED_WAKEUP;
		re->task.waker_cpu = on_cpu;
		if (f->num(f->ctx, "pid", &v) || field_cpu(f, "target_cpu", &re->cpu) ||
		    f->str(f->ctx, "comm", re->task.comm, sizeof(re->task.comm)))
			return -1;
		re->task.pid = (uint32_t)v; /* the handlers take a u32 */
		return 1;
	}
	return 0;
}

/* A text line's arguments as fields: "key=value", in the spelling trace-cmd
 * report and ftrace print (a hashed %p, type=above|below, a comm that runs
 * to " pid="). */
static int text_num(const void *ctx, const char *key, uint64_t *v)
{
	const char *args = ctx, *p;

	if (!strcmp(key, "hrtimer"))
		return (p = arg_find(args, key)) ? parse_hex(p, v) : -1;
	if (!strcmp(key, "function")) {
		*v = 0; /* a name, not an address: the importer interns it */
		return arg_find(args, key) ? 0 : -1;
	}
	if (!strcmp(key, "below")) {
		char type[16];

		arg_str(args, "type", type, sizeof(type));
		if (strcmp(type, "above") && strcmp(type, "below"))
			return -1;
		*v = !strcmp(type, "below");
		return 0;
	}
	return arg_u64(args, key, v);
}

static int text_str(const void *ctx, const char *key, char *out, size_t len)
{
	const char *args = ctx;

	if (!strcmp(key, "comm")) {
		const char *c = arg_find(args, "comm"), *pid = strstr(args, " pid=");
		size_t n;

		if (!c || !pid || pid < c)
			return -1;
		n = (size_t)(pid - c) < len - 1 ? (size_t)(pid - c) : len - 1;
		memcpy(out, c, n);
		out[n] = '\0';
		return 0;
	}
	if (!strcmp(key, "reason")) {
		snprintf(out, len, "%s", args);
		return 0;
	}
	arg_str(args, key, out, len);
	return arg_find(args, key) ? 0 : -1;
}

/* power:guest_halt_poll_ns prints "halt_poll_ns NEW (grow|shrink OLD)"
 * (include/trace/events/power.h), not key=value. Returns 1, or -1 bad. */
static int halt_poll_text(const char *args, struct replay_event *re)
{
	const char *p = args;
	uint64_t new_ns, old_ns;
	bool grow;

	if (strncmp(p, "halt_poll_ns ", 13))
		return -1;
	p += 13;
	if (parse_u64(&p, &new_ns) || *p++ != ' ' || *p++ != '(')
		return -1;
	if (!strncmp(p, "grow ", 5))
		grow = true, p += 5;
	else if (!strncmp(p, "shrink ", 7))
		grow = false, p += 7;
	else
		return -1;
	if (parse_u64(&p, &old_ns) || *p != ')' || new_ns > UINT32_MAX || old_ns > UINT32_MAX)
		return -1;
	re->kind = RE_HALT_POLL;
	re->halt.grow = grow;
	re->halt.new_ns = new_ns;
	re->halt.old_ns = old_ns;
	return 1;
}

/* Fills re (zeroed, now_ns set) from a known event's args. Returns 1 used,
 * 0 not used, -1 bad. */
static int decode(const char *name, const char *args, uint32_t on_cpu, struct replay_event *re)
{
	const struct trace_fields f = { text_num, text_str, args };

	if (!strcmp(name, "sched_switch") && !arg_find(args, "prev_pid"))
		return switch_plugin_format(args, re);
	if (!strcmp(name, "guest_halt_poll_ns")) {
		re->cpu = on_cpu;
		return halt_poll_text(args, re);
	}
	if (!strcmp(name, "sched_wakeup") && !arg_find(args, "comm")) {
		re->kind = RE_SCHED_WAKEUP;
		re->task.waker_cpu = on_cpu;
		return wakeup_plugin_format(args, re);
	}
	return trace_decode(name, &f, on_cpu, re);
}

int trace_parse_line(const char *line, size_t len, struct trace_event *ev, char *name,
		     size_t namelen)
{
	char buf[LINE_MAX_LEN];
	const char *p, *q, *args;
	uint64_t cpu, ts;
	size_t n;

	if (namelen)
		name[0] = '\0';
	if (len >= sizeof(buf))
		return -1;
	memcpy(buf, line, len);
	buf[len] = '\0';
	/* "[CPU]" after the comm-pid: the first bracket that parses */
	for (p = buf; (p = strchr(p, '[')); p++) {
		q = p + 1;
		if (p == buf || (p[-1] != ' ' && p[-1] != '\t') || parse_u64(&q, &cpu) || *q != ']')
			continue;
		q++;
		while (*q == ' ' || *q == '\t')
			q++;
		/* optional irq-info flags ("d..2.") before the timestamp */
		if (parse_ts(&q, &ts) || *q != ':') {
			q += strcspn(q, " \t");
			while (*q == ' ' || *q == '\t')
				q++;
			if (parse_ts(&q, &ts) || *q != ':')
				continue;
		}
		q++;
		while (*q == ' ')
			q++;
		n = strcspn(q, ": \t");
		/* a bare name to the end is an event without arguments (the
		 * idlestat_start/idlestat_end markers of idlestat's scenarios) */
		if (!n || (q[n] != ':' && q[n] != '\0') || cpu > MAX_CPU)
			return -1;
		if (namelen)
			snprintf(name, namelen, "%.*s", (int)n, q);
		args = q[n] ? q + n + 1 : q + n;
		while (*args == ' ' || *args == '\t')
			args++;
		{
			char ename[64];

			snprintf(ename, sizeof(ename), "%.*s", (int)(n < 63 ? n : 63), q);
			memset(&ev->re, 0, sizeof(ev->re));
			ev->re.now_ns = ts;
			ev->src_cpu = (uint32_t)cpu;
			return decode(ename, args, (uint32_t)cpu, &ev->re);
		}
	}
	return -1;
}

/* The function name after " function=" in the line, without the "/0xSIZE"
 * that libtraceevent's %ps appends (trace-cmd report): "" when absent. */
static void line_fn(const char *line, size_t len, char *fn, size_t fnlen)
{
	char buf[LINE_MAX_LEN];
	const char *p;
	size_t n = 0;

	fn[0] = '\0';
	if (len >= sizeof(buf))
		return;
	memcpy(buf, line, len);
	buf[len] = '\0';
	p = strstr(buf, " function=");
	if (!p)
		return;
	p += 10;
	while (p[n] && p[n] != ' ' && p[n] != '\t' && n < fnlen - 1)
		n++;
	memcpy(fn, p, n);
	fn[n] = '\0';
	{
		char *size = strstr(fn, "/0x");

		if (size && size != fn && size[3 + strspn(size + 3, "0123456789abcdef")] == '\0')
			*size = '\0';
	}
}

uint32_t trace_data_fn(struct trace_data *d, const char *fn)
{
	size_t n = strlen(fn);

	if (!n)
		return 0;
	if (n > sizeof(d->fn_names[0]) - 1)
		n = sizeof(d->fn_names[0]) - 1;
	for (int i = 0; i < d->nr_fn_names; i++)
		if (!strncmp(d->fn_names[i], fn, n) && d->fn_names[i][n] == '\0')
			return (uint32_t)i + 1;
	if (d->nr_fn_names % 64 == 0) {
		char (*t)[48];

		if (d->nr_fn_names >= 65536)
			return 0;
		t = realloc(d->fn_names, sizeof(*t) * (size_t)(d->nr_fn_names + 64));
		if (!t)
			return 0;
		d->fn_names = t;
	}
	memcpy(d->fn_names[d->nr_fn_names], fn, n);
	d->fn_names[d->nr_fn_names][n] = '\0';
	return (uint32_t)++d->nr_fn_names;
}

static int push_event(struct trace_data *d, const struct trace_event *ev)
{
	if (d->nr_ev == d->cap_ev) {
		size_t cap = d->cap_ev ? 2 * d->cap_ev : 4096;
		struct trace_event *n = realloc(d->ev, cap * sizeof(*n));

		if (!n)
			return -1;
		d->ev = n;
		d->cap_ev = cap;
	}
	d->ev[d->nr_ev++] = *ev;
	return 0;
}

void trace_data_skip(struct trace_data *d, const char *name)
{
	d->skipped++;
	for (int i = 0; i < d->nr_skipped_names; i++)
		if (!strcmp(d->skipped_names[i].name, name)) {
			d->skipped_names[i].count++;
			return;
		}
	if (d->nr_skipped_names < TP_MAX_SKIPPED_NAMES) {
		snprintf(d->skipped_names[d->nr_skipped_names].name,
			 sizeof(d->skipped_names[0].name), "%s", name);
		d->skipped_names[d->nr_skipped_names++].count = 1;
	}
}

static void note_garbled(struct trace_data *d, uint32_t line)
{
	if (!d->garbled++)
		d->first_garbled_line = line;
}

static void note_irq_name(struct trace_data *d, uint32_t irq, const char *name)
{
	int i;

	if (!name[0])
		return;
	for (i = 0; i < d->nr_irq_names; i++)
		if (d->irq_names[i].irq == irq)
			return;
	if (i < TP_MAX_IRQ_NAMES) {
		d->irq_names[i].irq = irq;
		snprintf(d->irq_names[i].name, sizeof(d->irq_names[i].name), "%s", name);
		d->nr_irq_names++;
	}
}

int trace_data_gap(struct trace_data *d, uint32_t cpu)
{
	if (!d->gap_pending && !(d->gap_pending = calloc(MAX_CPU + 1, 1)))
		return -1;
	d->gap_pending[cpu <= MAX_CPU ? cpu : MAX_CPU] = TP_GAP_IDLE | TP_GAP_TASK;
	d->gap_marks = d->lost_events + d->drop_markers;
	return 0;
}

bool trace_data_gap_take(struct trace_data *d, uint32_t cpu, uint8_t which)
{
	uint8_t *p;

	if (!d->gap_pending)
		return false;
	p = &d->gap_pending[cpu <= MAX_CPU ? cpu : MAX_CPU];
	if (!(*p & which))
		return false;
	*p &= (uint8_t)~which;
	return true;
}

int trace_data_add(struct trace_data *d, struct trace_event *ev, int used, const char *name,
		   const char *fn)
{
	/* a binary record carries its buffer's lost count (trace_dat.c) */
	if (d->lost_events + d->drop_markers != d->gap_marks && trace_data_gap(d, ev->src_cpu))
		return -1;
	if (!d->have_ts || ev->re.now_ns < d->min_ts)
		d->min_ts = ev->re.now_ns;
	if (!d->have_ts || ev->re.now_ns > d->max_ts)
		d->max_ts = ev->re.now_ns;
	d->have_ts = true;
	if (!used) {
		trace_data_skip(d, name);
		if (ev->re.kind != RE_SWITCH)
			return 0;
		return trace_idle_task_switch(&d->idle_task, &d->idle_task_dropped, ev->src_cpu,
					      trace_data_gap_take(d, ev->src_cpu, TP_GAP_TASK), &ev->re);
	}
	if (ev->re.kind == RE_IDLE)
		d->idle_events++;
	if (ev->re.kind == RE_FREQ && !ev->re.freq.khz) {
		/* idlestat ends its files with frequency 0 on every CPU */
		trace_data_skip(d, "cpu_frequency state=0");
		return 0;
	}
	if (ev->re.kind == RE_HRTIMER_START || ev->re.kind == RE_HRTIMER)
		ev->re.timer.fn = fn ? trace_data_fn(d, fn) : 0;
	if (ev->re.kind == RE_IRQ)
		note_irq_name(d, (uint32_t)ev->re.wake.detail, ev->re.wake.name);
	if (ev->re.kind == RE_IDLE || ev->re.kind == RE_IDLE_MISS || ev->re.kind == RE_FREQ) {
		if (!d->last_ts && !(d->last_ts = calloc(MAX_CPU + 1, sizeof(*d->last_ts))))
			return -1;
		if (ev->re.now_ns < d->last_ts[ev->re.cpu])
			d->out_of_order++;
		d->last_ts[ev->re.cpu] = ev->re.now_ns;
	}
	if ((int)ev->re.cpu > d->max_cpu)
		d->max_cpu = (int)ev->re.cpu;
	if ((ev->gap = trace_data_gap_take(d, ev->src_cpu, TP_GAP_IDLE)))
		d->gaps++;
	return push_event(d, ev);
}

/* Cursor over the input's lines. */
struct cursor {
	const char *buf;
	size_t len, pos;
	uint32_t line;
};

static bool next_line(struct cursor *c, const char **s, size_t *n, bool *had_nl)
{
	const char *nl;

	if (c->pos >= c->len)
		return false;
	*s = c->buf + c->pos;
	nl = memchr(*s, '\n', c->len - c->pos);
	*n = nl ? (size_t)(nl - *s) : c->len - c->pos;
	*had_nl = nl != NULL;
	c->pos += *n + (nl ? 1 : 0);
	if (*n && (*s)[*n - 1] == '\r')
		(*n)--;
	c->line++;
	return true;
}

static bool starts(const char *s, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);

	return n >= k && !memcmp(s, prefix, k);
}

/* "%d" after prefix in s[0..n), 0 on success. */
static int int_after(const char *s, size_t n, const char *prefix, int *out)
{
	char tmp[64];
	const char *p;
	uint64_t v;

	if (!starts(s, n, prefix) || n - strlen(prefix) >= sizeof(tmp))
		return -1;
	memcpy(tmp, s + strlen(prefix), n - strlen(prefix));
	tmp[n - strlen(prefix)] = '\0';
	p = tmp;
	while (*p == ' ')
		p++;
	if (parse_u64(&p, &v) || v > MAX_CPU + 1)
		return -1;
	*out = (int)v;
	return 0;
}

static int idlestat_alloc(struct trace_data *d, int nr)
{
	d->nr_state_cpus = nr;
	d->nr_states = calloc((size_t)nr, sizeof(*d->nr_states));
	d->described = calloc((size_t)nr, sizeof(*d->described));
	d->cluster_of = malloc((size_t)nr * sizeof(*d->cluster_of));
	d->states = calloc((size_t)nr * IS_MAX_STATES, sizeof(*d->states));
	if (!d->nr_states || !d->described || !d->cluster_of || !d->states)
		return -1;
	for (int c = 0; c < nr; c++)
		d->cluster_of[c] = -1;
	return 0;
}

/* idlestat's scenario files write the header as comments ("# cpus=4"):
 * the text after "#" and one space; *commented says it was there. */
static void header_text(const char **s, size_t *n, bool *commented)
{
	*commented = *n && (*s)[0] == '#';
	if (!*commented)
		return;
	(*s)++;
	(*n)--;
	if (*n && (*s)[0] == ' ') {
		(*s)++;
		(*n)--;
	}
}

/* The next header line that is not blank, prefix taken off. */
static bool next_header_line(struct cursor *c, const char **s, size_t *n, bool *nl)
{
	bool commented;

	while (next_line(c, s, n, nl)) {
		header_text(s, n, &commented);
		if (*n)
			return true;
	}
	return false;
}

/* "-1" or an unsigned decimal, the whole of s[0..n). */
static int header_int(const char *s, size_t n, int64_t *out)
{
	char num[32];
	const char *p = num;
	bool neg = n && s[0] == '-';
	uint64_t v;

	if (neg) {
		s++;
		n--;
	}
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	if (!n || n >= sizeof(num))
		return -1;
	memcpy(num, s, n);
	num[n] = '\0';
	if (parse_u64(&p, &v) || *p || v > UINT64_MAX / 1000 || (neg && v != 1))
		return -1;
	*out = neg ? -1 : (int64_t)v;
	return 0;
}

/* idlestat's header: "idlestat version = X" (0.8) or "version = X" (0.4),
 * "cpus=N", the topology ("clusterA:", "\tcoreN", "\t\tcpuN" or "\tcpuN"),
 * then (0.8) per CPU "cpuid N:" and pairs of "\tNAME" / "\tRESIDENCY_US",
 * an unused slot "(null)" / "-1" (every slot on a host without a cpuidle
 * driver). Any line may carry a "# " prefix. Leaves the cursor on the first
 * trace line. */
static int parse_idlestat_header(struct cursor *c, struct trace_data *d, bool v08)
{
	const char *s, *ver;
	size_t n;
	size_t save_pos;
	uint32_t save_line;
	bool nl, commented;
	int cluster = -1, cpu = -1, slot = 0, v;

	next_header_line(c, &s, &n, &nl); /* the version line */
	ver = memmem(s, n, "version = ", 10);
	if (ver) {
		size_t k = 0, left = n - (size_t)(ver + 10 - s);

		/* printable ASCII only: it goes into the JSON */
		for (ver += 10; k < left && k < sizeof(d->version) - 1 &&
				(unsigned char)ver[k] > ' ' && (unsigned char)ver[k] < 127; k++)
			d->version[k] = ver[k];
		d->version[k] = '\0';
	}
	if (!next_header_line(c, &s, &n, &nl) || !nl || int_after(s, n, "cpus=", &v) || v < 1) {
		snprintf(d->error, sizeof(d->error), "line %u: idlestat header without cpus=N", c->line);
		return -1;
	}
	d->header_cpus = v;
	if (idlestat_alloc(d, v)) {
		snprintf(d->error, sizeof(d->error), "out of memory");
		return -1;
	}
	for (;;) {
		save_pos = c->pos;
		save_line = c->line;
		if (!next_line(c, &s, &n, &nl))
			break;
		header_text(&s, &n, &commented);
		if (!n)
			continue;
		if (!nl)
			goto cut; /* a number cut short would read as another */
		if (cpu < 0 && starts(s, n, "cluster") && n >= 9 && s[n - 1] == ':') {
			cluster = s[7] - 'A';
			if (cluster < 0 || cluster > 25)
				goto bad;
			if (cluster + 1 > d->nr_clusters)
				d->nr_clusters = cluster + 1;
			continue;
		}
		if (cpu < 0 && (starts(s, n, "\tcore") || starts(s, n, "\t\tcore")))
			continue;
		if (cpu < 0 && (!int_after(s, n, "\t\tcpu", &v) || !int_after(s, n, "\tcpu", &v))) {
			if (v >= d->nr_state_cpus || cluster < 0)
				goto bad;
			d->cluster_of[v] = cluster;
			continue;
		}
		if (starts(s, n, "cpuid ") && s[n - 1] == ':') {
			if (int_after(s, n - 1, "cpuid ", &v) || v >= d->nr_state_cpus)
				goto bad;
			cpu = v;
			slot = 0;
			d->have_states = true;
			d->described[cpu] = true;
			continue;
		}
		if (cpu >= 0 && starts(s, n, "\t")) {
			char name[64];
			const char *r;
			size_t rn;
			int64_t us;
			struct trace_state *st;

			/* a name line, then its residency line */
			while (n > 1 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
				n--;
			snprintf(name, sizeof(name), "%.*s", (int)(n - 1 < 63 ? n - 1 : 63), s + 1);
			if (!next_line(c, &r, &rn, &nl))
				goto cut;
			header_text(&r, &rn, &commented);
			if (!nl)
				goto cut;
			if (!starts(r, rn, "\t") || header_int(r + 1, rn - 1, &us))
				goto bad;
			if (slot >= IS_MAX_STATES) {
				slot++;
				if (strcmp(name, "(null)"))
					d->dropped_states++;
				continue;
			}
			st = &d->states[cpu * IS_MAX_STATES + slot++];
			if (!strcmp(name, "(null)")) {
				/* unused; named by index should a state follow it */
				snprintf(st->name, sizeof(st->name), "state%d", slot - 1);
				continue;
			}
			snprintf(st->name, sizeof(st->name), "%.31s", name);
			if (us < 0)
				d->unknown_residency++;
			st->target_residency_ns = us < 0 ? 0 : (uint64_t)us * 1000;
			d->nr_states[cpu] = slot;
			continue;
		}
		if (commented)
			continue; /* a comment inside the header */
		/* the first trace line */
		c->pos = save_pos;
		c->line = save_line;
		break;
	}
	if (v08 && !d->have_states) {
		snprintf(d->error, sizeof(d->error),
			 "line %u: idlestat header without idle-state tables (truncated?)", c->line);
		return -1;
	}
	return 0;
bad:
	snprintf(d->error, sizeof(d->error), "line %u: malformed idlestat header (truncated?)",
		 c->line);
	return -1;
cut:
	snprintf(d->error, sizeof(d->error), "line %u: the idlestat header is cut short", c->line);
	return -1;
}

/* idlestat 0.4 wrote "version = 0.4-rc1", which trace-cmd report also
 * starts with: idlestat's version is 0.x (trace-cmd's file versions are 6
 * and up), and its topology follows cpus=N. */
static bool idlestat_04(struct cursor peek, const char *s, size_t n)
{
	size_t k = strlen("version = ");
	int v;
	bool nl;

	if (n > k + 1 && !memcmp(s + k, "0.", 2))
		return true;
	if (!next_header_line(&peek, &s, &n, &nl) || int_after(s, n, "cpus=", &v) ||
	    !next_header_line(&peek, &s, &n, &nl))
		return false;
	return starts(s, n, "cluster") && s[n - 1] == ':';
}

/* ftrace's "# entries-in-buffer/entries-written: A/B": B > A when the ring
 * buffer overwrote its oldest events, so each CPU's events begin later than
 * the window may say. */
static void note_overwritten(struct trace_data *d, const char *s, size_t n)
{
	static const char key[] = "entries-in-buffer/entries-written:";
	const char *p = memmem(s, n, key, sizeof(key) - 1);
	unsigned long long a, b;
	char tmp[64];

	if (!p || (size_t)(s + n - p) >= sizeof(tmp))
		return;
	memcpy(tmp, p, (size_t)(s + n - p));
	tmp[s + n - p] = '\0';
	if (sscanf(tmp + sizeof(key) - 1, " %llu/%llu", &a, &b) == 2 && b > a)
		d->overwritten = b - a;
}

/* A "CPU:N [LOST ...]" or "CPU:N [... DROPPED]" marker: a gap in buffer N;
 * without a readable N, in the buffer of the next event (trace_data_add). */
static int marker_gap(struct trace_data *d, const char *s, size_t n)
{
	const char *p = memmem(s, n, "CPU:", 4);
	uint32_t cpu = 0;
	size_t k = 4;

	if (!p || p + k >= s + n || !isdigit((unsigned char)p[k]))
		return 0;
	for (; p + k < s + n && isdigit((unsigned char)p[k]) && cpu <= MAX_CPU; k++)
		cpu = cpu * 10 + (uint32_t)(p[k] - '0');
	return trace_data_gap(d, cpu);
}

int trace_parse_buffer(const char *buf, size_t len, struct trace_data *d)
{
	struct cursor c = { buf, len, 0, 0 };
	const char *s;
	size_t n;
	bool nl, header = true;

	memset(d, 0, sizeof(*d));
	d->max_cpu = -1;
	if (len >= 7 && !memcmp(buf, "\x17\x08\x44tracing", len < 10 ? len : 10)) {
		snprintf(d->error, sizeof(d->error),
			 "a binary trace-cmd trace.dat: convert it first with "
			 "'trace-cmd report -t -i FILE > FILE.txt'");
		return -1;
	}
	/* the format from the first non-blank line */
	{
		struct cursor peek = c;
		bool any;

		while ((any = next_line(&peek, &s, &n, &nl)) && !n)
			;
		if (!any) {
			snprintf(d->error, sizeof(d->error), "empty file");
			return -1;
		}
		size_t line_pos = (size_t)(s - buf);
		const char *h = s;
		size_t hn = n;
		bool commented, v08;

		header_text(&h, &hn, &commented);
		v08 = starts(h, hn, "idlestat version");
		if (!starts(s, n, "# tracer:") &&
		    (v08 || (starts(h, hn, "version = ") && idlestat_04(peek, h, hn)))) {
			d->format = TF_IDLESTAT;
			c = peek;
			c.pos = line_pos;
			c.line--;
			if (parse_idlestat_header(&c, d, v08))
				return -1;
		} else if (starts(s, n, "version = ") || starts(s, n, "cpus=")) {
			d->format = TF_TRACE_CMD;
		} else if (starts(s, n, "# tracer:")) {
			d->format = TF_FTRACE;
		}
	}
	while (next_line(&c, &s, &n, &nl)) {
		struct trace_event ev;
		char name[40], fn[48] = "";
		int r, v;

		d->lines++;
		if (n && s[0] == '#') {
			/* ftrace's "# entries-in-buffer/entries-written: A/B   #P:N":
			 * the traced CPU count, as trace-cmd's cpus=N */
			const char *p = memmem(s, n, "#P:", 3);

			if (header && p && !int_after(p, n - (size_t)(p - s), "#P:", &v) && v > 0)
				d->header_cpus = v;
			if (header)
				note_overwritten(d, s, n);
			continue;
		}
		if (!n)
			continue;
		if (!nl) {
			/* cut mid-line, its last number may be cut short too: not
			 * replayed, reported with its line number */
			d->truncated = true;
			d->truncated_line = c.line;
			note_garbled(d, c.line);
			continue;
		}
		if (header && (starts(s, n, "version = ") || starts(s, n, "cpus="))) {
			if (!int_after(s, n, "cpus=", &v) && v > 0)
				d->header_cpus = v;
			continue;
		}
		if (starts(s, n, "CPU ") && n < 64 && memmem(s, n, " is empty", 9))
			continue;
		if (memmem(s, n, "CPU:", 4) && memmem(s, n, "[EVENTS DROPPED]", 16)) {
			d->drop_markers++;
			if (marker_gap(d, s, n))
				goto oom;
			continue;
		}
		/* ftrace "[LOST n EVENTS]", trace-cmd "[n EVENTS DROPPED]" */
		if (memmem(s, n, "CPU:", 4) &&
		    (memmem(s, n, "[LOST ", 6) || memmem(s, n, " EVENTS DROPPED]", 16))) {
			const char *p = memmem(s, n, "[LOST ", 6);
			char num[24];
			size_t k = 0;

			if (p)
				p += 6;
			else if ((p = memchr(s, '[', n)))
				p++;
			else { /* " EVENTS DROPPED]" without its '[' */
				note_garbled(d, c.line);
				continue;
			}
			while (p + k < s + n && isdigit((unsigned char)p[k]) && k < sizeof(num) - 1)
				k++;
			memcpy(num, p, k);
			num[k] = '\0';
			d->lost_events += strtoull(num, NULL, 10);
			if (marker_gap(d, s, n))
				goto oom;
			continue;
		}
		r = trace_parse_line(s, n, &ev, name, sizeof(name));
		if (r < 0) {
			note_garbled(d, c.line);
			continue;
		}
		header = false;
		ev.line = c.line;
		if (r > 0 && (ev.re.kind == RE_HRTIMER_START || ev.re.kind == RE_HRTIMER))
			line_fn(s, n, fn, sizeof(fn));
		if (trace_data_add(d, &ev, r, name, fn))
			goto oom;
	}
	if (d->format == TF_UNKNOWN) {
		if (!d->nr_ev && !d->skipped) {
			snprintf(d->error, sizeof(d->error),
				 "no trace events found (expected trace-cmd report, ftrace or idlestat "
				 "text)");
			return -1;
		}
		d->format = TF_FTRACE;
	}
	if (!d->have_ts) {
		/* a 0 ns window would report every CPU 0% idle, 0% busy */
		snprintf(d->error, sizeof(d->error),
			 "no event lines (only header or comment lines): nothing to replay");
		return -1;
	}
	return 0;
oom:
	snprintf(d->error, sizeof(d->error), "out of memory at line %u", c.line);
	return -1;
}

static int ev_cmp(const void *a, const void *b)
{
	const struct trace_event *x = a, *y = b;

	if (x->re.now_ns != y->re.now_ns)
		return x->re.now_ns < y->re.now_ns ? -1 : 1;
	/* file order among equal timestamps (the line is unique per event) */
	return x->line < y->line ? -1 : x->line > y->line;
}

void trace_sort_events(struct trace_data *d)
{
	/* per logging CPU: the last timestamp and where its run began */
	uint64_t *last = calloc(MAX_CPU + 1, sizeof(*last)), *run = calloc(MAX_CPU + 1, sizeof(*run));
	uint64_t moved_max = 0;
	bool sorted = true;

	if (!last || !run) {
		free(last);
		free(run);
		qsort(d->ev, d->nr_ev, sizeof(*d->ev), ev_cmp); /* time order, stable by line */
		return;
	}
	for (size_t i = 0; i < d->nr_ev; i++) {
		struct trace_event *e = &d->ev[i];
		uint32_t c = e->src_cpu <= MAX_CPU ? e->src_cpu : MAX_CPU;

		if (last[c] && e->re.now_ns < last[c]) {
			if (e->re.now_ns >= run[c]) {
				/* back inside its own run: the clock, not the file,
				 * went back; keep the buffer's order */
				e->re.now_ns = last[c];
				d->held_back++;
			} else {
				run[c] = e->re.now_ns; /* a block from earlier */
			}
		}
		if (!last[c])
			run[c] = e->re.now_ns;
		last[c] = e->re.now_ns;
		if (i && e->re.now_ns < moved_max) {
			d->reordered++;
			sorted = false;
		}
		if (e->re.now_ns > moved_max)
			moved_max = e->re.now_ns;
	}
	free(last);
	free(run);
	if (!sorted)
		qsort(d->ev, d->nr_ev, sizeof(*d->ev), ev_cmp);
}

void trace_data_free(struct trace_data *d)
{
	free(d->ev);
	free(d->nr_states);
	free(d->described);
	free(d->states);
	free(d->cluster_of);
	free(d->fn_names);
	free(d->last_ts);
	free(d->gap_pending);
	free(d->idle_task);
	d->gap_pending = NULL;
	d->idle_task = NULL;
	d->last_ts = NULL;
	d->fn_names = NULL;
	d->nr_fn_names = 0;
	d->ev = NULL;
	d->nr_states = NULL;
	d->described = NULL;
	d->states = NULL;
	d->cluster_of = NULL;
	d->nr_ev = d->cap_ev = 0;
}
