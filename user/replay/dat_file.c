/* trace-cmd's trace.dat container, read from memory (see dat_file.h). Every
 * read goes through a bounded cursor: a count or an offset that points past
 * the bytes there makes the file unreadable, never a read out of bounds. */
#include "replay/dat_file.h"

#include <endian.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>
#include <traceevent/kbuffer.h>
#include <zlib.h>
#include <zstd.h>

#define DAT_MAGIC "\x17\x08\x44tracing"
/* a decompressed block larger than this is a damaged size field */
#define MAX_BLOCK (256u << 20)
#define MAX_CPUS 4096
#define MAX_BUFFERS 64

/* trace-cmd's option and section ids (trace-cmd.dat.v7(5)) */
enum {
	OPT_DONE = 0,
	OPT_DATE = 1,
	OPT_BUFFER = 3,
	OPT_OFFSET = 7,
	OPT_CPUCOUNT = 8,
	OPT_TSC2NSEC = 14,
	OPT_HEADER_INFO = 16,
	OPT_FTRACE_EVENTS = 17,
	OPT_EVENT_FORMATS = 18,
	OPT_KALLSYMS = 19,
	OPT_PRINTK = 20,
	OPT_CMDLINES = 21,
	SEC_FL_COMPRESS = 1,
};

struct cur {
	const uint8_t *p;
	size_t len, off;
	int big;
};

static int rd_bytes(struct cur *c, const uint8_t **out, size_t n)
{
	if (n > c->len - c->off)
		return -1;
	*out = c->p + c->off;
	c->off += n;
	return 0;
}

static int rd_num(struct cur *c, int bytes, uint64_t *v)
{
	const uint8_t *b;
	uint64_t x = 0;

	if (rd_bytes(c, &b, (size_t)bytes))
		return -1;
	for (int i = 0; i < bytes; i++)
		x |= (uint64_t)b[c->big ? bytes - 1 - i : i] << (8 * i);
	*v = x;
	return 0;
}

static int rd32(struct cur *c, uint32_t *v)
{
	uint64_t x;

	if (rd_num(c, 4, &x))
		return -1;
	*v = (uint32_t)x;
	return 0;
}

/* A NUL-terminated string inside the cursor's bytes, or NULL. */
static const char *rd_str(struct cur *c)
{
	const uint8_t *s = c->p + c->off, *nul = memchr(s, 0, c->len - c->off);

	if (!nul)
		return NULL;
	c->off += (size_t)(nul - s) + 1;
	return (const char *)s;
}

/* A cursor over the file's bytes from off (bounded by the file). */
static int file_cur(const struct dat_file *f, uint64_t off, struct cur *c)
{
	if (off > f->len)
		return -1;
	*c = (struct cur){ f->buf, f->len, (size_t)off, f->big_endian };
	return 0;
}

static int fail(struct dat_file *f, const char *what)
{
	if (!f->error[0])
		snprintf(f->error, sizeof(f->error), "%s", what);
	return -1;
}

/* in (csize bytes) decompressed into out (usize bytes); returns the bytes
 * produced, or -1. */
static long decompress(int comp, const uint8_t *in, uint32_t csize, uint8_t *out, uint32_t usize)
{
	if (comp == DAT_COMP_ZLIB) {
		uLongf n = usize;

		return uncompress(out, &n, in, csize) == Z_OK ? (long)n : -1;
	}
	if (comp == DAT_COMP_ZSTD) {
		size_t n = ZSTD_decompress(out, usize, in, csize);

		return ZSTD_isError(n) ? -1 : (long)n;
	}
	return -1;
}

/* A compressed block at src ("<csize> <usize> <data>") into a new buffer
 * (*owned, its previous block freed); *out then covers it. */
