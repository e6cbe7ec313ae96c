/* Reads /sys/devices/system/cpu/{cpuidle,cpuN/cpuidle} and the PM QoS knobs
 * that decide which states the governor may pick. */
#include "sys/cpuidle_sysfs.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <zlib.h>

#include "sys/sysfs.h"

#define CPU_DIR "devices/system/cpu"
/* PM_QOS_CPU_LATENCY_DEFAULT_VALUE: 2000 s means "no constraint". */
#define QOS_DEFAULT_US 2000000000ULL

/* CONFIG_HZ from /boot/config-<release> or /proc/config.gz; 250 (Debian's
 * default) when neither says. */
static uint64_t read_tick_ns(void)
{
	char path[256], line[256];
	struct utsname u;
	uint64_t hz = 0;
	gzFile f = NULL;

	if (uname(&u) == 0) {
		snprintf(path, sizeof(path), "/boot/config-%s", u.release);
		f = gzopen(path, "rb"); /* gzopen reads plain files too */
	}
	if (!f)
		f = gzopen("/proc/config.gz", "rb");
	if (f) {
		while (gzgets(f, line, sizeof(line)))
			if (sscanf(line, "CONFIG_HZ=%lu", &hz) == 1)
				break;
		gzclose(f);
	}
	return 1000000000ULL / (hz ? hz : 250);
}

void cpuidle_read_system(struct cpuidle_system *sys)
{
	memset(sys, 0, sizeof(*sys));
	if (sysfs_read_str(sys->driver, sizeof(sys->driver), CPU_DIR "/cpuidle/current_driver") ||
	    !sys->driver[0])
		snprintf(sys->driver, sizeof(sys->driver), "none");
	/* current_governor_ro on kernels without switchable governors */
	if (sysfs_read_str(sys->governor, sizeof(sys->governor), CPU_DIR "/cpuidle/current_governor"))
		sysfs_read_str(sys->governor, sizeof(sys->governor),
			       CPU_DIR "/cpuidle/current_governor_ro");
	sysfs_read_u64(&sys->guest_halt_poll_ns, "module/haltpoll/parameters/guest_halt_poll_ns");
	sys->tick_ns = read_tick_ns();
}

