/* LD_PRELOAD shim for trace-cmd 3.1 in guests where the function tracer's
 * control files fail with EPERM (trace-cmd record dies on them even for
 * event-only recording into its own instance): they are opened as /dev/null.
 * Built by tests/bats/replay.bats and by make bench; see
 * /work/shared/notes/overhead-baselines.md. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <sys/types.h>

/* The function tracer's files refuse even opens here (EPERM); writes to
 * ftrace_enabled too. Event-only recording needs none of them. */
static const char *fix(const char *p, int flags)
{
	static const char *const files[] = { "/set_ftrace_filter", "/set_ftrace_notrace",
					     "/set_ftrace_pid", "/available_filter_functions" };

	if (!p)
		return p;
	if (strstr(p, "ftrace_enabled") && (flags & O_ACCMODE) != O_RDONLY)
		return "/dev/null";
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		if (strstr(p, files[i]))
			return "/dev/null";
	return p;
}
#define WRAP(name, ...)                                                              \
	int name(__VA_ARGS__, int flags, ...)                                        \
	{                                                                            \
		static int (*real)();                                                \
		va_list ap;                                                          \
		mode_t m;                                                            \
		va_start(ap, flags);                                                 \
		m = (mode_t)va_arg(ap, int);                                         \
		va_end(ap);                                                          \
		if (!real)                                                           \
			real = (int (*)())dlsym(RTLD_NEXT, #name);                   \
		return CALL_##name;                                                  \
	}
#define CALL_open real(fix(p, flags), flags, m)
#define CALL_open64 real(fix(p, flags), flags, m)
#define CALL_openat real(d, fix(p, flags), flags, m)
#define CALL_openat64 real(d, fix(p, flags), flags, m)
WRAP(open, const char *p)
WRAP(open64, const char *p)
WRAP(openat, int d, const char *p)
WRAP(openat64, int d, const char *p)