static int take_block(struct dat_file *f, struct cur *src, uint8_t **owned, struct cur *out)
{
	uint32_t csize, usize;
	const uint8_t *in;
	uint8_t *buf;
	long n;

	if (rd32(src, &csize) || rd32(src, &usize) || rd_bytes(src, &in, csize) ||
	    usize > MAX_BLOCK)
		return fail(f, "a compressed block past the end of the file (truncated?)");
	buf = malloc(usize ? usize : 1);
	if (!buf)
		return fail(f, "out of memory");
	n = decompress(f->compression, in, csize, buf, usize);
	if (n < 0) {
		free(buf);
		return fail(f, "a compressed block that does not decompress (damaged?)");
	}
	free(*owned);
	*owned = buf;
	*out = (struct cur){ buf, (size_t)n, 0, f->big_endian };
	return 0;
}

/* A section's header at off; *c then over its content (decompressed into
 * *owned when the section is compressed). */
static int open_section(struct dat_file *f, uint64_t off, unsigned id, struct cur *c,
			uint8_t **owned, uint16_t *flags_out)
{
	uint64_t sid, flags, desc, size;

	if (file_cur(f, off, c) || rd_num(c, 2, &sid) || rd_num(c, 2, &flags) ||
	    rd_num(c, 4, &desc) || rd_num(c, 8, &size))
		return fail(f, "a section header past the end of the file (truncated?)");
	if (sid != id)
		return fail(f, "a section that is not where its option says (damaged?)");
	if (flags_out)
		*flags_out = (uint16_t)flags;
	if (flags & SEC_FL_COMPRESS)
		return take_block(f, c, owned, c);
	/* an uncompressed section's content is bounded by its size too */
	if (size < c->len - c->off)
		c->len = c->off + (size_t)size;
	return 0;
}

/* A copy of n bytes as a C string (libtraceevent's parsers want one). */
static char *cstr(const uint8_t *p, size_t n)
{
	char *s = malloc(n + 1);

	if (s) {
		memcpy(s, p, n);
		s[n] = '\0';
	}
	return s;
}

static int read_headers(struct dat_file *f, struct cur *c)
{
	const uint8_t *tag, *data;
	uint64_t size;
	char *page;

	if (rd_bytes(c, &tag, 12) || memcmp(tag, "header_page", 12) || rd_num(c, 8, &size) ||
	    rd_bytes(c, &data, size))
		return fail(f, "no page header description (damaged or truncated?)");
	if (!(page = cstr(data, size)))
		return fail(f, "out of memory");
	tep_parse_header_page(f->tep, page, size, f->long_size);
	free(page);
	/* the page's commit field is a kernel long: its size is the kernel's */
	f->long_size = tep_get_header_page_size(f->tep);
	if (rd_bytes(c, &tag, 13) || memcmp(tag, "header_event", 13) || rd_num(c, 8, &size) ||
	    rd_bytes(c, &data, size))
		return fail(f, "no event header description (damaged or truncated?)");
	if (tep_get_header_timestamp_size(f->tep) != 8 || (f->long_size != 4 && f->long_size != 8))
		return fail(f, "a ring-buffer page layout this reader does not know");
	return 0;
}

/* count formats of system sys; one that does not parse is left out (its
 * records are then counted as garbled), as trace-cmd does. */
static int read_formats(struct dat_file *f, struct cur *c, uint32_t count, const char *sys)
{
	for (uint32_t i = 0; i < count; i++) {
		const uint8_t *data;
		uint64_t size;

		if (rd_num(c, 8, &size) || rd_bytes(c, &data, size))
			return fail(f, "the event formats end past the file (truncated?)");
		tep_parse_event(f->tep, (const char *)data, (unsigned long)size, sys);
	}
	return 0;
}

static int read_ftrace_events(struct dat_file *f, struct cur *c)
{
	uint32_t count;

	if (rd32(c, &count))
		return fail(f, "the event formats end past the file (truncated?)");
	return read_formats(f, c, count, "ftrace");
}

static int read_event_formats(struct dat_file *f, struct cur *c)
{
	uint32_t systems, count;

	if (rd32(c, &systems))
		return fail(f, "the event formats end past the file (truncated?)");
	for (uint32_t i = 0; i < systems; i++) {
		const char *sys = rd_str(c);

		if (!sys || rd32(c, &count))
			return fail(f, "the event formats end past the file (truncated?)");
		if (read_formats(f, c, count, sys))
			return -1;
	}
	return 0;
}

