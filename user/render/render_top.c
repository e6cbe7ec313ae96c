/* `idlescope top` screens from one interval's summary: a title, wakeups by
 * cause, one table of CPUs and topology groups (busy %, share per idle
 * state, misses/s, wakeups/s by cause class) and the top wakers/wakees.
 * Columns that do not fit the width are dropped from the right; rows that
 * do not fit the height scroll. */
#include "render/render_top.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/units.h"
#include "model/wake_names.h"

/* Cause classes of the per-row columns (the title line has every kind). */
enum { CL_TIMER, CL_IRQ, CL_IPI, CL_POLL, CL_UNKNOWN, NR_CLASSES };
static const char *const class_head[NR_CLASSES] = { "timer", "irq", "ipi", "poll", "unkn" };

static int wake_class(int kind)
{
	switch (kind) {
	case WAKE_TIMER:
		return CL_TIMER;
	case WAKE_IRQ:
	case WAKE_SOFTIRQ:
		return CL_IRQ;
	case WAKE_NO_IPI:
	case WAKE_POLL_TIMEOUT:
		return CL_POLL;
	case WAKE_UNKNOWN:
		return CL_UNKNOWN;
	default:
		return CL_IPI;
	}
}

#define MAX_WIDTH 512
#define STATE_MIN_W 6 /* " 100.0" */
#define STATE_MAX_W 16
#define TOP_ROWS 5 /* wakers and wakees shown */