uint64_t cpuidle_global_qos_ns(void)
{
	int32_t us = 0;
	int fd;

	static int kept_fd = -1;

	/* Opening adds a request at the default value (no constraint) for as
	 * long as the file is open; reading gives the effective limit. While
	 * sysfs files are kept open (sysfs_keep_open) so is this one, read at
	 * offset 0 again. */
	if (!sysfs_keeping() && kept_fd >= 0) {
		close(kept_fd);
		kept_fd = -1;
	}
	fd = kept_fd >= 0 ? kept_fd : open("/dev/cpu_dma_latency", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return UINT64_MAX;
	if (pread(fd, &us, sizeof(us), 0) != sizeof(us) || us < 0 || (uint64_t)us >= QOS_DEFAULT_US)
		us = -1;
	if (sysfs_keeping())
		kept_fd = fd;
	else
		close(fd);
	return us < 0 ? UINT64_MAX : (uint64_t)us * 1000;
}

/* The CPU device's resume-latency request in ns, UINT64_MAX for none. */
uint64_t cpuidle_dev_qos_ns(int cpu)
{
	uint64_t dev;
	char buf[32];

	/* "n/a": no latency allowed; "0": no constraint (drivers/base/power/sysfs.c) */
	if (sysfs_read_str(buf, sizeof(buf), CPU_DIR "/cpu%d/power/pm_qos_resume_latency_us", cpu))
		return UINT64_MAX;
	if (!strcmp(buf, "n/a"))
		return 0;
	dev = strtoull(buf, NULL, 10);
	return dev ? dev * 1000 : UINT64_MAX;
}

/* cpuidle_governor_latency_req(): the lower of the global and device limits. */
void cpuidle_apply_qos(struct cpuidle_cpu_info *info, uint64_t global_qos_ns)
{
	info->qos_limit_ns = info->dev_qos_ns < global_qos_ns ? info->dev_qos_ns : global_qos_ns;
}

/* cpuidle_poll_time() (drivers/cpuidle/cpuidle.c): the target residency of
 * the first enabled non-poll state of at least CPUIDLE_POLL_MIN (10 us),
 * capped at CPUIDLE_POLL_MAX (TICK_NSEC / 16). The haltpoll governor adapts
 * dev->poll_limit_ns per period, which sysfs does not show: 0 = unknown. */
#define CPUIDLE_POLL_MIN_NS 10000ULL
static uint64_t poll_limit_ns(const struct cpuidle_system *sys, const struct cpuidle_cpu_info *info)
{
	uint64_t max = sys->tick_ns / 16;

	if (!strcmp(sys->governor, "haltpoll"))
		return 0;
	for (int i = 1; i < info->nr_states; i++) {
		uint64_t t = info->states[i].target_residency_ns;

		if (info->states[i].disabled || t < CPUIDLE_POLL_MIN_NS)
			continue;
		return t < max ? t : max;
	}
	return max;
}

void cpuidle_refresh_cpu(const struct cpuidle_system *sys, int cpu, struct cpuidle_cpu_info *info,
			 uint64_t global_qos_ns)
{
	for (int i = 0; i < info->nr_states; i++) {
		uint64_t v = 0;

		sysfs_read_u64(&v, CPU_DIR "/cpu%d/cpuidle/state%d/disable", cpu, i);
		info->states[i].disabled = v != 0;
	}
	info->dev_qos_ns = cpuidle_dev_qos_ns(cpu);
	cpuidle_apply_qos(info, global_qos_ns);
	info->poll_limit_ns = info->nr_states ? poll_limit_ns(sys, info) : 0;
}

int cpuidle_state_slots(const struct cpuidle_cpu_info *info, int n)
{
	int slots = 2;

	for (int c = 0; c < n; c++)
		if (info[c].nr_states > slots)
			slots = info[c].nr_states;
	return slots;
}

void cpuidle_read_cpu(const struct cpuidle_system *sys, int cpu, struct cpuidle_cpu_info *info,
		      uint64_t global_qos_ns)
{
	memset(info, 0, sizeof(*info));
	if (!strcmp(sys->driver, "none"))
		return;
	for (int i = 0; i < IS_MAX_STATES; i++) {
		struct cpuidle_state_info *s = &info->states[i];
		uint64_t lat, res;

		if (sysfs_read_str(s->name, sizeof(s->name), CPU_DIR "/cpu%d/cpuidle/state%d/name",
				   cpu, i))
			break;
		sysfs_read_str(s->desc, sizeof(s->desc), CPU_DIR "/cpu%d/cpuidle/state%d/desc", cpu, i);
		if (sysfs_read_u64(&lat, CPU_DIR "/cpu%d/cpuidle/state%d/latency", cpu, i) ||
		    sysfs_read_u64(&res, CPU_DIR "/cpu%d/cpuidle/state%d/residency", cpu, i))
			break;
		s->exit_latency_ns = lat * 1000;
		s->target_residency_ns = res * 1000;
		/* CPUIDLE_FLAG_POLLING is not in sysfs; the poll state is named POLL */
		s->poll = !strcmp(s->name, "POLL");
		info->nr_states = i + 1;
	}
	cpuidle_refresh_cpu(sys, cpu, info, global_qos_ns);
}

void cpuidle_read_counters(int cpu, int nr_states, struct cpuidle_counters *out)
{
	for (int i = 0; i < nr_states; i++) {
		struct cpuidle_counters *c = &out[i];

		memset(c, 0, sizeof(*c));
		c->valid = !sysfs_read_u64(&c->usage, CPU_DIR "/cpu%d/cpuidle/state%d/usage", cpu, i) &&
			   !sysfs_read_u64(&c->time_us, CPU_DIR "/cpu%d/cpuidle/state%d/time", cpu, i);
		c->has_miss_counters =
			!sysfs_read_u64(&c->above, CPU_DIR "/cpu%d/cpuidle/state%d/above", cpu, i) &&
			!sysfs_read_u64(&c->below, CPU_DIR "/cpu%d/cpuidle/state%d/below", cpu, i);
		c->has_rejected =
			!sysfs_read_u64(&c->rejected, CPU_DIR "/cpu%d/cpuidle/state%d/rejected", cpu, i);
	}
}

uint32_t cpuidle_noipi_mask(const struct cpuidle_cpu_info *info, bool x86, bool mwait)
{
	uint32_t m = 0;

	/* without a driver x86 idles in default_idle (HLT), or in mwait_idle
	 * where the CPU has MWAIT (state 1); idle=poll reports state 0. HLT
	 * left out: no waker ends it without an IPI, yet on the paravirtual
	 * driver-less host HLT periods ended with work queued and no interrupt
	 * seen inside (99 of 20072 ping-pong periods taken for poll-resched,
	 * against 5 no-IPI wakes the kernel counted) */
	if (!info->nr_states)
		return x86 ? (mwait ? 0x3 : 0x1) : 0;
	for (int i = 0; i < info->nr_states && i < 32; i++)
		if (info->states[i].poll || strstr(info->states[i].desc, "MWAIT"))
			m |= 1u << i;
	return m;
}

bool cpuinfo_flag(const char *line, const char *flag)
{
	size_t n = strlen(flag);
	const char *p = strchr(line, ':');

	if (strncmp(line, "flags", 5) || !p)
		return false;
	/* whole words only: "monitor" is not "monitorx" (AMD's MWAITX) */
	for (p++; (p = strstr(p, flag)); p += n)
		if (p[-1] == ' ' && (p[n] == ' ' || p[n] == '\n' || !p[n]))
			return true;
	return false;
}

bool cpu_has_monitor(void)
{
	static int known = -1;
	char *line = NULL;
	size_t cap = 0;
	FILE *f;

	if (known >= 0)
		return known;
	known = 0;
	f = fopen("/proc/cpuinfo", "re");
	if (!f)
		return false;
	while (getline(&line, &cap, f) > 0) {
		if (strncmp(line, "flags", 5))
			continue;
		/* the first CPU's flags: the boot CPU's, which the kernel follows */
		known = cpuinfo_flag(line, "monitor");
		break;
	}
	free(line);
	fclose(f);
	return known;
}

void cpuidle_to_params(const struct cpuidle_cpu_info *info, struct idle_params *p)
{
#if defined(__x86_64__) || defined(__i386__)
	const bool x86 = true;
#else
	const bool x86 = false;
#endif

	memset(p, 0, sizeof(*p));
	p->flags = IS_PARAMS_VALID;
	p->noipi_mask = cpuidle_noipi_mask(info, x86, x86 && !info->nr_states && cpu_has_monitor());
	if (!info->nr_states || info->unclassified) {
		p->flags |= IS_PARAMS_NO_CLASSIFY;
		return;
	}
	p->nr_states = (uint32_t)info->nr_states;
	p->qos_limit_ns = info->qos_limit_ns;
	p->poll_limit_ns = info->poll_limit_ns;
	for (int i = 0; i < info->nr_states; i++) {
		p->exit_latency_ns[i] = info->states[i].exit_latency_ns;
		p->target_residency_ns[i] = info->states[i].target_residency_ns;
		if (info->states[i].disabled)
			p->disabled_mask |= 1u << i;
		if (info->states[i].poll)
			p->poll_mask |= 1u << i;
	}
}

enum { CNT_USAGE, CNT_TIME, CNT_ABOVE, CNT_BELOW, CNT_REJECTED, NR_CNT };
static const char *const counter_names[NR_CNT] = { "usage", "time", "above", "below", "rejected" };

uint64_t cpuidle_device_id(int cpu)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "%s/" CPU_DIR "/cpu%d/cpuidle", sysfs_root(), cpu);
	return stat(path, &st) ? 0 : (uint64_t)st.st_ino;
}

