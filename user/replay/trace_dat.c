/* trace-cmd's binary trace.dat for `idlescope replay`: the container read
 * by dat_file.c (any version trace-cmd writes, compressed or not, with its
 * -B instances), the CPUs' records merged by time as trace-cmd report merges
 * them (earliest first, the first CPU of the first buffer on a tie); each
 * record decoded by its event's format in the file, field by name. */
#include "replay/trace_dat.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include "replay/dat_file.h"

#define DAT_MAGIC "\x17\x08\x44tracing"
#define MAX_CPU 4095 /* IS_MAX_CPUS - 1, as trace_parse.c */

#define NOT_READABLE "not a readable trace-cmd trace.dat"

bool trace_dat_is(const char *buf, size_t len)
{
	return len >= 10 && !memcmp(buf, DAT_MAGIC, 10);
}

struct dat_ctx {
	struct trace_data *d;
	uint32_t seq; /* records so far: the "line" that keeps file order on ties */
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

static int on_record(struct tep_handle *tep, struct tep_record *rec, bool gap, struct dat_ctx *c)
{
	struct trace_data *d = c->d;
	struct tep_event *e = tep_find_event_by_record(tep, rec);
	struct trace_event ev = { .line = ++c->seq, .src_cpu = (uint32_t)rec->cpu };
	struct dat_rec dr = { tep, e, rec };
	const struct trace_fields f = { dat_num, dat_str, &dr };
	char fn[48] = "";
	int r;

	d->lines++;
	if (rec->missed_events > 0)
		d->lost_events += (uint64_t)rec->missed_events;
	else if (rec->missed_events < 0)
		d->drop_markers++;
	/* the buffer lost events before this record: a gap on its CPU */
	if ((rec->missed_events || gap) && rec->cpu >= 0 && trace_data_gap(d, (uint32_t)rec->cpu))
		return -1;
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
	return trace_data_add(d, &ev, r, e->name, fn);
}

/* The buffers to read: every one (NULL, as trace-cmd report shows them),
 * the top one, or one -B instance. Returns how many went into picked. */
static int pick_buffers(const struct dat_file *f, const char *instance,
			const struct dat_buffer **picked, struct trace_data *d)
{
	char names[96] = "";
	int n = 0;

	for (int i = 0; i < f->nr_buffers; i++) {
		const struct dat_buffer *b = &f->buffers[i];

		if (!instance || !strcmp(instance, b->name)) {
			picked[n++] = b;
		} else if (i) {
			size_t k = strlen(names);

			snprintf(names + k, sizeof(names) - k, "%s%s", k ? ", " : "", b->name);
		}
	}
	if (!n)
		snprintf(d->error, sizeof(d->error), "no buffer '%s' in the file (it has: top%s%s)",
			 instance, names[0] ? ", " : "", names);
	return n;
}

/* Every CPU of the picked buffers, merged by time. */
static int merge(struct dat_file *f, const struct dat_buffer **picked, int nr,
		 struct trace_data *d)
{
	struct dat_stream **s;
	struct dat_ctx c = { .d = d };
	int n = 0, ret = -1;

	for (int i = 0; i < nr; i++)
		n += picked[i]->nr_cpus;
	s = calloc((size_t)n + 1, sizeof(*s));
	if (!s) {
		snprintf(d->error, sizeof(d->error), "out of memory");
		return -1;
	}
	n = 0;
	for (int i = 0; i < nr; i++)
		for (int k = 0; k < picked[i]->nr_cpus; k++)
			if (!(s[n++] = dat_stream_open(f, picked[i], k, d->error, sizeof(d->error))))
				goto out;
	for (;;) {
		struct tep_record *next = NULL;
		int at = -1;

		for (int i = 0; i < n; i++) {
			struct tep_record *r = dat_stream_peek(s[i]);

			if (r && (!next || r->ts < next->ts)) {
				next = r;
				at = i;
			}
		}
		if (!next)
			break;
		if (on_record(f->tep, next, dat_stream_take_gap(s[at]), &c)) {
			snprintf(d->error, sizeof(d->error), "%s after record %u", strerror(ENOMEM), c.seq);
			goto out;
		}
		dat_stream_advance(s[at]);
	}
	for (int i = 0; i < n; i++) {
		uint64_t bad = dat_stream_bad_pages(s[i]);

		/* a page that does not hold together: counted as one garbled line */
		if (bad && !d->garbled)
			d->first_garbled_line = c.seq;
		d->garbled += bad;
	}
	ret = 0;
out:
	for (int i = 0; i < n; i++)
		dat_stream_close(s[i]);
	free(s);
	return ret;
}

/* libtraceevent 1.7's format parser crashes on some damaged event formats
 * (a field "char prev_comm[16:;"): a child parses the metadata first, and
 * only a file the child survived is parsed here. About as long again as the
 * metadata takes (the records are not read twice). */
static bool metadata_survives(const char *buf, size_t len, struct trace_data *d)
{
	pid_t pid;
	int st;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return true; /* cannot check: read it anyway */
	if (!pid) {
		struct dat_file f;
		int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

		setrlimit(RLIMIT_CORE, &(struct rlimit){ 0, 0 }); /* a crash is expected here */
		if (null >= 0)
			dup2(null, STDERR_FILENO);
		_exit(dat_file_open(&f, buf, len) ? 1 : 0);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return true;
	if (WIFEXITED(st) && WEXITSTATUS(st) <= 1)
		return true;
	snprintf(d->error, sizeof(d->error),
		 NOT_READABLE ": its event formats crash libtraceevent's parser (damaged?)");
	return false;
}

int trace_dat_parse_buffer(const char *buf, size_t len, const char *instance,
			   struct trace_data *d)
{
	struct dat_file f;
	const struct dat_buffer *picked[64];
	int nr, ret = -1;

	memset(d, 0, sizeof(*d));
	d->max_cpu = -1;
	d->format = TF_TRACE_DAT;
	/* libtraceevent's warnings are several lines each: the one-line error says it all */
	tep_set_loglevel(TEP_LOG_NONE);
	memset(&f, 0, sizeof(f));
	if (!metadata_survives(buf, len, d))
		goto out;
	if (dat_file_open(&f, buf, len)) {
		snprintf(d->error, sizeof(d->error), NOT_READABLE ": %s", f.error);
		goto out;
	}
	d->header_cpus = f.cpus;
	nr = pick_buffers(&f, instance, picked, d);
	if (!nr)
		goto out;
	if (merge(&f, picked, nr, d))
		goto out;
	if (!d->lines && !d->header_cpus) {
		snprintf(d->error, sizeof(d->error), "no CPUs and no events in the trace.dat");
		goto out;
	}
	ret = 0;
out:
	dat_file_close(&f);
	return ret;
}