static int add_line(struct top_text *t, enum top_style style, int width, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int add_line(struct top_text *t, enum top_style style, int width, const char *fmt, ...)
{
	char buf[MAX_WIDTH + 1];
	va_list ap;

	if (t->nr == t->cap) {
		int cap = t->cap ? 2 * t->cap : 64;
		char **l = realloc(t->lines, (size_t)cap * sizeof(*l));
		enum top_style *s;

		if (!l)
			return -ENOMEM;
		t->lines = l;
		s = realloc(t->style, (size_t)cap * sizeof(*s));
		if (!s)
			return -ENOMEM;
		t->style = s;
		t->cap = cap;
	}
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (width >= 0 && width < (int)sizeof(buf))
		buf[width] = '\0';
	/* trailing blanks carry nothing and confuse a terminal's last column */
	for (size_t n = strlen(buf); n && buf[n - 1] == ' '; n--)
		buf[n - 1] = '\0';
	if (!(t->lines[t->nr] = strdup(buf)))
		return -ENOMEM;
	t->style[t->nr++] = style;
	return 0;
}

void top_text_free(struct top_text *t)
{
	for (int i = 0; i < t->nr; i++)
		free(t->lines[i]);
	free(t->lines);
	free(t->style);
	memset(t, 0, sizeof(*t));
}

/* Task and function names can hold anything; the screen gets ASCII. */
static void printable(char *dst, size_t len, const char *src)
{
	size_t i = 0;

	for (; src[i] && i + 1 < len; i++)
		dst[i] = isprint((unsigned char)src[i]) ? src[i] : '?';
	dst[i] = '\0';
}

static double pct(uint64_t part, double whole)
{
	double v = whole > 0 ? 100.0 * (double)part / whole : 0;

	return v > 100.0 ? 100.0 : v; /* a period ending while the maps are read */
}

/* Events per second in at most 6 characters. */
static const char *rate(char *buf, size_t len, double v)
{
	if (v < 9.95)
		snprintf(buf, len, "%.1f", v);
	else if (v < 99999.5)
		snprintf(buf, len, "%.0f", v);
	else if (v < 9999.5e3)
		snprintf(buf, len, "%.0fk", v / 1e3);
	else
		snprintf(buf, len, "%.0fM", v / 1e6);
	return buf;
}

/* One row's numbers, from a CPU, all CPUs, or a group and its members. */
struct row {
	char label[32];
	double busy;                  /* % */
	double share[IS_MAX_STATES];  /* % per column */
	bool have_share[IS_MAX_STATES];
	uint64_t above, below;
	uint64_t cls[NR_CLASSES], wake;
	bool classified;
};

struct columns {
	int label_w;
	int nr_states;        /* state columns shown */
	int state_w[IS_MAX_STATES];
	char state_head[IS_MAX_STATES][STATE_MAX_W + 1];
	bool truncated;       /* a state name was cut: print a legend */
	bool misses, wake;    /* above/s below/s, wake/s */
	int nr_classes;       /* cause class columns shown */
};

/* Column of totals state j for a state of a CPU (same index and name). */
static int state_col(const struct summary *s, int index, const char *name)
{
	for (int j = 0; j < s->totals.nr_states; j++)
		if (s->totals.states[j].index == index && !strcmp(s->totals.states[j].name, name))
			return j;
	return -1;
}

static void add_cpu(struct row *r, const struct summary *s, const struct cpu_summary *cs,
		    double window)
{
	for (int i = 0; i < cs->nr_states; i++) {
		const struct state_summary *st = &cs->states[i];
		int j = state_col(s, st->index, st->name);

		if (j >= 0) {
			r->share[j] += pct(st->time_ns, window);
			r->have_share[j] = true;
		}
		r->above += st->above;
		r->below += st->below;
		r->classified |= st->classified;
	}
	for (int k = 0; k < WAKE_NR_KINDS; k++) {
		r->cls[wake_class(k)] += cs->wake.count[k];
		r->wake += cs->wake.count[k];
	}
}

static void cpu_row(struct row *r, const struct summary *s, const struct cpu_summary *cs)
{
	double window = (double)s->duration_ns;

	memset(r, 0, sizeof(*r));
	snprintf(r->label, sizeof(r->label), "%d", cs->cpu);
	r->busy = pct(cs->busy_ns, window);
	add_cpu(r, s, cs, window);
}

static void all_row(struct row *r, const struct summary *s)
{
	double window = (double)s->duration_ns * (s->nr_cpus ? s->nr_cpus : 1);

	memset(r, 0, sizeof(*r));
	snprintf(r->label, sizeof(r->label), "all");
	r->busy = pct(s->totals.busy_ns, window);
	add_cpu(r, s, &s->totals, window);
}

/* A group: busy = at least one CPU not idle; shares by group state (the
 * shallowest member state); misses and wakeups summed over its CPUs. */
static void group_row(struct row *r, const struct summary *s, const struct group_summary *g)
{
	double window = (double)s->duration_ns;
	struct cpulist members;
	char err[64];

	memset(r, 0, sizeof(*r));
	snprintf(r->label, sizeof(r->label), "%s", g->name);
	r->busy = 100.0 - pct(g->time_ns + g->edge_idle_ns, window);
	for (int i = 0; i < g->nr_states; i++) {
		int j = state_col(s, g->states[i].index, g->states[i].name);

		if (j >= 0) {
			r->share[j] += pct(g->states[i].time_ns, window);
			r->have_share[j] = true;
		}
	}
	if (cpulist_parse(g->cpus, &members, err, sizeof(err)))
		return;
	for (int c = 0; c < s->nr_cpus; c++) {
		const struct cpu_summary *cs = &s->cpus[c];

		if (!cpulist_has(&members, cs->cpu))
			continue;
		for (int i = 0; i < cs->nr_states; i++) {
			r->above += cs->states[i].above;
			r->below += cs->states[i].below;
			r->classified |= cs->states[i].classified;
		}
		for (int k = 0; k < WAKE_NR_KINDS; k++) {
			r->cls[wake_class(k)] += cs->wake.count[k];
			r->wake += cs->wake.count[k];
		}
	}
}

/* Which columns fit: label, busy and the states first (state names cut to
 * STATE_MIN_W - 1 when the full names do not fit), then misses, the wakeup
 * total and the cause classes while there is room. */
static void fit_columns(struct columns *c, const struct summary *s, int width)
{
	const struct cpu_summary *t = &s->totals;
	int used, full = 0;

	memset(c, 0, sizeof(*c));
	c->label_w = 3; /* "CPU", "all"; busy% starts with a blank */
	for (int i = 0; i < s->nr_cpus; i++) {
		char num[16];

		if ((int)snprintf(num, sizeof(num), "%d", s->cpus[i].cpu) > c->label_w)
			c->label_w = (int)strlen(num);
	}
	for (int g = 0; g < s->nr_groups; g++)
		if ((int)strlen(s->groups[g].name) > c->label_w)
			c->label_w = (int)strlen(s->groups[g].name);
	if (c->label_w > 16)
		c->label_w = 16;
	used = c->label_w + 6; /* " busy%" */
	for (int j = 0; j < t->nr_states; j++) {
		int w = (int)strlen(t->states[j].name) + 1;

		c->state_w[j] = w < STATE_MIN_W ? STATE_MIN_W : w > STATE_MAX_W ? STATE_MAX_W : w;
		full += c->state_w[j];
	}
	/* everything does not fit: the state names shortened (with a legend)
	 * before a column is dropped */
	if (used + full + 16 + (s->wake_enabled ? 7 + 6 * NR_CLASSES : 0) > width) {
		for (int j = 0; j < t->nr_states; j++) {
			if (c->state_w[j] > STATE_MIN_W)
				c->truncated = true;
			c->state_w[j] = STATE_MIN_W;
		}
	}
	for (int j = 0; j < t->nr_states; j++) {
		if (used + c->state_w[j] > width)
			break;
		snprintf(c->state_head[j], sizeof(c->state_head[j]), "%.*s", c->state_w[j] - 1,
			 t->states[j].name);
		c->truncated |= strlen(t->states[j].name) > (size_t)c->state_w[j] - 1;
		used += c->state_w[j];
		c->nr_states = j + 1;
	}
	if ((c->misses = used + 16 <= width))
		used += 16;
	if (s->wake_enabled && (c->wake = used + 7 <= width)) {
		used += 7;
		while (c->nr_classes < NR_CLASSES && used + 6 <= width) {
			c->nr_classes++;
			used += 6;
		}
	}
}

static int header_line(struct top_text *t, const struct columns *c, int width)
{
	char buf[MAX_WIDTH + 1];
	int n = snprintf(buf, sizeof(buf), "%-*s busy%%", c->label_w, "CPU");

	for (int j = 0; j < c->nr_states && n < MAX_WIDTH; j++)
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, "%*s", c->state_w[j], c->state_head[j]);
	if (c->misses && n < MAX_WIDTH)
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, " above/s below/s");
	if (c->wake && n < MAX_WIDTH)
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, " wake/s");
	for (int k = 0; k < c->nr_classes && n < MAX_WIDTH; k++)
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, "%6s", class_head[k]);
	return add_line(t, TOP_HEAD, width, "%s", buf);
}

