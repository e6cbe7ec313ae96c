/* trace-cmd's binary trace.dat for `idlescope replay`: libtracecmd opens the
 * file (any version it reads, compressed or not, with its -B instances) and
 * merges the CPUs' buffers by time as trace-cmd report does; each record is
 * decoded by its event's format in the file, field by name. */
#include "replay/trace_dat.h"

#include <stdio.h>
#include <string.h>

#define DAT_MAGIC "\x17\x08\x44tracing"

bool trace_dat_is(const char *buf, size_t len)
{
	return len >= 10 && !memcmp(buf, DAT_MAGIC, 10);
}

#ifndef IDLESCOPE_TRACEDAT

int trace_dat_parse_buffer(const char *buf, size_t len, const char *instance,
			   struct trace_data *d)
{
	(void)buf;
	(void)len;
	(void)instance;
	memset(d, 0, sizeof(*d));
	d->max_cpu = -1;
	snprintf(d->error, sizeof(d->error),
		 "a binary trace-cmd trace.dat, and this idlescope was built without libtracecmd: "
		 "convert it first with 'trace-cmd report -t -i FILE > FILE.txt'");
	return -1;
}

#else

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <trace-cmd.h>

#define MAX_CPU 4095 /* IS_MAX_CPUS - 1, as trace_parse.c */

#define NOT_READABLE                                                                   \
	"not a readable trace-cmd trace.dat (truncated, damaged, or a version or compression " \
	"this libtracecmd cannot read)"

struct dat_ctx {
	struct trace_data *d;
	uint32_t seq; /* records so far: the "line" that keeps file order on ties */
	int err;
};

/* A record of the file as trace_decode's fields: by name from its event's
 * format, each checked to lie inside the record. */
struct dat_rec {
	struct tep_handle *tep;
	struct tep_event *e;
	struct tep_record *r;
};

static int dat_num(const void *ctx, const char *key, uint64_t *v)
{
	const struct dat_rec *d = ctx;
	struct tep_format_field *f = tep_find_field(d->e, key);
	unsigned long long x;

	if (!f || f->offset < 0 || f->size <= 0 || f->offset + f->size > d->r->size ||
	    tep_read_number_field(f, d->r->data, &x))
		return -1;
	*v = x;
	return 0;
}

/* arm64 ipi_entry's reason is a kernel string pointer: the text the event's
 * format prints for it, through the file's string table. */
static int dat_reason(const struct dat_rec *d, char *out, size_t len)
{
	struct trace_seq s;

	trace_seq_init(&s);
	tep_print_event(d->tep, &s, d->r, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&s);
	snprintf(out, len, "%s", s.buffer ? s.buffer : "");
	trace_seq_destroy(&s);
	return 0;
}

/* A char[N] or __string field, cut at its NUL and at len - 1. */
static int dat_str(const void *ctx, const char *key, char *out, size_t len)
{
	const struct dat_rec *d = ctx;
	struct tep_format_field *f;
	const char *p, *data = d->r->data;
	int n = 0;
	size_t k = 0;

	out[0] = '\0';
	if (!strcmp(key, "reason"))
		return dat_reason(d, out, len);
	f = tep_find_field(d->e, key);
	if (!f || f->offset < 0 || f->offset + f->size > d->r->size)
		return -1;
	p = tep_get_field_raw(NULL, d->e, key, d->r, &n, 0);
	if (!p || n < 0 || p < data || p + n > data + d->r->size)
		return -1;
	while (k < (size_t)n && k + 1 < len && p[k])
		k++;
	memcpy(out, p, k);
	out[k] = '\0';
	return 0;
}

/* A hrtimer's function by the file's kallsyms, else its address. */
static void dat_fn(const struct dat_rec *d, char *fn, size_t len)
{
	uint64_t a;
	const char *sym;

	if (dat_num(d, "function", &a))
		return;
	sym = tep_find_function(d->tep, a);
	if (sym)
		snprintf(fn, len, "%s", sym);
	else
		snprintf(fn, len, "0x%" PRIx64, a);
}

static int on_record(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *data)
{
	struct dat_ctx *c = data;
	struct trace_data *d = c->d;
	struct tep_handle *tep = tracecmd_get_tep(h);
	struct tep_event *e = tep ? tep_find_event_by_record(tep, rec) : NULL;
	struct trace_event ev = { .line = ++c->seq, .src_cpu = (uint32_t)rec->cpu };
	struct dat_rec dr = { tep, e, rec };
	const struct trace_fields f = { dat_num, dat_str, &dr };
	char fn[48] = "";
	int r;

	(void)cpu; /* the nth CPU of all handles: rec->cpu is the buffer's */
	d->lines++;
	if (rec->missed_events > 0)
		d->lost_events += (uint64_t)rec->missed_events;
	else if (rec->missed_events < 0)
		d->drop_markers++;
	r = -1;
	if (e && rec->cpu >= 0 && rec->cpu <= MAX_CPU) {
		ev.re.now_ns = rec->ts;
		r = trace_decode(e->name, &f, (uint32_t)rec->cpu, &ev.re);
	}
	if (r < 0) { /* a record of no known event, or a field out of range */
		if (!d->garbled++)
			d->first_garbled_line = c->seq;
		return 0;
	}
	if (r > 0 && (ev.re.kind == RE_HRTIMER_START || ev.re.kind == RE_HRTIMER))
		dat_fn(&dr, fn, sizeof(fn));
	if (trace_data_add(d, &ev, r, e->name, fn)) {
		c->err = ENOMEM;
		return -1;
	}
	return 0;
}

/* The handles to read: every buffer (NULL), the top one, or one -B instance. */
static int pick_buffers(struct tracecmd_input *top, const char *instance,
			struct tracecmd_input **hs, int *nr, struct trace_data *d)
{
	int n = tracecmd_buffer_instances(top);
	char names[96] = "";

