/* Apply and restore the knobs `ab` compares. */
#include "sys/settings.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys/sysfs.h"
#include "sys/topology.h"

#define GOV_FILE "devices/system/cpu/cpuidle/current_governor"

static int add_path(struct setting *s, const char *path)
{
	char (*p)[256] = realloc(s->paths, sizeof(*p) * (size_t)(s->nr_saved + 1));
	char (*v)[64];

	if (!p)
		return -1;
	s->paths = p;
	v = realloc(s->saved, sizeof(*v) * (size_t)(s->nr_saved + 1));
	if (!v)
		return -1;
	s->saved = v;
	snprintf(s->paths[s->nr_saved], sizeof(s->paths[0]), "%s", path);
	s->saved[s->nr_saved][0] = '\0';
	s->nr_saved++;
	return 0;
}

static int read_file(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return -errno;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static int write_file(const char *path, const char *val)
{
	FILE *f = fopen(path, "we");
	int e = 0;

	if (!f)
		return -errno;
	if (fputs(val, f) < 0)
		e = -errno;
	if (fclose(f) && !e)
		e = -errno;
	return e;
}

/* The characters of sysctl names (kernel.sched_energy_aware, net/ipv4/...). */
#define SYSCTL_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./"

/* "stateN.disable" exactly (sscanf would take "state1" or "state 1.dis"). */
static bool state_key(const char *key, int *state)
{
	const char *p = key + 5;
	long n = 0;

	if (strncmp(key, "state", 5) || !isdigit((unsigned char)*p) ||
	    (p[0] == '0' && isdigit((unsigned char)p[1]))) /* the kernel's names: state0, state1 */
		return false;
	for (; isdigit((unsigned char)*p) && n < 1000; p++)
		n = n * 10 + (*p - '0');
	if (strcmp(p, ".disable"))
		return false;
	*state = (int)n;
	return true;
}

#define PM_QOS_DEV "/dev/cpu_dma_latency"

/* A PM QoS CPU latency value: "none" (no request) or microseconds, as the
 * kernel takes them (a 32-bit signed count). */
static bool qos_value(const char *v)
{
	char *end;
	unsigned long long us;

	if (!strcmp(v, "none"))
		return true;
	if (!isdigit((unsigned char)v[0]))
		return false;
	errno = 0;
	us = strtoull(v, &end, 10);
	return !errno && !*end && us <= 2000000000ULL;
}

/* The haltpoll governor's parameters (drivers/cpuidle/governors/haltpoll.c,
 * module_param uint or bool, 0644): where they are, what each takes. */
#define HALTPOLL_PARAMS "module/haltpoll/parameters"

static const char *const haltpoll_keys[] = {
	"guest_halt_poll_ns", "guest_halt_poll_grow", "guest_halt_poll_grow_start",
	"guest_halt_poll_shrink", "guest_halt_poll_allow_shrink",
};

static bool haltpoll_key(const char *key)
{
	for (size_t i = 0; i < sizeof(haltpoll_keys) / sizeof(haltpoll_keys[0]); i++)
		if (!strcmp(key, haltpoll_keys[i]))
			return true;
	return false;
}

/* A value the kernel's param_set_uint (kstrtouint, base 0 without a sign
 * here: decimal only) or param_set_bool takes, as we write it back. */
static bool haltpoll_value(const char *key, const char *v)
{
	char *end;
	unsigned long long n;

	if (!strcmp(key, "guest_halt_poll_allow_shrink"))
		return !strcmp(v, "Y") || !strcmp(v, "N") || !strcmp(v, "0") || !strcmp(v, "1");
	if (!isdigit((unsigned char)v[0]) || (v[0] == '0' && v[1]))
		return false;
	errno = 0;
	n = strtoull(v, &end, 10);
	return !errno && !*end && n <= UINT32_MAX;
}

/* Refuses a value the kernel would not take, then what would measure
 * nothing: no haltpoll governor, or one that does not choose here (the
 * driver is not haltpoll). */
static int haltpoll_parse(struct setting *s, char *err, size_t errlen)
{
	char drv[64] = "none";

	s->kind = SET_HALTPOLL;
	for (int i = 0; i < s->nr_values; i++)
		if (!haltpoll_value(s->key, s->values[i])) {
			snprintf(err, errlen, "%s takes %s, not '%s'", s->key,
				 !strcmp(s->key, "guest_halt_poll_allow_shrink")
					 ? "Y, N, 1 or 0"
					 : "a whole number from 0 to 4294967295",
				 s->values[i]);
			return -1;
		}
	if (!sysfs_exists("%s/%s", HALTPOLL_PARAMS, s->key)) {
		snprintf(err, errlen, "%s: no haltpoll governor on this machine (no /sys/%s/%s)", s->key,
			 HALTPOLL_PARAMS, s->key);
		return -1;
	}
	sysfs_read_str(drv, sizeof(drv), "devices/system/cpu/cpuidle/current_driver");
	if (strcmp(drv, "haltpoll")) {
		snprintf(err, errlen, "%s: the cpuidle driver is '%s', not haltpoll: the value would "
				      "change nothing here", s->key, drv);
		return -1;
	}
	return 0;
}

int setting_parse(const char *spec, struct setting *s, char *err, size_t errlen)
{
	const char *eq = strchr(spec, '=');
	char path[512], vals[512], *save = NULL, *v;
	struct stat st;

	memset(s, 0, sizeof(*s));
	if (!eq || eq == spec || !eq[1]) {
		snprintf(err, errlen, "--set needs KEY=V1,V2 (got '%s')", spec);
		return -1;
	}
	/* a truncated key could name another sysctl, a truncated value write
	 * another number: refuse instead */
	if ((size_t)(eq - spec) >= sizeof(s->key) || strlen(eq + 1) >= sizeof(vals)) {
		snprintf(err, errlen, "--set %.*s...: too long", 32, spec);
		return -1;
	}
	snprintf(s->key, sizeof(s->key), "%.*s", (int)(eq - spec), spec);
	snprintf(vals, sizeof(vals), "%s", eq + 1);
	for (v = strtok_r(vals, ",", &save); v; v = strtok_r(NULL, ",", &save)) {
		if (s->nr_values == IS_MAX_VALUES) {
			snprintf(err, errlen, "at most %d values per --set", IS_MAX_VALUES);
			return -1;
		}
		if (strlen(v) >= sizeof(s->values[0])) {
			snprintf(err, errlen, "--set %s: value '%.16s...' too long", s->key, v);
			return -1;
		}
		snprintf(s->values[s->nr_values++], sizeof(s->values[0]), "%s", v);
	}
	if (s->nr_values < 1) {
		snprintf(err, errlen, "--set %s: no values", s->key);
		return -1;
	}

	if (!strcmp(s->key, "governor")) {
		char avail[256];

		s->kind = SET_GOVERNOR;
		if (sysfs_read_str(avail, sizeof(avail), "devices/system/cpu/cpuidle/available_governors")) {
			snprintf(err, errlen, "no switchable cpuidle governor on this machine");
			return -1;
		}
		for (int i = 0; i < s->nr_values; i++) {
			char padded[300], want[80];

			snprintf(padded, sizeof(padded), " %s ", avail);
			snprintf(want, sizeof(want), " %s ", s->values[i]);
			if (!strstr(padded, want)) {
				snprintf(err, errlen, "governor '%s' is not available (have: %s)",
					 s->values[i], avail);
				return -1;
			}
		}
		return 0;
	}
	if (!strcmp(s->key, "cpu_dma_latency")) {
		s->kind = SET_PM_QOS;
		if (access(PM_QOS_DEV, W_OK)) {
			snprintf(err, errlen, "cpu_dma_latency: cannot write %s: %s", PM_QOS_DEV,
				 strerror(errno));
			return -1;
		}
		for (int i = 0; i < s->nr_values; i++)
			if (!qos_value(s->values[i])) {
				snprintf(err, errlen, "cpu_dma_latency takes 'none' or microseconds "
						      "(0 to 2000000000), not '%s'", s->values[i]);
				return -1;
			}
		return 0;
	}
	if (haltpoll_key(s->key))
		return haltpoll_parse(s, err, errlen);
	if (state_key(s->key, &s->state)) {
		s->kind = SET_STATE_DISABLE;
		if (!sysfs_exists("devices/system/cpu/cpu0/cpuidle/state%d/disable", s->state)) {
			snprintf(err, errlen, "%s: no idle state %d on this machine", s->key, s->state);
			return -1;
		}
		for (int i = 0; i < s->nr_values; i++)
			if (strcmp(s->values[i], "0") && strcmp(s->values[i], "1")) {
				snprintf(err, errlen, "%s takes 0 or 1", s->key);
				return -1;
			}
		return 0;
	}
	s->kind = SET_SYSCTL;
	snprintf(path, sizeof(path), "/proc/sys/%s", s->key);
	for (char *p = path + strlen("/proc/sys/"); *p; p++)
		if (*p == '.')
			*p = '/';
	if (strstr(s->key, "..") || strspn(s->key, SYSCTL_CHARS) != strlen(s->key) ||
	    stat(path, &st) || !S_ISREG(st.st_mode) || (geteuid() == 0 && access(path, W_OK))) {
		snprintf(err, errlen,
			 "unknown --set key '%s' (a sysctl such as kernel.sched_energy_aware, "
			 "governor, stateN.disable, cpu_dma_latency, or guest_halt_poll_ns)", s->key);
		return -1;
	}
	return add_path(s, path);
}

int setting_save(struct setting *s, char *err, size_t errlen)
{
	char path[512];

	if (s->kind == SET_GOVERNOR) {
		snprintf(path, sizeof(path), "%s/%s", sysfs_root(), GOV_FILE);
		if (add_path(s, path))
			return -1;
	} else if (s->kind == SET_HALTPOLL) {
		snprintf(path, sizeof(path), "%s/%s/%s", sysfs_root(), HALTPOLL_PARAMS, s->key);
		if (add_path(s, path))
			return -1;
	} else if (s->kind == SET_STATE_DISABLE) {
		struct topology t;

		if (topology_read(&t))
			return -1;
		for (int c = 0; c < t.nr_possible; c++) {
			snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d/cpuidle/state%d/disable",
				 sysfs_root(), c, s->state);
			if (!access(path, W_OK) && add_path(s, path)) {
				topology_free(&t);
				return -1;
			}
		}
		topology_free(&t);
	}
	for (int i = 0; i < s->nr_saved; i++) {
		int e = read_file(s->paths[i], s->saved[i], sizeof(s->saved[0]));

		if (e) {
			snprintf(err, errlen, "cannot read %s: %s", s->paths[i], strerror(-e));
			return -1;
		}
	}
	return 0;
}