static int row_line(struct top_text *t, const struct columns *c, const struct row *r, double secs,
		    int width)
{
	char buf[MAX_WIDTH + 1], a[16], b[16];
	int n = snprintf(buf, sizeof(buf), "%-*.*s%6.1f", c->label_w, c->label_w, r->label, r->busy);

	for (int j = 0; j < c->nr_states && n < MAX_WIDTH; j++) {
		if (r->have_share[j])
			n += snprintf(buf + n, sizeof(buf) - (size_t)n, "%*.1f", c->state_w[j],
				      r->share[j]);
		else
			n += snprintf(buf + n, sizeof(buf) - (size_t)n, "%*s", c->state_w[j], "-");
	}
	if (c->misses && n < MAX_WIDTH) {
		if (r->classified)
			n += snprintf(buf + n, sizeof(buf) - (size_t)n, " %7s %7s",
				      rate(a, sizeof(a), (double)r->above / secs),
				      rate(b, sizeof(b), (double)r->below / secs));
		else
			n += snprintf(buf + n, sizeof(buf) - (size_t)n, " %7s %7s", "-", "-");
	}
	if (c->wake && n < MAX_WIDTH)
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, " %6s",
			      rate(a, sizeof(a), (double)r->wake / secs));
	for (int k = 0; k < c->nr_classes && n < MAX_WIDTH; k++)
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, "%6s",
			      rate(a, sizeof(a), (double)r->cls[k] / secs));
	return add_line(t, TOP_PLAIN, width, "%s", buf);
}

/* "wakeups/s 1234: timer 1000, ipi-resched 200, ..." (non-zero kinds, by rate). */
static int causes_line(struct top_text *t, const struct summary *s, double secs, int width)
{
	char buf[MAX_WIDTH + 1], r[16];
	int order[WAKE_NR_KINDS], n;
	const uint64_t *cnt = s->totals.wake.count;

	if (!s->wake_enabled)
		return add_line(t, TOP_PLAIN, width, "wakeups: off (--no-wakeups)");
	for (int k = 0; k < WAKE_NR_KINDS; k++)
		order[k] = k;
	for (int a = 0; a < WAKE_NR_KINDS; a++)
		for (int b = a + 1; b < WAKE_NR_KINDS; b++)
			if (cnt[order[b]] > cnt[order[a]]) {
				int x = order[a];

				order[a] = order[b];
				order[b] = x;
			}
	n = snprintf(buf, sizeof(buf), "wakeups/s %s:",
		     rate(r, sizeof(r), (double)s->totals.wake.total / secs));
	for (int i = 0; i < WAKE_NR_KINDS && cnt[order[i]] && n < MAX_WIDTH; i++)
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, "%s %s %s", i ? "," : "",
			      wake_kind_name(order[i]), rate(r, sizeof(r), (double)cnt[order[i]] / secs));
	if (!s->totals.wake.total)
		snprintf(buf + n, sizeof(buf) - (size_t)n, " none");
	return add_line(t, TOP_PLAIN, width, "%s", buf);
}

