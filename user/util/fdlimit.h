/* The descriptor limit: raised for loading BPF (maps, programs and links
 * are descriptors each), given back to a measured command. */
#ifndef IDLESCOPE_FDLIMIT_H
#define IDLESCOPE_FDLIMIT_H

/* Raises RLIMIT_NOFILE's soft limit to the hard one, as the libbpf tools
 * do. Once, and silently: if it fails the limit stays as it was, and a load
 * that runs out says so itself. */
void fdlimit_raise(void);
/* Puts back the soft limit fdlimit_raise found (in a forked child before
 * exec: the command runs under the limits it was given). */
void fdlimit_restore(void);

#endif
