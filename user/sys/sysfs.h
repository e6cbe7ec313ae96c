/* Small readers for sysfs/procfs files. The root is "/sys" unless the
 * IDLESCOPE_SYSFS environment variable names a fake tree (unit tests). */
#ifndef IDLESCOPE_SYSFS_H
#define IDLESCOPE_SYSFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

const char *sysfs_root(void);
/* Reads root-relative path (printf-style) into buf, trailing newline cut.
 * Returns 0 or -errno. */
int sysfs_read_str(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Reads an unsigned decimal. Returns 0 or -errno (-EINVAL if not a number). */
int sysfs_read_u64(uint64_t *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* From sysfs_keep_open(true) on, the files read stay open and are read
 * again with pread: closing a sysfs file frees its kernfs open node through
 * RCU, whose grace periods wake other CPUs (a live session's refresh);
 * false closes them. sysfs_keeping says whether it is on. */
void sysfs_keep_open(bool on);
bool sysfs_keeping(void);
bool sysfs_exists(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Writes a string to a root-relative path. Returns 0 or -errno. */
int sysfs_write_str(const char *val, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