/* kallsyms, printk formats (4-byte sizes) and saved cmdlines (8-byte). */
static int read_text(struct dat_file *f, struct cur *c, int size_bytes,
		     int (*parse)(struct tep_handle *, const char *))
{
	const uint8_t *data;
	uint64_t size;
	char *text;

	if (rd_num(c, size_bytes, &size) || rd_bytes(c, &data, size))
		return fail(f, "the symbol or command tables end past the file (truncated?)");
	if (!size)
		return 0;
	if (!(text = cstr(data, size)))
		return fail(f, "out of memory");
	parse(f->tep, text);
	free(text);
	return 0;
}

static int parse_kallsyms(struct tep_handle *t, const char *s) { return tep_parse_kallsyms(t, s); }
static int parse_printk(struct tep_handle *t, const char *s) { return tep_parse_printk_formats(t, s); }
static int parse_cmdlines(struct tep_handle *t, const char *s) { return tep_parse_saved_cmdlines(t, s); }

static struct dat_buffer *add_buffer(struct dat_file *f, const char *name)
{
	struct dat_buffer *b;

	if (!*name)
		return &f->buffers[0];
	if (f->nr_buffers >= MAX_BUFFERS) {
		fail(f, "more buffers than this reader takes");
		return NULL;
	}
	b = &f->buffers[f->nr_buffers++];
	snprintf(b->name, sizeof(b->name), "%s", name);
	return b;
}