/* "exit cost (share of the CPUs' time): declared 0.42%, measured 0.61%
 * (80% of periods); early 1.2%" for the interval, where any is known. */
static int exit_line(struct top_text *t, const struct summary *s, int width)
{
	const struct exit_cost *e = &s->totals.exit;
	uint64_t all = s->duration_ns * (uint64_t)(s->nr_cpus ? s->nr_cpus : 1);
	char buf[MAX_WIDTH + 1];
	int n;

	if (!s->totals.entries || !(e->declared_known || e->measured_known || e->early_known))
		return 0;
	n = snprintf(buf, sizeof(buf), "exit cost (of the CPUs' time): declared ");
	n += e->declared_known ? snprintf(buf + n, sizeof(buf) - (size_t)n, "%.2f%%",
					  100 * exit_cost_share(e->declared_ns, all))
			       : snprintf(buf + n, sizeof(buf) - (size_t)n, "-");
	n += snprintf(buf + n, sizeof(buf) - (size_t)n, ", measured ");
	n += e->measured_known
		     ? snprintf(buf + n, sizeof(buf) - (size_t)n, "%.2f%% (%.0f%% of periods)",
				100 * exit_cost_share(e->measured_ns, all),
				100.0 * (double)e->measured_periods / (double)s->totals.entries)
		     : snprintf(buf + n, sizeof(buf) - (size_t)n, "-");
	if (e->early_known && n < MAX_WIDTH)
		snprintf(buf + n, sizeof(buf) - (size_t)n, "; early %.2f%%",
			 100 * exit_cost_share(e->early_ns, all));
	return add_line(t, TOP_PLAIN, width, "%s", buf);
}

/* "PM QoS: cyclictest[812] 0us (deepest POLL), forced 120/s; 1 more": the
 * request behind the lowest limit held now, and what the limits forced
 * shallower in the interval; no line when nothing limits idle. */
static int qos_line(struct top_text *t, const struct summary *s, double secs, int width)
{
	const struct summary_qos *q = &s->qos;
	const struct qos_row *low = NULL;
	uint64_t forced = q->other_periods;
	char buf[MAX_WIDTH + 1], r[16];
	int n, open = 0;

	for (int i = 0; i < q->nr; i++) {
		const struct qos_row *w = &q->rows[i];

		forced += w->forced_periods;
		if (!w->open)
			continue;
		open++;
		if (!low || (w->value_us >= 0 && (low->value_us < 0 || w->value_us < low->value_us)))
			low = w;
	}
	if (!low && !forced)
		return 0;
	n = snprintf(buf, sizeof(buf), "PM QoS:");
	if (low) {
		if (low->pid)
			n += snprintf(buf + n, sizeof(buf) - (size_t)n, " %s[%d]", low->comm, low->pid);
		else
			n += snprintf(buf + n, sizeof(buf) - (size_t)n, " (set before)");
		if (low->scope == QOS_SCOPE_RESUME && n < MAX_WIDTH)
			n += snprintf(buf + n, sizeof(buf) - (size_t)n, " cpu%d", low->cpu);
		if (n < MAX_WIDTH)
			n += low->value_us >= 0
				     ? snprintf(buf + n, sizeof(buf) - (size_t)n, " %lldus",
						(long long)low->value_us)
				     : snprintf(buf + n, sizeof(buf) - (size_t)n, " ?us");
		if (low->deepest >= 0 && n < MAX_WIDTH)
			n += snprintf(buf + n, sizeof(buf) - (size_t)n, " (deepest %s)",
				      low->deepest_name);
	}
	if (n < MAX_WIDTH)
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, "%s forced %s/s", low ? "," : "",
			      rate(r, sizeof(r), (double)forced / secs));
	if (open > 1 && n < MAX_WIDTH)
		snprintf(buf + n, sizeof(buf) - (size_t)n, "; %d more", open - 1);
	return add_line(t, TOP_PLAIN, width, "%s", buf);
}

