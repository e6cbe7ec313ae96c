/* Writes to sysfs attributes as events. The VFS raises inotify's IN_MODIFY
 * on every successful write(2), to sysfs files too (fsnotify_modify in
 * vfs_write), so a live session need not poll files that change only when
 * someone writes them: the cpuidle states' disable flags. A change the
 * kernel makes without a write (a driver's own) raises nothing. */
#ifndef IDLESCOPE_SYSFS_WATCH_H
#define IDLESCOPE_SYSFS_WATCH_H

#include <stdbool.h>

struct sysfs_watch {
	int fd;      /* inotify, non-blocking; -1 closed */
	int watched; /* files added since the open (each path once counted) */
};

/* Returns 0, or -errno (inotify unavailable). */
int sysfs_watch_open(struct sysfs_watch *w);
/* Watches the root-relative path (printf-style) for writes. Returns 0,
 * -ENOENT when it does not exist (an offline CPU's files), or -errno (out
 * of watches: fs.inotify.max_user_watches). */
int sysfs_watch_add(struct sysfs_watch *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Reads what is pending without blocking: true when a watched file was
 * written, went away (its directory removed: a watch to add again), or the
 * queue overflowed; false when nothing was pending. */
bool sysfs_watch_drain(struct sysfs_watch *w);
void sysfs_watch_close(struct sysfs_watch *w);

#endif
