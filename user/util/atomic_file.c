/* Write-then-rename replacement of a file (util/atomic_file.h), so that
 * readers polling it never see a partial file. */
#include "util/atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int atomic_file_begin(struct atomic_file *a, const char *path)
{
	const char *base = strrchr(path, '/');
	struct stat st;
	mode_t mode = 0644;
	int fd, n;

	a->path = path;
	a->f = NULL;
	if (!stat(path, &st)) {
		if (S_ISDIR(st.st_mode))
			return -EISDIR;
		mode = st.st_mode & 07777; /* an admin's chmod stays */
	}
	base = base ? base + 1 : path;
	if (!*base)
		return -EISDIR;
	n = snprintf(a->tmp, sizeof(a->tmp), "%.*s.%s.%d.tmp", (int)(base - path), path, base,
		     (int)getpid());
	if (n < 0 || (size_t)n >= sizeof(a->tmp))
		return -ENAMETOOLONG;
	/* O_EXCL: never through a symlink planted under the name; a stale file
	 * of a killed process that had this pid is replaced */
	fd = open(a->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0 && errno == EEXIST && !unlink(a->tmp))
		fd = open(a->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	/* not less the umask: the file is there for another user to read */
	if (fchmod(fd, mode) || !(a->f = fdopen(fd, "w"))) {
		int e = errno;

		close(fd);
		unlink(a->tmp);
		return -e;
	}
	return 0;
}

int atomic_file_commit(struct atomic_file *a)
{
	int err = 0;

	errno = 0;
	if (fflush(a->f) || ferror(a->f) || fsync(fileno(a->f)))
		err = errno ? -errno : -EIO;
	if (fclose(a->f) && !err)
		err = -errno;
	a->f = NULL;
	if (!err && rename(a->tmp, a->path))
		err = -errno;
	if (err)
		unlink(a->tmp);
	return err;
}

void atomic_file_abort(struct atomic_file *a)
{
	if (a->f)
		fclose(a->f);
	a->f = NULL;
	unlink(a->tmp);
}

int atomic_file_check(const char *path)
{
	struct atomic_file a;
	int err = atomic_file_begin(&a, path);

	if (!err)
		atomic_file_abort(&a);
	return err;
}
