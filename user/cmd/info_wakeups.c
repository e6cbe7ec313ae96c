/* Measures the wakeups each live command adds (info_wakeups.h). */
#include "cmd/info_wakeups.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "model/stats.h"
#include "sys/cpuidle_sysfs.h"
#include "sys/interrupts.h"
#include "sys/topology.h"
#include "util/clock.h"

/* The commands, as run: each ends on SIGINT well before its -d. The last
 * is the reference ticker (run_ticker), no idlescope command. */
static const struct {
	const char *shown;
	const char *argv[8];
	double ticks_per_s;
} commands[WAKE_COST_CMDS] = {
	{ "record -d N", { "record", "-v", "-d", "3600", "-o", "/dev/null", NULL }, 0 },
	{ "hist residency -d N", { "hist", "residency", "-v", "-d", "3600", NULL }, 0 },
	{ "serve (no scrape)", { "serve", "-v", "-d", "3600", "--listen", "127.0.0.1:0", NULL }, 0 },
	{ "top -i 1", { "top", "-v", "-i", "1", "-d", "3600", NULL }, 1 },
	{ "1 Hz ticker (reference)", { NULL }, 1 },
};
#define REFERENCE (WAKE_COST_CMDS - 1)
/* -v's line once the window is open and the poke is over: start-up done.
 * Attaching fentry programs waits for RCU-tasks grace periods, seconds
 * apart under TCG: no quiet spell tells its end. */
#define STARTED_MARK "CPUs of unknown state"
#define STARTED_TIMEOUT_NS (30 * 1000000000ULL)

/* Every online CPU's idle periods (or interrupts) so far, summed. */
struct counter {
	const struct topology *t;
	struct cpuidle_cpu_info *info; /* with a driver, else NULL */
	uint64_t *irq;                 /* [nr_possible] */
};

static double count_now(const struct counter *k)
{
	double sum = 0;

	if (k->info) {
		struct cpuidle_counters c[IS_MAX_STATES];

		for (int cpu = 0; cpu < k->t->nr_possible; cpu++) {
			if (!cpulist_has(&k->t->online, cpu) || !k->info[cpu].nr_states)
				continue;
			cpuidle_read_counters(cpu, k->info[cpu].nr_states, c);
			for (int s = 0; s < k->info[cpu].nr_states; s++)
				sum += (double)c[s].usage;
		}
		return sum;
	}
	if (interrupts_per_cpu_in("/proc/interrupts", k->irq, k->t->nr_possible) < 0)
		return -1;
	for (int cpu = 0; cpu < k->t->nr_possible; cpu++)
		if (cpulist_has(&k->t->online, cpu))
			sum += (double)k->irq[cpu];
	return sum;
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000ULL), (long)(ns % 1000000000ULL) };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Voluntary context switches of every thread of pid, or -1. */
static double switches_of(pid_t pid)
{
	char path[64], line[128];
	struct dirent *d;
	double n = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if (!(dir = opendir(path)))
		return -1;
	while ((d = readdir(dir))) {
		FILE *f;

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.16s/status", (int)pid, d->d_name);
		if (!(f = fopen(path, "re")))
			continue;
		while (fgets(line, sizeof(line), f))
			if (!strncmp(line, "voluntary_ctxt_switches:", 24))
				n += strtod(line + 24, NULL);
		fclose(f);
	}
	closedir(dir);
	return n;
}

/* One window: idle periods per second per CPU over window_ns. */
static double window_rate(const struct counter *k, int nr_cpus, uint64_t window_ns)
{
	uint64_t t0 = idle_now_ns(), t1;
	double a = count_now(k), b;

	sleep_ns(window_ns);
	b = count_now(k);
	t1 = idle_now_ns();
	return (b - a) * 1e9 / (double)(t1 - t0) / nr_cpus;
}

/* The reference, in the forked child: what any process that wakes once a
 * second and writes a line costs (top's -i 1 does that and more). */
