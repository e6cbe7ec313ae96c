/* `idlescope top`: the live session of `record`, read every interval and
 * shown as that interval's own summary (raw_delta.c), full screen on a
 * terminal (top_screen.c) or as one block of plain lines per interval. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cli.h"
#include "cmd/commands.h"
#include "sys/cpuidle_sysfs.h"
#include "sys/interrupts.h"
#include "sys/kallsyms.h"
#include "session/idle_loader.h"
#include "session/raw_cut.h"
#include "session/snapshot.h"
#include "util/clock.h"
#include "session/live.h"
#include "session/live_run.h"
#include "session/window.h"
#include "model/model.h"
#include "session/raw_delta.h"
#include "render/render_top.h"
#include "render/top_screen.h"
#include "sys/topology.h"
#include "util/units.h"

#define DEFAULT_INTERVAL_NS 1000000000ULL
#define LINE_WIDTH 512 /* plain lines: every column */

struct top {
	struct common_opts o; /* -d, -i, -C, -v: the shared vocabulary */
	bool wake;
	const char *topology;
	unsigned int without; /* --without: enum session_part bits */
	struct session_cli session_cli; /* session_argp's view of wake, topology and without */
	bool screen; /* full screen (stdin and stdout are terminals) */
	struct topology topo;
	struct cpulist sel;
	struct live live; /* tables, groups, BPF session (session/live.h) */
	struct cpuidle_counters *no_counters; /* all invalid: no sysfs cross-check per interval */
	struct idle_raw prev;
	uint64_t prev_ns;
	struct summary last; /* the interval on screen, redrawn on keys */
	bool have_last;
	int scroll;
	char clock[16];
	struct live_run *run; /* live_run's, for its refresh tick */
};

static const char doc[] =
	"Live view: per CPU and topology group, busy %, share of each idle state, misses/s "
	"(too deep / too shallow), wakeups/s by cause and the top wakers and wakees, every "
	"interval.\v"
	"Full screen when stdin and stdout are a terminal (q quits; j/k, arrows, PgUp/PgDn "
	"scroll), otherwise one block of plain lines per interval. Runs until q, Ctrl-C, "
	"SIGTERM or SIGHUP, or for -d SECONDS.";