static int legend_line(struct top_text *t, const struct summary *s, const struct columns *c,
		       int width)
{
	char buf[MAX_WIDTH + 1];
	int n = snprintf(buf, sizeof(buf), "states:");

	for (int j = 0; j < s->totals.nr_states && n < MAX_WIDTH; j++) {
		const char *name = s->totals.states[j].name;

		if (j >= c->nr_states)
			n += snprintf(buf + n, sizeof(buf) - (size_t)n, " %s (hidden: narrow terminal)",
				      name);
		else if (strcmp(c->state_head[j], name))
			n += snprintf(buf + n, sizeof(buf) - (size_t)n, " %s=%s", c->state_head[j], name);
	}
	return add_line(t, TOP_PLAIN, width, "%s", buf);
}

static bool is_waker(const struct wake_row *r)
{
	return r->kind == WDETAIL_IRQ || r->kind == WDETAIL_SOFTIRQ || r->kind == WDETAIL_TIMER_FN;
}

static void waker_text(char *buf, size_t len, const struct wake_row *r, double secs)
{
	char rt[16], name[64];
	const char *kind = r->kind == WDETAIL_IRQ ? "irq" : r->kind == WDETAIL_SOFTIRQ ? "softirq"
										      : "timer";

	printable(name, sizeof(name), r->name[0] ? r->name : "?");
	if (r->kind == WDETAIL_IRQ)
		snprintf(buf, len, "%6s cpu%d %s %llu %s", rate(rt, sizeof(rt), (double)r->count / secs),
			 r->cpu, kind, (unsigned long long)r->detail, name);
	else
		snprintf(buf, len, "%6s cpu%d %s %s", rate(rt, sizeof(rt), (double)r->count / secs),
			 r->cpu, kind, name);
}

static void wakee_text(char *buf, size_t len, const struct wake_row *r, double secs)
{
	char rt[16], name[64];

	printable(name, sizeof(name), r->name);
	snprintf(buf, len, "%6s cpu%d<-%u %s[%llu]", rate(rt, sizeof(rt), (double)r->count / secs),
		 r->cpu, r->aux, name, (unsigned long long)r->detail);
}

/* Wakers (timer functions, IRQs, softirqs that ended idle periods) and
 * wakees (tasks woken onto idle CPUs), side by side, max rows each. */
static int wakers_block(struct top_text *t, const struct summary *s, double secs, int max,
			int width)
{
	const struct wake_row *wr[TOP_ROWS], *we[TOP_ROWS];
	int nr = 0, ne = 0, half = width / 2 > 60 ? 60 : width / 2, err;

	for (int i = 0; i < s->nr_wake_rows; i++) {
		const struct wake_row *r = &s->wake_rows[i];

		if (is_waker(r) && nr < max && nr < TOP_ROWS)
			wr[nr++] = r;
		else if (r->kind == WDETAIL_WAKEE && ne < max && ne < TOP_ROWS)
			we[ne++] = r;
	}
	if ((err = add_line(t, TOP_HEAD, width, "%-*s%s", half, "TOP WAKERS (/s, ended idle)",
			    "TOP WAKEES (/s, cpu<-waker's cpu)")))
		return err;
	if (!nr && !ne)
		return add_line(t, TOP_PLAIN, width, "  none in this interval");
	for (int i = 0; i < nr || i < ne; i++) {
		char a[128] = "", b[128] = "";

		if (i < nr)
			waker_text(a, sizeof(a), wr[i], secs);
		if (i < ne)
			wakee_text(b, sizeof(b), we[i], secs);
		if ((err = add_line(t, TOP_PLAIN, width, "%-*.*s%s", half, half - 1, a, b)))
			return err;
	}
	return 0;
}

static int nr_wakers_lines(const struct summary *s)
{
	int nr = 0, ne = 0;

	for (int i = 0; i < s->nr_wake_rows; i++) {
		nr += is_waker(&s->wake_rows[i]);
		ne += s->wake_rows[i].kind == WDETAIL_WAKEE;
	}
	nr = nr > ne ? nr : ne;
	return nr > TOP_ROWS ? TOP_ROWS : nr ? nr : 1;
}