/* A buffer's CPU table, in CPU order (trace-cmd's iteration order). */
static int cmp_cpu(const void *a, const void *b)
{
	const struct dat_cpu_data *x = a, *y = b;

	return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

static int check_cpus(struct dat_file *f, struct dat_buffer *b)
{
	qsort(b->cpus, (size_t)b->nr_cpus, sizeof(*b->cpus), cmp_cpu);
	for (int i = 0; i < b->nr_cpus; i++) {
		const struct dat_cpu_data *d = &b->cpus[i];

		if (d->cpu >= MAX_CPUS || (i && d->cpu == b->cpus[i - 1].cpu))
			return fail(f, "a CPU numbered twice or out of range in a buffer (damaged?)");
		if (d->size && (d->offset > f->len || d->size > f->len - d->offset))
			return fail(f, "a CPU's data ends past the end of the file (truncated?)");
	}
	return 0;
}

static int alloc_cpus(struct dat_file *f, struct dat_buffer *b, uint64_t n)
{
	if (n > MAX_CPUS)
		return fail(f, "more CPUs than this reader takes (damaged?)");
	free(b->cpus);
	b->cpus = calloc(n ? n : 1, sizeof(*b->cpus));
	if (!b->cpus)
		return fail(f, "out of memory");
	b->nr_cpus = (int)n;
	return 0;
}

/* The options both versions share: the CPU count and what shifts or scales
 * timestamps, applied as trace-cmd applies them by default. */
static int common_option(struct dat_file *f, uint64_t id, const uint8_t *data, uint64_t size)
{
	struct cur o = { data, size, 0, f->big_endian };
	uint64_t v;

	if (id == OPT_CPUCOUNT && !rd_num(&o, 4, &v)) {
		f->cpus = (int)(v > MAX_CPUS ? MAX_CPUS : v);
	} else if (id == OPT_DATE || id == OPT_OFFSET) {
		char *s = cstr(data, size);

		if (!s)
			return fail(f, "out of memory");
		/* DATE is in microseconds */
		f->ts_offset += strtoll(s, NULL, 0) * (id == OPT_DATE ? 1000 : 1);
		free(s);
	} else if (id == OPT_TSC2NSEC && size >= 16) {
		rd_num(&o, 4, &v);
		f->tsc_mult = (uint32_t)v;
		rd_num(&o, 4, &v);
		f->tsc_shift = (uint32_t)v;
	}
	return 0;
}

/* --- version 6: one sequence of headers, then options and "flyrecord" --- */

/* "flyrecord\0" (or options first) at c: the buffer's CPU table follows. */
static int read_v6_data(struct dat_file *f, struct cur *c, struct dat_buffer *b, bool top);

static int read_v6_options(struct dat_file *f, struct cur *c, bool top)
{
	uint64_t id, size;
	const uint8_t *data;

	for (int n = 0;; n++) {
		if (rd_num(c, 2, &id) || n > 100000)
			return fail(f, "the options end past the file (truncated?)");
		if (id == OPT_DONE)
			return 0;
		if (rd_num(c, 4, &size) || rd_bytes(c, &data, size))
			return fail(f, "the options end past the file (truncated?)");
		if (!top) /* an instance's own options: only its data matters */
			continue;
		struct cur o = { data, size, 0, f->big_endian };
		uint64_t v;

		if (id == OPT_BUFFER) {
			const char *name;
			struct dat_buffer *b;
			struct cur at;

			if (rd_num(&o, 8, &v) || !(name = rd_str(&o)) || !*name)
				return fail(f, "a damaged buffer option");
			if (!(b = add_buffer(f, name)))
				return -1;
			b->page_size = f->page_size;
			if (file_cur(f, v, &at) || read_v6_data(f, &at, b, false))
				return fail(f, "a buffer's data past the end of the file (truncated?)");
		} else if (common_option(f, id, data, size)) {
			return -1;
		}
	}
}

static int read_v6_data(struct dat_file *f, struct cur *c, struct dat_buffer *b, bool top)
{
	const uint8_t *tag;

	for (;;) {
		if (rd_bytes(c, &tag, 10))
			return fail(f, "no trace data section (truncated?)");
		if (!memcmp(tag, "options  ", 10)) {
			if (read_v6_options(f, c, top))
				return -1;
			continue;
		}
		if (!memcmp(tag, "latency  ", 10))
			return fail(f, "a latency-tracer text capture, not per-CPU event data");
		if (memcmp(tag, "flyrecord", 10))
			return fail(f, "no trace data section (damaged?)");
		break;
	}
	if (alloc_cpus(f, b, (uint64_t)f->cpus))
		return -1;
	for (int i = 0; i < f->cpus; i++) {
		b->cpus[i].cpu = (uint32_t)i;
		if (rd_num(c, 8, &b->cpus[i].offset) || rd_num(c, 8, &b->cpus[i].size))
			return fail(f, "the CPU data table ends past the file (truncated?)");
	}
	return check_cpus(f, b);
}

static int open_v6(struct dat_file *f, struct cur *c)
{
	uint32_t cpus;

	if (read_headers(f, c) || read_ftrace_events(f, c) || read_event_formats(f, c) ||
	    read_text(f, c, 4, parse_kallsyms) || read_text(f, c, 4, parse_printk) ||
	    read_text(f, c, 8, parse_cmdlines))
		return -1;
	if (rd32(c, &cpus) || cpus > MAX_CPUS)
		return fail(f, "no CPU count (truncated?)");
	f->cpus = (int)cpus;
	return read_v6_data(f, c, &f->buffers[0], true);
}

/* --- version 7: sections found through chained option sections --- */

static int v7_buffer(struct dat_file *f, struct cur *o)
{
	uint64_t off, v, n;
	const char *name;
	struct dat_buffer *b;
	uint16_t flags;

	if (rd_num(o, 8, &off) || !(name = rd_str(o)) || !rd_str(o) /* clock */ || rd_num(o, 4, &v) ||
	    rd_num(o, 4, &n))
		return fail(f, "a damaged buffer option");
	if (!(b = add_buffer(f, name)) || alloc_cpus(f, b, n))
		return -1;
	b->page_size = (uint32_t)v;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t cpu;

		if (rd_num(o, 4, &cpu) || rd_num(o, 8, &b->cpus[i].offset) ||
		    rd_num(o, 8, &b->cpus[i].size))
			return fail(f, "a damaged buffer option");
		b->cpus[i].cpu = (uint32_t)cpu;
	}
	/* the data section's header says whether its chunks are compressed */
	{
		struct cur h;
		uint64_t id, fl;

		if (file_cur(f, off, &h) || rd_num(&h, 2, &id) || rd_num(&h, 2, &fl) ||
		    id != OPT_BUFFER)
			return fail(f, "a buffer's data section is missing (truncated?)");
		flags = (uint16_t)fl;
	}
	b->compressed = flags & SEC_FL_COMPRESS;
	return check_cpus(f, b);
}

