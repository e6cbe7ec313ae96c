/* The flat metric namespace of a summary: "state[POLL].p99_ns" = 12345.
 * One set of names for `compare` columns and `--fail-if` expressions,
 * built from the versioned JSON so any source (a live run, a file) works. */
#ifndef IDLESCOPE_FLATTEN_H
#define IDLESCOPE_FLATTEN_H

#include <jansson.h>
#include <stddef.h>

struct metric_kv {
	char key[96];
	double value;
};

struct metric_set {
	int n, cap;
	struct metric_kv *kv;
};

/* Adds every metric of an "idlescope/1" document. Returns 0 or -1 (out of
 * memory). */
int flatten_summary(const json_t *doc, struct metric_set *out);
/* The metrics of an "idlescope-hist/1" report: p99_ns, count, ... for a
 * single histogram; cpu[N].*, state[NAME].*, part[total|wakeup|runq].* per
 * view. Returns 0 or -1. */
int flatten_hist(const json_t *doc, struct metric_set *out);
/* The value of key, or NULL. */
const struct metric_kv *metric_find(const struct metric_set *m, const char *key);
void metric_set_free(struct metric_set *m);
/* The entities (a key without its last field: "cpu[1]", "group[custom0]",
 * "total.lateness[POLL]") with metrics in a and none of the same name in b,
 * as a JSON array of strings in a's order; NULL when out of memory. */
json_t *metric_unmatched(const struct metric_set *a, const struct metric_set *b);

/* An idlescope/1 document from len bytes at buf (no NUL needed): a JSON
 * document, or JSON Lines from `record -i`, whose last summary line counts.
 * name labels the errors. Returns the document or NULL with a one-line
 * reason in err (report/summary_file.h reads a file). */
json_t *load_summary_buffer(const char *buf, size_t len, const char *name, char *err,
			    size_t errlen);

#endif
