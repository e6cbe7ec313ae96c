/* Text and JSON output of `idlescope hist`. */
#include "render/render_hist.h"

#include <inttypes.h>
#include <jansson.h>
#include <string.h>

#include "model/stats.h"
#include "util/units.h"

/* Bucket b's bounds in ns (hi exclusive; the last bucket is open). */
static void bounds(const struct hist_report *r, int b, uint64_t *lo, uint64_t *hi)
{
	if (r->linear_ns) {
		*lo = (uint64_t)b * r->linear_ns;
		*hi = *lo + r->linear_ns;
	} else {
		*lo = b ? (1ULL << (b - 1)) * r->unit_ns : 0;
		*hi = (1ULL << b) * r->unit_ns;
	}
}

static void percentiles(const struct hist_sums *h, uint64_t p[3])
{
	p[0] = hist_percentile(h->fine, IS_HIST_BUCKETS, h->min_ns, h->max_ns, 50);
	p[1] = hist_percentile(h->fine, IS_HIST_BUCKETS, h->min_ns, h->max_ns, 90);
	p[2] = hist_percentile(h->fine, IS_HIST_BUCKETS, h->min_ns, h->max_ns, 99);
}

static void text_view(FILE *f, const struct hist_report *r, const struct hist_view *v)
{
	const struct hist_sums *h = &v->h;
	uint64_t maxc = 0, p[3];
	int first = -1, last = -1;
	char b[6][16];

	fprintf(f, "\n%s", r->metric);
	if (v->cpu >= 0)
		fprintf(f, ", CPU %d", v->cpu);
	if (v->part)
		fprintf(f, ": %s", v->part);
	else if (v->state >= 0)
		fprintf(f, ", state %s", v->state_name);
	fprintf(f, "\n");
	for (int i = 0; i < IS_DISP_BUCKETS; i++)
		if (h->disp[i]) {
			if (first < 0)
				first = i;
			last = i;
			if (h->disp[i] > maxc)
				maxc = h->disp[i];
		}
	if (first < 0) {
		fprintf(f, "  (no samples)\n");
		return;
	}
	if (!r->linear_ns)
		first = 0; /* log2 tables start at 0, as the libbpf tools do */
	fprintf(f, "%*s%-6s%*s : count    distribution\n", 10, "", r->unit, 9, "");
	for (int i = first; i <= last; i++) {
		uint64_t lo, hi, n = h->disp[i];
		int stars = maxc ? (int)(n * 40 / maxc) : 0;
		char bar[41];

		bounds(r, i, &lo, &hi);
		memset(bar, '*', (size_t)stars);
		bar[stars] = '\0';
		if (i == IS_DISP_BUCKETS - 1)
			fprintf(f, "%10" PRIu64 " -> %-10s : %-8" PRIu64 " |%-40s|\n", lo / r->unit_ns,
				"inf", n, bar);
		else
			fprintf(f, "%10" PRIu64 " -> %-10" PRIu64 " : %-8" PRIu64 " |%-40s|\n",
				lo / r->unit_ns, (hi - 1) / r->unit_ns, n, bar);
	}
	percentiles(h, p);
	fprintf(f, "  n=%" PRIu64 " avg=%s min=%s p50=%s p90=%s p99=%s max=%s\n", h->count,
		fmt_ns(b[0], sizeof(b[0]), h->count ? h->sum_ns / h->count : 0),
		fmt_ns(b[1], sizeof(b[1]), h->min_ns), fmt_ns(b[2], sizeof(b[2]), p[0]),
		fmt_ns(b[3], sizeof(b[3]), p[1]), fmt_ns(b[4], sizeof(b[4]), p[2]),
		fmt_ns(b[5], sizeof(b[5]), h->max_ns));
}

static json_t *json_view(const struct hist_report *r, const struct hist_view *v)
{
	const struct hist_sums *h = &v->h;
	json_t *buckets = json_array();
	uint64_t p[3];

	for (int b = 0; b < IS_DISP_BUCKETS; b++) {
		uint64_t lo, hi;

		if (!h->disp[b])
			continue;
		bounds(r, b, &lo, &hi);
		json_array_append_new(buckets,
				      json_pack("{s:I,s:o,s:I}", "lo_ns", (json_int_t)lo, "hi_ns",
						b == IS_DISP_BUCKETS - 1 ? json_null()
									 : json_integer((json_int_t)hi),
						"count", (json_int_t)h->disp[b]));
	}
	percentiles(h, p);
	return json_pack("{s:o,s:o,s:o,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:o}", "cpu",
			 v->cpu >= 0 ? json_integer(v->cpu) : json_null(), "state",
			 v->state >= 0 && !v->part
				 ? json_pack("{s:i,s:s}", "index", v->state, "name", v->state_name)
				 : json_null(),
			 "part", v->part ? json_string(v->part) : json_null(),
			 "count", (json_int_t)h->count, "sum_ns", (json_int_t)h->sum_ns, "min_ns",
			 (json_int_t)h->min_ns, "max_ns", (json_int_t)h->max_ns, "p50_ns",
			 (json_int_t)p[0], "p90_ns", (json_int_t)p[1], "p99_ns", (json_int_t)p[2],
			 "buckets", buckets);
}

json_t *hist_report_json(const struct hist_report *r)
{
	json_t *o = json_object(), *views = json_array();

	json_object_set_new(o, "schema", json_string("idlescope-hist/1"));
	json_object_set_new(o, "metric", json_string(r->metric));
	json_object_set_new(o, "unit", json_string(r->unit));
	json_object_set_new(o, "linear_ns",
			    r->linear_ns ? json_integer((json_int_t)r->linear_ns) : json_null());
	json_object_set_new(o, "interval", json_integer(r->seq));
	json_object_set_new(o, "duration_ns", json_integer((json_int_t)r->duration_ns));
	for (int i = 0; i < r->nr_views; i++)
		json_array_append_new(views, json_view(r, &r->views[i]));
	json_object_set_new(o, "histograms", views);
	if (r->path_from)
		json_object_set_new(o, "path",
				    json_pack("{s:s,s:s,s:I,s:I,s:I,s:I}", "from", r->path_from, "to",
					      r->path_to, "pending_from", (json_int_t)r->path_pending,
					      "from_without_to", (json_int_t)r->path_replaced,
					      "to_without_from", (json_int_t)r->path_unmatched_to,
					      "too_deep", (json_int_t)r->path_overflow));
	return o;
}

void render_hist(FILE *f, enum out_format fmt, const struct hist_report *r)
{
	if (fmt == FMT_JSON) {
		json_t *o = hist_report_json(r);

		json_dumpf(o, f, JSON_COMPACT);
		fputc('\n', f);
		json_decref(o);
	} else {
		for (int i = 0; i < r->nr_views; i++)
			text_view(f, r, &r->views[i]);
		if (r->path_from)
			fprintf(f, "  %s -> %s: %" PRIu64 " FROM returned without a TO, %" PRIu64
				   " TO without a FROM, %" PRIu64 " FROM pending at the end, %" PRIu64
				   " nested too deep\n",
				r->path_from, r->path_to, r->path_replaced, r->path_unmatched_to,
				r->path_pending, r->path_overflow);
	}
	fflush(f);
}