/* Reads the chain of option sections from off; section offsets into sec[]. */
static int read_v7_options(struct dat_file *f, uint64_t off, uint64_t sec[OPT_CMDLINES + 1])
{
	for (int chain = 0; off; chain++) {
		struct cur c;
		uint8_t *owned = NULL;
		uint64_t next = 0;
		int r = 0;

		if (chain > 64 || open_section(f, off, OPT_DONE, &c, &owned, NULL))
			return fail(f, "the options end past the file (truncated?)");
		for (;;) {
			uint64_t id, size, v;
			const uint8_t *data;

			if (rd_num(&c, 2, &id) || rd_num(&c, 4, &size) || rd_bytes(&c, &data, size)) {
				r = fail(f, "the options end past the file (truncated?)");
				break;
			}
			struct cur o = { data, size, 0, f->big_endian };

			if (id == OPT_DONE) {
				if (rd_num(&o, 8, &next))
					r = fail(f, "a damaged options section");
				break;
			}
			if (id >= OPT_HEADER_INFO && id <= OPT_CMDLINES) {
				if (!rd_num(&o, 8, &v))
					sec[id] = v;
			} else if (id == OPT_BUFFER) {
				if ((r = v7_buffer(f, &o)))
					break;
			} else if ((r = common_option(f, id, data, size))) {
				break;
			}
		}
		free(owned);
		if (r)
			return -1;
		off = next;
	}
	return 0;
}

static int open_v7(struct dat_file *f, struct cur *c)
{
	const char *name, *ver;
	uint64_t first, sec[OPT_CMDLINES + 1] = { 0 };
	static const struct {
		int id;
		int (*read)(struct dat_file *, struct cur *);
	} order[] = { { OPT_HEADER_INFO, read_headers },
		      { OPT_FTRACE_EVENTS, read_ftrace_events },
		      { OPT_EVENT_FORMATS, read_event_formats } };

	if (!(name = rd_str(c)) || !(ver = rd_str(c)) || rd_num(c, 8, &first))
		return fail(f, "no compression header (truncated?)");
	if (!strcmp(name, "none"))
		f->compression = DAT_COMP_NONE;
	else if (!strcmp(name, "zlib"))
		f->compression = DAT_COMP_ZLIB;
	else if (!strcmp(name, "zstd"))
		f->compression = DAT_COMP_ZSTD;
	else
		return fail(f, "a compression this reader does not know (not none, zlib or zstd)");
	if (read_v7_options(f, first, sec))
		return -1;
	if (!sec[OPT_HEADER_INFO])
		return fail(f, "no page header description (damaged?)");
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		uint8_t *owned = NULL;
		struct cur s;
		int r;

		if (!sec[order[i].id])
			continue;
		r = open_section(f, sec[order[i].id], (unsigned)order[i].id, &s, &owned, NULL) ||
		    order[i].read(f, &s);
		free(owned);
		if (r)
			return -1;
	}
	for (int id = OPT_KALLSYMS; id <= OPT_CMDLINES; id++) {
		uint8_t *owned = NULL;
		struct cur s;
		int r;

		if (!sec[id])
			continue;
		r = open_section(f, sec[id], (unsigned)id, &s, &owned, NULL) ||
		    read_text(f, &s, id == OPT_CMDLINES ? 8 : 4,
			      id == OPT_KALLSYMS ? parse_kallsyms
			      : id == OPT_PRINTK ? parse_printk : parse_cmdlines);
		free(owned);
		if (r)
			return -1;
	}
	return 0;
}