static void run_ticker(void)
{
	static const char mark[] = STARTED_MARK "\n", line[] = "tick\n";
	sigset_t set;

	/* SIGINT ends it (measure_one): not the parent's handler, not blocked */
	signal(SIGINT, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	if (write(STDERR_FILENO, mark, sizeof(mark) - 1) < 0)
		_exit(1);
	for (;;) {
		sleep_ns(1000000000ULL);
		if (write(STDOUT_FILENO, line, sizeof(line) - 1) < 0)
			_exit(1);
	}
}

/* Starts command i, its stderr into *err_fd (-1 when no pipe). */
static pid_t start_command(int i, int *err_fd)
{
	char *argv[10];
	int p[2] = { -1, -1 };
	pid_t pid;
	int n = 0;

	argv[n++] = "idlescope";
	for (int j = 0; commands[i].argv[j]; j++)
		argv[n++] = (char *)commands[i].argv[j];
	argv[n] = NULL;
	if (pipe2(p, O_CLOEXEC))
		p[0] = p[1] = -1;
	pid = fork();
	if (pid == 0) {
		int fd = open("/dev/null", O_RDWR | O_CLOEXEC);

		if (fd >= 0) {
			dup2(fd, STDIN_FILENO);
			dup2(fd, STDOUT_FILENO);
			dup2(p[1] >= 0 ? p[1] : fd, STDERR_FILENO);
		}
		if (i == REFERENCE)
			run_ticker();
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	if (p[1] >= 0)
		close(p[1]);
	*err_fd = p[0];
	return pid;
}

/* Reads the command's stderr until its start line (true), its end or the
 * timeout (false). The pipe stays open afterwards: -v writes little once
 * started, far less than the pipe holds. */
static bool wait_started(int fd)
{
	uint64_t end = idle_now_ns() + STARTED_TIMEOUT_NS;
	char buf[4096 + sizeof(STARTED_MARK)];
	size_t keep = 0;

	while (fd >= 0 && idle_now_ns() < end) {
		struct pollfd pf = { .fd = fd, .events = POLLIN };
		ssize_t r;

		if (poll(&pf, 1, 200) <= 0)
			continue;
		r = read(fd, buf + keep, sizeof(buf) - 1 - keep);
		if (r <= 0)
			return false;
		buf[keep + (size_t)r] = '\0';
		if (strstr(buf, STARTED_MARK))
			return true;
		/* a mark split across two reads: keep the tail */
		keep += (size_t)r;
		if (keep > sizeof(STARTED_MARK)) {
			memmove(buf, buf + keep - sizeof(STARTED_MARK), sizeof(STARTED_MARK));
			keep = sizeof(STARTED_MARK);
		}
	}
	return false;
}

/* Observed minus un-observed, and the command's own switches. Returns 0,
 * or -1 when the command could not run its window. */
static int measure_one(const struct counter *k, int nr_cpus, int i, double *added,
		       double *own, double *base)
{
	double s0, s1, seen;
	int status, err_fd;
	pid_t pid;

	/* the last command's teardown (detach, maps freed: RCU callbacks,
	 * IPIs) is not this one's un-observed window */
	sleep_ns(WAKE_COST_SETTLE_NS);
	*base = window_rate(k, nr_cpus, WAKE_COST_WINDOW_NS);
	if ((pid = start_command(i, &err_fd)) < 0) {
		if (err_fd >= 0)
			close(err_fd);
		return -1;
	}
	/* the window once its start-up is over, and no sooner than the
	 * settle after the fork */
	wait_started(err_fd);
	sleep_ns(WAKE_COST_SETTLE_NS / 3);
	s0 = switches_of(pid);
	seen = window_rate(k, nr_cpus, WAKE_COST_WINDOW_NS);
	s1 = switches_of(pid);
	/* still running: it measured its whole window */
	if (waitpid(pid, &status, WNOHANG) != 0 || s0 < 0 || s1 < 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		if (err_fd >= 0)
			close(err_fd);
		return -1;
	}
	kill(pid, SIGINT);
	waitpid(pid, &status, 0);
	if (err_fd >= 0)
		close(err_fd);
	*added = seen - *base;
	*own = (s1 - s0) * 1e9 / (double)WAKE_COST_WINDOW_NS;
	return 0;
}

int wake_costs_measure(const struct topology *t, struct wake_cost_report *rep, char *err,
		       size_t errlen)
{
	double added[WAKE_COST_CMDS][WAKE_COST_REPS], own[WAKE_COST_CMDS][WAKE_COST_REPS];
	double base[WAKE_COST_CMDS * WAKE_COST_REPS];
	struct cpuidle_system sys;
	struct counter k = { .t = t };
	int nr_cpus = 0, ret = -1;

	memset(rep, 0, sizeof(*rep));
	for (int cpu = 0; cpu < t->nr_possible; cpu++)
		nr_cpus += cpulist_has(&t->online, cpu);
	cpuidle_read_system(&sys);
	if (strcmp(sys.driver, "none")) {
		k.info = calloc((size_t)t->nr_possible, sizeof(*k.info));
		for (int cpu = 0; k.info && cpu < t->nr_possible; cpu++)
			cpuidle_read_cpu(&sys, cpu, &k.info[cpu], UINT64_MAX);
	}
	k.irq = calloc((size_t)t->nr_possible, sizeof(*k.irq));
	if (!k.irq || (strcmp(sys.driver, "none") && !k.info) || !nr_cpus) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if (count_now(&k) < 0) {
		snprintf(err, errlen, "cannot read /proc/interrupts");
		goto out;
	}
	rep->oracle = k.info ? "cpuidle usage" : "/proc/interrupts";
	rep->nr_cpus = nr_cpus;
	rep->reps = WAKE_COST_REPS;
	rep->window_s = WAKE_COST_WINDOW_NS / 1e9;
	rep->settle_s = WAKE_COST_SETTLE_NS / 3 / 1e9;
	rep->nr = WAKE_COST_CMDS;
	/* interleaved: each command's window right after its own un-observed one */
	for (int r = 0; r < WAKE_COST_REPS; r++)
		for (int i = 0; i < WAKE_COST_CMDS; i++)
			if (measure_one(&k, nr_cpus, i, &added[i][r], &own[i][r],
					&base[r * WAKE_COST_CMDS + i])) {
				snprintf(err, errlen, "%s%s did not run its window",
					 i == REFERENCE ? "" : "idlescope ", commands[i].shown);
				goto out;
			}
	for (int i = 0; i < WAKE_COST_CMDS; i++) {
		struct wake_cost *c = &rep->c[i];
		double beyond[WAKE_COST_REPS], cost[WAKE_COST_REPS];
		struct sample_stats a, o, b, k;

		/* per repetition: what its ticks cost there, and the rest */
		for (int r = 0; r < WAKE_COST_REPS; r++) {
			cost[r] = commands[i].ticks_per_s ? commands[i].ticks_per_s * added[REFERENCE][r] : 0;
			beyond[r] = added[i][r] - cost[r];
		}
		sample_stats(added[i], WAKE_COST_REPS, &a);
		sample_stats(own[i], WAKE_COST_REPS, &o);
		sample_stats(beyond, WAKE_COST_REPS, &b);
		sample_stats(cost, WAKE_COST_REPS, &k);
		*c = (struct wake_cost){ .command = commands[i].shown,
					 .reference = i == REFERENCE,
					 .ticks_per_s = commands[i].ticks_per_s,
					 .own_per_s = o.median, .added = a.median,
					 .added_min = a.min, .added_max = a.max,
					 .tick_cost = k.median,
					 .beyond = i == REFERENCE ? NAN : b.median };
	}
	{
		struct sample_stats b;

		sample_stats(base, WAKE_COST_CMDS * WAKE_COST_REPS, &b);
		rep->base_per_s_cpu = b.median;
	}
	ret = 0;
out:
	free(k.info);
	free(k.irq);
	return ret;
}