int render_top(const struct summary *s, const struct top_layout *l, struct top_text *t)
{
	int width = l->width > MAX_WIDTH ? MAX_WIDTH : l->width < 20 ? 20 : l->width;
	double secs = (double)s->duration_ns / 1e9;
	struct columns c;
	struct row r;
	char title[MAX_WIDTH + 1], dur[32];
	int err, body, rows = s->nr_cpus + s->nr_groups, wk = 0, fixed, n;
	bool explain;

	if (secs <= 0)
		secs = 1e-9;
	fit_columns(&c, s, width);
	n = snprintf(title, sizeof(title), "idlescope top: %s interval, %d CPU%s, cpuidle %s/%s",
		     fmt_ns(dur, sizeof(dur), s->duration_ns), s->nr_cpus, s->nr_cpus == 1 ? "" : "s",
		     s->sys.driver, s->sys.governor[0] ? s->sys.governor : "?");
	if (l->clock && l->height && n + 2 + (int)strlen(l->clock) <= width)
		snprintf(title + n, sizeof(title) - (size_t)n, "%*s", width - n, l->clock);
	else if (l->clock)
		snprintf(title + n, sizeof(title) - (size_t)n, "  %s", l->clock);
	if ((err = add_line(t, TOP_TITLE, width, "%s", title)) ||
	    (err = causes_line(t, s, secs, width)) || (err = exit_line(t, s, width)) ||
	    (err = qos_line(t, s, secs, width)))
		return err;
	if ((c.truncated || c.nr_states < s->totals.nr_states) &&
	    (err = legend_line(t, s, &c, width)))
		return err;
	/* the explanation line only when every row fits anyway */
	explain = !l->height || t->nr + 4 + rows + (l->footer ? 1 : 0) +
					(s->wake_enabled ? 2 + nr_wakers_lines(s) : 0) <= l->height;
	if (explain && (err = add_line(t, TOP_PLAIN, width, "%s%s",
				      c.misses ? "above/below: too deep/too shallow per s" : "",
				      c.misses && s->nr_groups ? "; a group is busy when a CPU is"
							       : "")))
		return err;
	if ((err = header_line(t, &c, width)))
		return err;
	all_row(&r, s);
	if ((err = row_line(t, &c, &r, secs, width)))
		return err;

	/* rows for the CPU/group table, then the wakers block if room */
	fixed = t->nr + (l->footer ? 1 : 0);
	if (s->wake_enabled)
		wk = 2 + nr_wakers_lines(s); /* blank, head, rows */
	if (!l->height) {
		body = rows;
	} else {
		int avail = l->height - fixed;

		if (avail < 1)
			avail = 1;
		body = rows < avail ? rows : avail;
		if (body + wk > avail) {
			int keep = avail - body; /* room left for the wakers */

			if (keep < 3 && avail - 3 >= (rows < 4 ? rows : 4)) {
				keep = 3; /* shrink the table to show the top waker */
				body = avail - 3;
			}
			wk = keep >= 3 ? keep : 0;
		}
	}
	t->nr_rows = rows;
	t->shown = body;
	t->scroll = l->scroll < 0 ? 0 : l->scroll > rows - body ? rows - body : l->scroll;
	for (int i = t->scroll; i < t->scroll + body; i++) {
		if (i < s->nr_cpus)
			cpu_row(&r, s, &s->cpus[i]);
		else
			group_row(&r, s, &s->groups[i - s->nr_cpus]);
		if ((err = row_line(t, &c, &r, secs, width)))
			return err;
	}
	if (wk && ((err = add_line(t, TOP_PLAIN, width, "%s", "")) ||
		   (err = wakers_block(t, s, secs, wk - 2, width))))
		return err;
	if (l->footer) {
		char more[64] = "";

		if (body < rows)
			snprintf(more, sizeof(more), "  rows %d-%d of %d (j/k, PgUp/PgDn)",
				 t->scroll + 1, t->scroll + body, rows);
		while (l->height && t->nr < l->height - 1)
			if ((err = add_line(t, TOP_PLAIN, width, "%s", "")))
				return err;
		if ((err = add_line(t, TOP_TITLE, width, "q quit%s", more)))
			return err;
	}
	/* a screen lower than the fixed lines: keep the top and the footer */
	while (l->height && t->nr > l->height) {
		int drop = l->footer ? t->nr - 2 : t->nr - 1;

		free(t->lines[drop]);
		memmove(&t->lines[drop], &t->lines[drop + 1], (size_t)(t->nr - drop - 1) * sizeof(char *));
		memmove(&t->style[drop], &t->style[drop + 1],
			(size_t)(t->nr - drop - 1) * sizeof(*t->style));
		t->nr--;
	}
	return 0;
}