/* The kernel keeps a request while its file is open: the run that follows
 * is under it; replacing it closes the old one after the new one holds. */
static int qos_apply(struct setting *s, const char *v, char *err, size_t errlen)
{
	int fd = -1;

	if (strcmp(v, "none")) {
		int32_t us = (int32_t)strtol(v, NULL, 10);

		fd = open(PM_QOS_DEV, O_WRONLY | O_CLOEXEC);
		if (fd < 0 || write(fd, &us, sizeof(us)) != (ssize_t)sizeof(us)) {
			snprintf(err, errlen, "cannot hold cpu_dma_latency=%s (%s): %s", v, PM_QOS_DEV,
				 strerror(errno));
			if (fd >= 0)
				close(fd);
			return -1;
		}
	}
	if (s->qos_fd)
		close(s->qos_fd - 1);
	s->qos_fd = fd + 1;
	return 0;
}

int setting_apply(struct setting *s, int value, char *err, size_t errlen)
{
	if (s->kind == SET_PM_QOS)
		return qos_apply(s, s->values[value], err, errlen);
	for (int i = 0; i < s->nr_saved; i++) {
		int e = write_file(s->paths[i], s->values[value]);

		if (e) {
			snprintf(err, errlen, "cannot set %s=%s (%s): %s", s->key, s->values[value],
				 s->paths[i], strerror(-e));
			return -1;
		}
	}
	return 0;
}

int setting_restore(struct setting *s)
{
	int bad = 0;

	if (s->qos_fd) { /* the request goes with its file */
		bad += close(s->qos_fd - 1) != 0;
		s->qos_fd = 0;
	}

	for (int i = 0; i < s->nr_saved; i++) {
		char now[64];

		if (!s->saved[i][0])
			continue;
		if (write_file(s->paths[i], s->saved[i]) ||
		    read_file(s->paths[i], now, sizeof(now)) || strcmp(now, s->saved[i]))
			bad++;
	}
	return bad ? -1 : 0;
}

void setting_free(struct setting *s)
{
	if (s->qos_fd)
		close(s->qos_fd - 1);
	s->qos_fd = 0;
	free(s->paths);
	free(s->saved);
	s->paths = NULL;
	s->saved = NULL;
	s->nr_saved = 0;
}
