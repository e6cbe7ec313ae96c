/* sysfs file readers shared by the cpuidle, topology and QoS code; one place
 * knows the root so tests can point it at a fake tree. */
#include "sys/sysfs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *sysfs_root(void)
{
	const char *r = getenv("IDLESCOPE_SYSFS");

	return r && *r ? r : "/sys";
}

/* Returns 0, or -ENAMETOOLONG when root + path does not fit. */
static int build_path(char *path, size_t len, const char *fmt, va_list ap)
{
	int n = snprintf(path, len, "%s/", sysfs_root()), m;

	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	m = vsnprintf(path + n, len - (size_t)n, fmt, ap);
	if (m < 0 || (size_t)m >= len - (size_t)n)
		return -ENAMETOOLONG;
	return 0;
}

/* sysfs_keep_open: descriptors kept per path, read again with pread */
#define KEEP_MAX 128
static struct kept {
	char path[512];
	int fd;
} kept[KEEP_MAX];
static int nr_kept;
static bool keeping;

void sysfs_keep_open(bool on)
{
	if (!on)
		for (int i = 0; i < nr_kept; i++)
			close(kept[i].fd);
	if (!on)
		nr_kept = 0;
	keeping = on;
}

bool sysfs_keeping(void)
{
	return keeping;
}

/* A kept descriptor's read at offset 0: bytes read, or -1 (none kept, or
 * its file is gone: a CPU's cpuidle files go with the CPU; dropped then). */
static ssize_t read_kept(const char *path, char *buf, size_t len)
{
	for (int i = 0; keeping && i < nr_kept; i++) {
		ssize_t n;

		if (strcmp(kept[i].path, path))
			continue;
		n = pread(kept[i].fd, buf, len, 0);
		if (n >= 0)
			return n;
		close(kept[i].fd);
		kept[i] = kept[--nr_kept];
		return -1;
	}
	return -1;
}

static int read_path(const char *path, char *buf, size_t len)
{
	ssize_t n = read_kept(path, buf, len - 1);
	int fd;

	if (n >= 0)
		goto done;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	if (keeping && nr_kept < KEEP_MAX && strlen(path) < sizeof(kept[0].path)) {
		strcpy(kept[nr_kept].path, path);
		kept[nr_kept++].fd = fd;
	} else {
		close(fd);
	}
done:
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

int sysfs_read_str(char *buf, size_t len, const char *fmt, ...)
{
	char path[512];
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = build_path(path, sizeof(path), fmt, ap);
	va_end(ap);
	return err ? err : read_path(path, buf, len);
}

int sysfs_read_u64(uint64_t *out, const char *fmt, ...)
{
	char path[512], buf[64], *end;
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = build_path(path, sizeof(path), fmt, ap);
	va_end(ap);
	if (!err)
		err = read_path(path, buf, sizeof(buf));
	if (err)
		return err;
	errno = 0;
	*out = strtoull(buf, &end, 10);
	if (errno || end == buf || *end)
		return -EINVAL;
	return 0;
}

bool sysfs_exists(const char *fmt, ...)
{
	char path[512];
	va_list ap;

	int err;

	va_start(ap, fmt);
	err = build_path(path, sizeof(path), fmt, ap);
	va_end(ap);
	return !err && access(path, F_OK) == 0;
}

int sysfs_write_str(const char *val, const char *fmt, ...)
{
	char path[512];
	va_list ap;
	ssize_t n;
	int fd;

	va_start(ap, fmt);
	fd = build_path(path, sizeof(path), fmt, ap);
	va_end(ap);
	if (fd)
		return fd;
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	if (n < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	close(fd);
	return 0;
}