static const struct argp_option options[] = {
	{ "interval", 'i', "SECONDS", 0, "Refresh every SECONDS (default 1)", 0 },
	{ "duration", 'd', "SECONDS", 0, "Stop after SECONDS", 0 },
	{ "cpus", 'C', "CPULIST", 0, "Show only these CPUs, e.g. 0-3,6", 0 },
	{ "verbose", 'v', NULL, 0, "Show libbpf's log", 0 },
	{ 0 }
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct top *t = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		t->session_cli = (struct session_cli){ &t->wake, &t->topology, &t->without };
		state->child_inputs[0] = &t->session_cli;
		break;
	case 'i':
		if (parse_duration(arg, 1000000000ULL, &t->o.interval_ns) ||
		    t->o.interval_ns < 100000000ULL)
			argp_error(state, "invalid interval '%s' (at least 100ms)", arg);
		break;
	case 'd':
		if (parse_duration(arg, 1000000000ULL, &t->o.duration_ns) || !t->o.duration_ns)
			argp_error(state, "invalid duration '%s' (e.g. 10, 2.5, 500ms)", arg);
		break;
	case 'C':
		t->o.cpus_arg = arg;
		break;
	case 'v':
		t->o.verbose = true;
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s'", arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child children[] = { { &session_argp, 0, NULL, 0 }, { 0 } };
static const struct argp top_argp = { options, parse_opt, NULL, doc, children, NULL, NULL };

static void show(struct top *t)
{
	struct top_layout l = { .width = LINE_WIDTH, .clock = t->clock };
	struct top_text txt = { 0 };

	if (t->screen) {
		screen_size(&l.height, &l.width);
		l.footer = true;
		l.scroll = t->scroll;
	} else {
		struct winsize ws;

		/* plain lines on a terminal (no usable terminfo): its width */
		if (isatty(STDOUT_FILENO) && !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_col)
			l.width = ws.ws_col;
	}
	if (render_top(&t->last, &l, &txt)) {
		top_text_free(&txt);
		return;
	}
	t->scroll = txt.scroll;
	if (t->screen) {
		screen_draw(&txt);
	} else {
		for (int i = 0; i < txt.nr; i++)
			printf("%s\n", txt.lines[i]);
		printf("\n");
		fflush(stdout);
	}
	top_text_free(&txt);
}

/* Reads the maps and turns [prev_ns, now] into the summary on screen; now is
 * the read's cut (cur.read_ns, session/raw_cut.h): every CPU and group as
 * at that instant, however long the read took. next: the next tick, the
 * next read's cut. */
static int interval(struct top *t, uint64_t next)
{
	struct window_capture w = { .info = t->live.info, .k_start = t->no_counters,
				    .k_end = t->no_counters,
				    .groups = t->live.groups.nr_groups ? &t->live.groups : NULL,
				    .irq_name = irq_name, .ksym_resolve = kallsyms_resolve };
	struct idle_raw cur, delta;
	uint64_t now;
	time_t wall = time(NULL);
	struct tm tm, zero = { 0 };
	int err;

	if ((err = idle_session_read_cut(&t->live.sess, &cur, next)))
		return err;
	now = cur.read_ns;
	if ((err = idle_raw_delta(&t->prev, &cur, t->prev_ns, now, &delta))) {
		idle_raw_free(&cur);
		return err;
	}
	if (t->have_last)
		summary_free(&t->last);
	memset(&t->last, 0, sizeof(t->last));
	t->last.sys = t->live.sys;
	t->last.topo = &t->topo;
	t->last.idle_attach = t->live.sess.idle_attach;
	t->last.miss_attach = t->live.sess.have_idle_miss ? t->live.sess.miss_attach : NULL;
	t->last.wake_enabled = t->live.sess.wake;
	t->last.gov_inputs = t->live.sess.gov;
	t->last.gov_why = t->live.sess.gov_why;
	t->last.missing_events = t->live.sess.missing;
	t->last.freq_status = "off";
	w.start_ns = t->prev_ns;
	w.stop_ns = now;
	w.raw = &delta;
	w.ledger = t->live.sess.ledger;
	w.qos_lost = idle_session_qos_lost(&t->live.sess);
	err = summary_build(&t->last, &w, &t->sel);
	t->have_last = true;
	idle_raw_free(&delta);
	idle_raw_free(&t->prev);
	t->prev = cur;
	t->prev_ns = now;
	if (err)
		return err;
	/* localtime_r: localtime() reads the zone file again at every call
	 * (tzset), and where there is none (a minimal guest, a container)
	 * each failed lookup kills a dentry through RCU, whose grace period
	 * woke the other CPU and kept this one's tick on (+4.5 idle periods
	 * per second per CPU in the haltpoll guest) */
	strftime(t->clock, sizeof(t->clock), "%H:%M:%S", localtime_r(&wall, &tm) ? &tm : &zero);
	show(t);
	return 0;
}

static void on_key(struct top *t, enum top_key k, bool *quit)
{
	int rows, cols, page;

	screen_size(&rows, &cols);
	page = rows > 12 ? rows - 12 : 1;
	switch (k) {
	case TK_QUIT:
		*quit = true;
		return;
	case TK_DOWN:
		t->scroll++;
		break;
	case TK_UP:
		t->scroll--;
		break;
	case TK_PGDOWN:
		t->scroll += page;
		break;
	case TK_PGUP:
		t->scroll -= page;
		break;
	case TK_HOME:
		t->scroll = 0;
		break;
	case TK_END:
		t->scroll = 1 << 20; /* clamped by the renderer */
		break;
	default:
		break;
	}
	if (t->have_last)
		show(t);
}

static void waiting(struct top *t)
{
	char dur[32];
	struct top_text txt = { 0 };
	struct top_layout l;

	if (!t->screen)
		return;
	memset(&l, 0, sizeof(l));
	screen_size(&l.height, &l.width);
	fmt_ns(dur, sizeof(dur), t->o.interval_ns);
	/* render_top needs a summary; a plain message is enough here */
	txt.cap = 1;
	txt.lines = calloc(1, sizeof(*txt.lines));
	txt.style = calloc(1, sizeof(*txt.style));
	if (txt.lines && txt.style && (txt.lines[0] = malloc(128))) {
		snprintf(txt.lines[0], 128, "idlescope top: measuring the first %s interval... (q quits)",
			 dur);
		txt.style[0] = TOP_TITLE;
		txt.nr = 1;
		screen_draw(&txt);
	}
	top_text_free(&txt);
}

/* Until q, a signal, or -d, with live_run's refresh tick between the
 * intervals. Returns 0 or -errno. */
static int watch(struct top *t, int sfd, uint64_t start)
{
	uint64_t end = t->o.duration_ns ? start + t->o.duration_ns : UINT64_MAX;
	uint64_t next = start + t->o.interval_ns;
	bool quit = false;
	int err;

	waiting(t);
	while (!quit) {
		struct pollfd fds[3] = { { .fd = sfd, .events = POLLIN },
					 { .fd = live_run_qos_fd(t->run), .events = POLLIN },
					 { .fd = STDIN_FILENO, .events = POLLIN } };
		uint64_t refresh = live_run_tick(t->run, idle_now_ns());
		uint64_t now = idle_now_ns(), exact = next < end ? next : end;
		uint64_t wake = refresh < exact ? refresh : exact;
		struct timespec ts = { 0, 0 };

		if (now < wake) {
			ts.tv_sec = (time_t)((wake - now) / 1000000000ULL);
			ts.tv_nsec = (long)((wake - now) % 1000000000ULL);
		}
		/* the refresh may ride on another wakeup; the screen's tick is exact */
		window_timer_slack(refresh, exact, live_run_slack_ns(t->run));
		if (ppoll(fds, t->screen ? 3 : 2, &ts, NULL) < 0 && errno != EINTR)
			return -errno;
		if (fds[1].revents)
			live_run_qos(t->run, idle_now_ns());
		if (fds[0].revents & POLLIN) {
			struct signalfd_siginfo si;

			if (read(sfd, &si, sizeof(si)) == sizeof(si)) {
				if (si.ssi_signo == SIGWINCH) {
					screen_resize();
					if (t->have_last)
						show(t);
				} else {
					break; /* SIGINT, SIGTERM, SIGHUP: a normal end */
				}
			}
		}
		if (t->screen && (fds[2].revents & (POLLHUP | POLLERR)))
			break; /* the terminal is gone */
		if (t->screen && (fds[2].revents & POLLIN))
			for (enum top_key k; !quit && (k = screen_key()) != TK_NONE;)
				on_key(t, k, &quit);
		now = idle_now_ns();
		if (!quit && now >= next) {
			next += t->o.interval_ns;
			if (next <= now) /* suspended or very late: skip ahead */
				next = now + t->o.interval_ns;
			if ((err = interval(t, next)))
				return err;
		}
		if (now >= end)
			break;
	}
	window_timer_slack(0, 0, 0);
	return 0;
}

static int setup(void *ctx, int argc, char **argv, struct live_plan *plan)
{
	struct top *t = ctx;
	int ret;
	FILE *out;

	argp_parse(&top_argp, argc, argv, 0, NULL, t);
	if (!t->o.interval_ns)
		t->o.interval_ns = DEFAULT_INTERVAL_NS;
	idle_set_verbose(t->o.verbose);
	if ((ret = cli_prepare(&t->o, &t->topo, &t->sel, &out)))
		return ret;
	t->screen = isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
	t->no_counters = calloc((size_t)t->topo.nr_possible * IS_MAX_STATES, sizeof(*t->no_counters));
	if (!t->no_counters) {
		diag_error("out of memory");
		return EXIT_RUNTIME;
	}
	/* no window: top's loop is its own (loop below) */
	*plan = (struct live_plan){ .live = &t->live, .topo = &t->topo,
				    .opts = { .topology = t->topology, .wake = t->wake,
					      .without = t->without, .verbose = t->o.verbose },
				    .duration_ns = t->o.duration_ns };
	return EXIT_OK;
}

/* The first interval begins where its counters were read, as every later
 * one: what ended between the start and this read is in t->prev, so an
 * interval from the start would leave it out (a 64-CPU read under TCG took
 * 0.85 s). */
static int opened(void *ctx, uint64_t start)
{
	struct top *t = ctx;
	int e;

	if ((e = idle_session_read_cut(&t->live.sess, &t->prev, start + t->o.interval_ns))) {
		diag_error("cannot read the BPF maps: %s", strerror(-e));
		return EXIT_RUNTIME;
	}
	t->prev_ns = t->prev.read_ns;
	return EXIT_OK;
}

/* The ending signals (SIGHUP not under nohup, as every live command) and
 * SIGWINCH arrive on a descriptor, next to the keys. */
static int loop(void *ctx, struct live_run *run, uint64_t start)
{
	struct top *t = ctx;
	char err[256] = "";
	sigset_t sigs;
	int sfd, e;

	(void)start;
	t->run = run;
	window_ending_signals(&sigs);
	sigaddset(&sigs, SIGWINCH);
	/* they stay blocked to the end: one still pending when unblocked would
	 * kill the process on its way out */
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	if ((sfd = signalfd(-1, &sigs, SFD_CLOEXEC)) < 0) {
		diag_error("signalfd: %s", strerror(errno));
		return EXIT_RUNTIME;
	}
	if (t->screen && screen_open(err, sizeof(err))) {
		diag_error("%s; plain lines instead", err);
		t->screen = false;
	}
	e = watch(t, sfd, t->prev_ns);
	screen_close(); /* before any message, so it lands on the normal screen */
	close(sfd);
	if (e) {
		diag_error("cannot read the BPF maps: %s", strerror(-e));
		return EXIT_RUNTIME;
	}
	return EXIT_OK;
}

static void cleanup(void *ctx)
{
	struct top *t = ctx;

	screen_close();
	idle_raw_free(&t->prev);
	if (t->have_last)
		summary_free(&t->last);
	free(t->no_counters);
}

static const struct live_ops top_ops = {
	.setup = setup, .opened = opened, .loop = loop, .cleanup = cleanup,
};

int cmd_top(int argc, char **argv)
{
	struct top t = { .wake = true };
	int ret = live_run(&top_ops, &t, argc, argv);

	topology_free(&t.topo);
	return ret;
}
