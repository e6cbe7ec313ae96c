/* inotify over sysfs attributes (sysfs_watch.h). */
#include "sys/sysfs_watch.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "sys/sysfs.h"

int sysfs_watch_open(struct sysfs_watch *w)
{
	w->watched = 0;
	w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	return w->fd < 0 ? -errno : 0;
}

int sysfs_watch_add(struct sysfs_watch *w, const char *fmt, ...)
{
	char path[PATH_MAX];
	va_list ap;
	int n, m;

	n = snprintf(path, sizeof(path), "%s/", sysfs_root());
	va_start(ap, fmt);
	m = n < 0 || (size_t)n >= sizeof(path) ? -1 :
		vsnprintf(path + n, sizeof(path) - (size_t)n, fmt, ap);
	va_end(ap);
	if (m < 0 || (size_t)m >= sizeof(path) - (size_t)n)
		return -ENAMETOOLONG;
	/* IN_MODIFY: each write; IN_IGNORED comes by itself when the file goes */
	if (inotify_add_watch(w->fd, path, IN_MODIFY) < 0)
		return -errno;
	w->watched++;
	return 0;
}

bool sysfs_watch_drain(struct sysfs_watch *w)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	bool changed = false;
	ssize_t n;

	if (w->fd < 0)
		return false;
	/* any event counts the same: a write, a removal (IN_IGNORED), an
	 * overflow (IN_Q_OVERFLOW); the caller reads every file again */
	while ((n = read(w->fd, buf, sizeof(buf))) > 0)
		changed = true;
	return changed;
}

void sysfs_watch_close(struct sysfs_watch *w)
{
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
	w->watched = 0;
}