/* Notes cpu's state count and device: a snapshot reads no other states and
 * nothing from a device registered since. */
static void track_cpu(struct cpuidle_counter_files *f, int cpu, const struct cpuidle_cpu_info *info)
{
	f->nr_states[cpu] = info->nr_states;
	f->dev_id[cpu] = info->nr_states ? cpuidle_device_id(cpu) : 0;
}

int cpuidle_counters_reopen_cpu(struct cpuidle_counter_files *f, int cpu,
				const struct cpuidle_cpu_info *info)
{
	if (!f->nr_states || cpu < 0 || cpu >= f->nr_cpus)
		return -1;
	track_cpu(f, cpu, info);
	return 0;
}

int cpuidle_counters_open(struct cpuidle_counter_files *f, int nr_cpus, const struct cpulist *sel,
			  const struct cpuidle_cpu_info *info)
{
	char path[256];

	f->nr_cpus = nr_cpus;
	f->root_fd = -1;
	f->nr_states = calloc((size_t)(nr_cpus > 0 ? nr_cpus : 1), sizeof(*f->nr_states));
	f->dev_id = calloc((size_t)(nr_cpus > 0 ? nr_cpus : 1), sizeof(*f->dev_id));
	if (!f->nr_states || !f->dev_id) {
		cpuidle_counters_close(f);
		return -1;
	}
	/* Without the directory no counter reads: the same as absent files. */
	snprintf(path, sizeof(path), "%s/" CPU_DIR, sysfs_root());
	f->root_fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	for (int c = 0; c < nr_cpus; c++)
		if (cpulist_has(sel, c))
			track_cpu(f, c, &info[c]);
	return 0;
}