int dat_file_open(struct dat_file *f, const void *buf, size_t len)
{
	struct cur c = { buf, len, 0, 0 };
	const uint8_t *magic, *b;
	const char *ver;
	int r;

	memset(f, 0, sizeof(*f));
	f->buf = buf;
	f->len = len;
	f->buffers = calloc(MAX_BUFFERS, sizeof(*f->buffers));
	if (!f->buffers)
		return fail(f, "out of memory");
	f->nr_buffers = 1;
	snprintf(f->buffers[0].name, sizeof(f->buffers[0].name), "top");
	if (rd_bytes(&c, &magic, 10) || memcmp(magic, DAT_MAGIC, 10) || !(ver = rd_str(&c)))
		return fail(f, "no trace.dat header");
	f->version = atoi(ver);
	if (f->version != 6 && f->version != 7)
		return fail(f, "a file version this reader does not know (not 6 or 7)");
	if (rd_bytes(&c, &b, 2))
		return fail(f, "no trace.dat header");
	f->big_endian = c.big = b[0] == 1;
	f->long_size = b[1];
	if (rd32(&c, &f->page_size) || f->page_size < 64 || f->page_size > (1u << 24))
		return fail(f, "no usable page size in the header (damaged?)");
	f->buffers[0].page_size = f->page_size;
	if (!(f->tep = tep_alloc()))
		return fail(f, "out of memory");
	tep_set_file_bigendian(f->tep, f->big_endian ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(f->tep, __BYTE_ORDER == __BIG_ENDIAN ? TEP_BIG_ENDIAN
								      : TEP_LITTLE_ENDIAN);
	tep_set_long_size(f->tep, f->long_size);
	tep_set_page_size(f->tep, (int)f->page_size);
	r = f->version == 6 ? open_v6(f, &c) : open_v7(f, &c);
	if (!r)
		tep_set_cpus(f->tep, f->cpus);
	return r;
}

void dat_file_close(struct dat_file *f)
{
	if (f->buffers)
		for (int i = 0; i < f->nr_buffers; i++)
			free(f->buffers[i].cpus);
	free(f->buffers);
	if (f->tep)
		tep_free(f->tep);
	f->buffers = NULL;
	f->tep = NULL;
}

/* --- one CPU's records --- */

struct dat_stream {
	struct dat_file *f;
	uint32_t cpu, page_size;
	struct cur data;       /* the file's region, or the current chunk */
	uint8_t *chunk;        /* compressed: the decompressed chunk */
	struct cur chunks;     /* compressed: the rest of the chunk table */
	uint32_t chunks_left;
	uint8_t *page;         /* page_size bytes, then as many zeroes */
	struct kbuffer *kbuf;
	bool loaded;
	size_t limit;          /* the loaded page's header and events */
	struct tep_record rec;
	bool have;
	uint64_t bad_pages;
	bool gap;              /* events lost before the next record (a bad page) */
};

struct dat_stream *dat_stream_open(struct dat_file *f, const struct dat_buffer *b, int i,
				   char *error, size_t errlen)
{
	const struct dat_cpu_data *d = &b->cpus[i];
	struct dat_stream *s = calloc(1, sizeof(*s));
	uint32_t ps = b->page_size ? b->page_size : f->page_size;

	if (!s || ps < 64 || ps > (1u << 24) || !(s->page = calloc(2, ps)) ||
	    !(s->kbuf = kbuffer_alloc(f->long_size == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
				     f->big_endian ? KBUFFER_ENDIAN_BIG : KBUFFER_ENDIAN_LITTLE))) {
		snprintf(error, errlen, "out of memory");
		dat_stream_close(s);
		return NULL;
	}
	if (tep_is_old_format(f->tep))
		kbuffer_set_old_format(s->kbuf);
	s->f = f;
	s->cpu = d->cpu;
	s->page_size = ps;
	s->data = (struct cur){ d->size ? f->buf + d->offset : f->buf, (size_t)d->size, 0,
				f->big_endian };
	if (b->compressed && d->size) {
		/* trace-cmd's size leaves out part of the chunk table: the
		 * chunks are bounded by the file, as its reader bounds them */
		s->chunks = (struct cur){ f->buf, f->len, (size_t)d->offset, f->big_endian };
		if (rd32(&s->chunks, &s->chunks_left)) {
			snprintf(error, errlen, "CPU %u's chunk table ends past its data (damaged?)",
				 d->cpu);
			dat_stream_close(s);
			return NULL;
		}
		s->data = (struct cur){ NULL, 0, 0, f->big_endian };
	}
	return s;
}

/* The next page_size bytes of the CPU's data into s->page (zero-padded);
 * false at the end. A chunk that does not decompress ends the CPU's data. */
static bool next_page(struct dat_stream *s)
{
	const uint8_t *p;
	size_t n;

	while (s->data.off >= s->data.len) {
		if (!s->chunks_left)
			return false;
		s->chunks_left--;
		if (take_block(s->f, &s->chunks, &s->chunk, &s->data)) {
			s->bad_pages++;
			s->chunks_left = 0;
			s->f->error[0] = '\0';
			return false;
		}
	}
	n = s->data.len - s->data.off;
	if (n > s->page_size)
		n = s->page_size;
	rd_bytes(&s->data, &p, n);
	memset(s->page, 0, 2 * (size_t)s->page_size);
	memcpy(s->page, p, n);
	return true;
}

/* The page's commit (bytes of events) must fit the page: checked before
 * kbuffer walks it. 27 bits, as the kernel's flags sit above them. */
static bool load_page(struct dat_stream *s)
{
	struct cur c = { s->page, s->page_size, 8, s->f->big_endian };
	size_t start = 8 + (size_t)s->f->long_size;
	uint64_t commit;

	if (rd_num(&c, s->f->long_size, &commit))
		return false;
	commit &= (1u << 27) - 1;
	if (commit > s->page_size - start)
		return false;
	s->limit = start + commit;
	return kbuffer_load_subbuffer(s->kbuf, s->page) == 0;
}

static uint64_t ts_calc(const struct dat_file *f, uint64_t ts)
{
	if (f->tsc_mult)
		ts = (uint64_t)(((unsigned __int128)ts * f->tsc_mult) >> f->tsc_shift);
	return ts + (uint64_t)f->ts_offset;
}

struct tep_record *dat_stream_peek(struct dat_stream *s)
{
	while (!s->have) {
		unsigned long long ts;
		uint8_t *data;
		int size;

		if (!s->loaded) {
			if (!next_page(s))
				return NULL;
			if (!load_page(s)) {
				s->bad_pages++;
				s->gap = true;
				continue;
			}
			s->loaded = true;
		}
		data = kbuffer_read_event(s->kbuf, &ts);
		if (!data) {
			s->loaded = false;
			continue;
		}
		size = kbuffer_event_size(s->kbuf);
		if (data < s->page || size < 0 || (size_t)(data - s->page) > s->limit ||
		    (size_t)size > s->limit - (size_t)(data - s->page)) {
			s->bad_pages++; /* an event past the page's commit: the rest is lost */
			s->gap = true;
			s->loaded = false;
			continue;
		}
		memset(&s->rec, 0, sizeof(s->rec));
		s->rec.ts = ts_calc(s->f, ts);
		s->rec.size = size;
		s->rec.data = data;
		s->rec.cpu = (int)s->cpu;
		s->rec.missed_events = kbuffer_missed_events(s->kbuf);
		s->have = true;
	}
	return &s->rec;
}

void dat_stream_advance(struct dat_stream *s)
{
	if (s->have) {
		s->have = false;
		kbuffer_next_event(s->kbuf, NULL);
	}
}

bool dat_stream_take_gap(struct dat_stream *s)
{
	bool g = s->gap;

	s->gap = false;
	return g;
}

uint64_t dat_stream_bad_pages(const struct dat_stream *s)
{
	return s->bad_pages;
}

void dat_stream_close(struct dat_stream *s)
{
	if (!s)
		return;
	if (s->kbuf)
		kbuffer_free(s->kbuf);
	free(s->chunk);
	free(s->page);
	free(s);
}
