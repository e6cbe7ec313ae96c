/* trace-cmd's trace.dat container (file versions 6 and 7, uncompressed or
 * with zlib or zstd), read from memory with every offset and count checked
 * against the bytes there: the metadata into a libtraceevent handle, each
 * buffer's per-CPU ring-buffer pages into a stream of records. The layout is
 * trace-cmd's trace-cmd.dat.v6(5) and .v7(5); the records' decoding is
 * libtraceevent's, as trace-cmd's own reader does. No library of trace-cmd
 * is needed, so a static build reads these files too. */
#ifndef IDLESCOPE_DAT_FILE_H
#define IDLESCOPE_DAT_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tep_handle;
struct tep_record;

/* One CPU's data of one buffer: where it lies in the file. */
struct dat_cpu_data {
	uint32_t cpu;
	uint64_t offset, size;
};

/* A buffer: the top one ("" in the file, named "top" here) or a
 * `trace-cmd record -B NAME` instance. */
struct dat_buffer {
	char name[64];
	uint32_t page_size;
	int compressed;      /* the CPU data is in compressed chunks (v7) */
	int nr_cpus;
	struct dat_cpu_data *cpus;
};

struct dat_file {
	const uint8_t *buf;
	size_t len;
	int version;          /* 6 or 7 */
	int big_endian;
	int long_size;        /* the kernel's, from the page header */
	uint32_t page_size;
	int compression;      /* DAT_COMP_* */
	int cpus;             /* the traced machine's CPU count */
	int64_t ts_offset;    /* DATE and OFFSET options, added to every timestamp */
	uint32_t tsc_mult, tsc_shift; /* TSC2NSEC: ts = ts * mult >> shift */
	struct tep_handle *tep;
	int nr_buffers;       /* [0] is the top buffer */
	struct dat_buffer *buffers;
	char error[112];
};

enum { DAT_COMP_NONE, DAT_COMP_ZLIB, DAT_COMP_ZSTD };

/* Reads the metadata of the file in buf (kept, not copied). Returns 0, or
 * -1 with f->error set; dat_file_close either way. */
int dat_file_open(struct dat_file *f, const void *buf, size_t len);
void dat_file_close(struct dat_file *f);

/* One CPU's records in order, page by page (chunk by chunk when
 * compressed). A page whose header or events do not fit it is skipped and
 * counted. */
struct dat_stream;

/* NULL when out of memory or the data's chunk table is unreadable (error set). */
struct dat_stream *dat_stream_open(struct dat_file *f, const struct dat_buffer *b, int i,
				   char *error, size_t errlen);
/* The next record (valid until the next call), its timestamp with the
 * file's offsets applied; NULL at the end. */
struct tep_record *dat_stream_peek(struct dat_stream *s);
void dat_stream_advance(struct dat_stream *s);
uint64_t dat_stream_bad_pages(const struct dat_stream *s);
/* Whether events were lost (a damaged page skipped) before the record
 * dat_stream_peek returns now; cleared by the call. */
bool dat_stream_take_gap(struct dat_stream *s);
void dat_stream_close(struct dat_stream *s);

#endif
