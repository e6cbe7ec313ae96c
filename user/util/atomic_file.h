/* A file replaced whole: written under a temporary name in its directory,
 * then renamed over it, so a reader (node_exporter's textfile collector)
 * sees the previous content or the new one, never part of either. */
#ifndef IDLESCOPE_ATOMIC_FILE_H
#define IDLESCOPE_ATOMIC_FILE_H

#include <limits.h>
#include <stdio.h>

struct atomic_file {
	const char *path;
	char tmp[PATH_MAX]; /* DIR/.NAME.PID.tmp: hidden, and not *.prom */
	FILE *f;
};

/* Opens the temporary file for writing in a->f, with path's mode, or 0644
 * for a new file whatever the umask (a collector often runs as another
 * user). Returns 0 or -errno (-EISDIR when path is a directory). */
int atomic_file_begin(struct atomic_file *a, const char *path);
/* Flushes, syncs and closes it, then renames it over path. On failure the
 * temporary file is removed and path keeps its previous content. Returns 0
 * or -errno. */
int atomic_file_commit(struct atomic_file *a);
/* Closes and removes the temporary file; path keeps its previous content. */
void atomic_file_abort(struct atomic_file *a);
/* At start-up: can path be replaced? (begin, then abort). 0 or -errno. */
int atomic_file_check(const char *path);

#endif