	*nr = 0;
	if (!instance || !strcmp(instance, "top"))
		hs[(*nr)++] = top;
	for (int i = 0; i < n && *nr <= n; i++) {
		const char *name = tracecmd_buffer_instance_name(top, i);

		if (!name)
			continue;
		if (instance && strcmp(instance, name)) {
			size_t k = strlen(names);

			snprintf(names + k, sizeof(names) - k, "%s%s", k ? ", " : "", name);
			continue;
		}
		if (!(hs[*nr] = tracecmd_buffer_instance_handle(top, i))) {
			snprintf(d->error, sizeof(d->error),
				 "cannot read the buffer '%s' (truncated file?)", name);
			return -1;
		}
		(*nr)++;
	}
	if (!*nr) {
		snprintf(d->error, sizeof(d->error), "no buffer '%s' in the file (it has: top%s%s)",
			 instance, names[0] ? ", " : "", names);
		return -1;
	}
	return 0;
}

/* Reads the file open on fd (closed by the library) into d. */
static int parse_fd(int fd, const char *instance, struct trace_data *d)
{
	struct tracecmd_input *top, **hs = NULL;
	struct dat_ctx c = { .d = d };
	int nr = 0, ret = -1;

	if (!(top = tracecmd_open_fd(fd, TRACECMD_FL_LOAD_NO_PLUGINS))) {
		snprintf(d->error, sizeof(d->error), "%s", NOT_READABLE);
		return -1;
	}
	d->header_cpus = tep_get_cpus(tracecmd_get_tep(top));
	hs = calloc((size_t)tracecmd_buffer_instances(top) + 1, sizeof(*hs));
	if (!hs) {
		snprintf(d->error, sizeof(d->error), "out of memory");
		goto out;
	}
	if (pick_buffers(top, instance, hs, &nr, d))
		goto out;
	if (tracecmd_iterate_events_multi(hs, nr, on_record, &c) < 0 || c.err) {
		snprintf(d->error, sizeof(d->error), "%s after record %u",
			 c.err ? strerror(c.err) : "cannot read the events", c.seq);
		goto out;
	}
	ret = 0;
out:
	for (int i = 0; i < nr; i++)
		if (hs[i] != top)
			tracecmd_close(hs[i]);
	free(hs);
	tracecmd_close(top);
	return ret;
}

/* libtracecmd also writes to stderr itself (perror on a failed mmap, then
 * reads instead): off while it reads. Returns the saved stderr, or -1. */
static int quiet_stderr(void)
{
	int saved = dup(STDERR_FILENO), null = open("/dev/null", O_WRONLY | O_CLOEXEC);

	if (null >= 0) {
		fflush(stderr);
		dup2(null, STDERR_FILENO);
		close(null);
	}
	return saved;
}

static void restore_stderr(int saved)
{
	if (saved < 0)
		return;
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
}

/* libtracecmd 3.1 crashes on some damaged files (closing a -B buffer whose
 * CPU data lies past the end of a cut file): a child reads the file first,
 * and only a file the child survived is read here. */
static int survives(int fd, const char *instance, struct trace_data *d)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return 1; /* cannot check: read it anyway */
	if (!pid) {
		struct trace_data scratch = { .max_cpu = -1 };
		int own = dup(fd);

		setrlimit(RLIMIT_CORE, &(struct rlimit){ 0, 0 }); /* a crash expected here */
		quiet_stderr();
		_exit(own < 0 || parse_fd(own, instance, &scratch) ? 1 : 0);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return 1;
	if (lseek(fd, 0, SEEK_SET)) /* the child moved the shared offset */
		return 0;
	if (WIFSIGNALED(st)) {
		snprintf(d->error, sizeof(d->error),
			 "not a readable trace-cmd trace.dat: libtracecmd died reading it (%s); "
			 "truncated or damaged?", strsignal(WTERMSIG(st)));
		return 0;
	}
	return 1;
}

int trace_dat_parse_buffer(const char *buf, size_t len, const char *instance,
			   struct trace_data *d)
{
	int fd;
	size_t off = 0;

	memset(d, 0, sizeof(*d));
	d->max_cpu = -1;
	d->format = TF_TRACE_DAT;
	/* the library reads a file descriptor: the buffer as an anonymous file */
	fd = memfd_create("idlescope-trace.dat", MFD_CLOEXEC);
	if (fd < 0) {
		snprintf(d->error, sizeof(d->error), "cannot make a memory file: %s", strerror(errno));
		return -1;
	}
	while (off < len) {
		ssize_t w = write(fd, buf + off, len - off);

		if (w <= 0) {
			snprintf(d->error, sizeof(d->error), "cannot write a memory file: %s",
				 strerror(w ? errno : ENOSPC));
			close(fd);
			return -1;
		}
		off += (size_t)w;
	}
	/* its warnings are several lines each: the one-line error says it all */
	tracecmd_set_loglevel(TEP_LOG_NONE);
	tep_set_loglevel(TEP_LOG_NONE);
	if (lseek(fd, 0, SEEK_SET) || !survives(fd, instance, d)) {
		if (!d->error[0])
			snprintf(d->error, sizeof(d->error), "cannot read a memory file: %s",
				 strerror(errno));
		close(fd);
		return -1;
	}
	{
		int saved = quiet_stderr(), r = parse_fd(fd, instance, d);

		restore_stderr(saved);
		if (r)
			return -1;
	}
	if (!d->lines && !d->header_cpus) {
		snprintf(d->error, sizeof(d->error), "no CPUs and no events in the trace.dat");
		return -1;
	}
	return 0;
}

#endif