/* Opens, reads and closes one counter: the open file is only held for the
 * read, so a snapshot needs one descriptor whatever the CPU count. */
static bool read_counter(const struct cpuidle_counter_files *f, int cpu, int state, int k,
			 uint64_t *out)
{
	char path[96], buf[32], *end;
	ssize_t n;
	int fd;

	if (f->root_fd < 0)
		return false;
	snprintf(path, sizeof(path), "cpu%d/cpuidle/state%d/%s", cpu, state, counter_names[k]);
	fd = openat(f->root_fd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	*out = strtoull(buf, &end, 10);
	return end != buf;
}

static void read_usage(const struct cpuidle_counter_files *f, struct cpuidle_counters *out)
{
	for (int c = 0; c < f->nr_cpus; c++)
		for (int i = 0; i < f->nr_states[c]; i++) {
			struct cpuidle_counters *o = &out[c * IS_MAX_STATES + i];

			o->valid = read_counter(f, c, i, CNT_USAGE, &o->usage);
		}
}

/* time is needed too; the others say whether the kernel has them */
static void read_rest(const struct cpuidle_counter_files *f, struct cpuidle_counters *out,
		      bool *time_ok)
{
	for (int c = 0; c < f->nr_cpus; c++)
		for (int i = 0; i < f->nr_states[c]; i++) {
			struct cpuidle_counters *o = &out[c * IS_MAX_STATES + i];

			time_ok[c * IS_MAX_STATES + i] = read_counter(f, c, i, CNT_TIME, &o->time_us);
			o->has_miss_counters = read_counter(f, c, i, CNT_ABOVE, &o->above) &&
					       read_counter(f, c, i, CNT_BELOW, &o->below);
			o->has_rejected = read_counter(f, c, i, CNT_REJECTED, &o->rejected);
		}
}

/* A device registered again since the open (its counters began at 0) reads
 * nothing until reopened, as kept files would: ids are not reused, so an
 * equal one after the end snapshot's reads means every read came from the
 * tracked device (a change before the start one shows there too). */
static void find_new_devices(const struct cpuidle_counter_files *f, bool *stale)
{
	for (int c = 0; c < f->nr_cpus; c++)
		stale[c] = f->nr_states[c] && cpuidle_device_id(c) != f->dev_id[c];
}

void cpuidle_counters_snapshot(const struct cpuidle_counter_files *f, struct cpuidle_counters *out,
			       enum counters_edge edge)
{
	size_t n = (size_t)f->nr_cpus * IS_MAX_STATES;
	/* time read per counter slot, then a new device per CPU */
	bool *time_ok = calloc(n + (size_t)f->nr_cpus + 1, sizeof(*time_ok));
	bool *stale = time_ok + n;

	memset(out, 0, n * sizeof(*out));
	if (!time_ok)
		return; /* nothing valid */
	/* usage, the count the edges affect most, right next to the edge */
	if (edge == COUNTERS_BEFORE_START) {
		find_new_devices(f, stale);
		read_rest(f, out, time_ok);
		read_usage(f, out);
	} else {
		read_usage(f, out);
		read_rest(f, out, time_ok);
		find_new_devices(f, stale);
	}
	for (size_t k = 0; k < n; k++)
		out[k].valid = out[k].valid && time_ok[k] && !stale[k / IS_MAX_STATES];
	free(time_ok);
}

void cpuidle_counters_close(struct cpuidle_counter_files *f)
{
	if (f->nr_states && f->root_fd >= 0)
		close(f->root_fd);
	free(f->nr_states);
	free(f->dev_id);
	f->nr_states = NULL;
	f->dev_id = NULL;
	f->root_fd = -1;
}
