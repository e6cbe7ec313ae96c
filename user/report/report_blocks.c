/* Pieces every report section uses: dotted JSON paths for the cells and one
 * histogram block (chart, then its buckets as a table). */
#include "report/report_blocks.h"

#include <stdarg.h>
#include <stdlib.h>

#include "report/html.h"
#include "report/svg_chart.h"

const char *report_path(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return buf;
}

/* One histogram: chart, then its buckets as a table under <details>. */
void report_hist_block(FILE *f, int fi, const json_t *hist, const char *path, const char *id,
		       const char *what, double linear_ns)
{
	size_t n = json_array_size(hist), i;
	struct hist_bucket *b = calloc(n ? n : 1, sizeof(*b));
	const json_t *k;
	char p[300], q[320];

	if (!b)
		return;
	json_array_foreach(hist, i, k) {
		b[i].lo = json_number_value(json_object_get(k, "lo_ns"));
		b[i].hi = json_is_number(json_object_get(k, "hi_ns")) ? json_number_value(json_object_get(k, "hi_ns"))
			   : linear_ns > 0 ? b[i].lo + linear_ns : 2 * b[i].lo;
		b[i].open = !json_is_number(json_object_get(k, "hi_ns"));
		b[i].count = json_number_value(json_object_get(k, "count"));
	}
	svg_hist(f, &(struct hist_chart){ id, (int)n, b, linear_ns > 0, what });
	fputs("<details><summary>buckets</summary><table class=\"data\"><tr><th>lo_ns</th>"
	      "<th>hi_ns</th><th>count</th></tr>\n", f);
	json_array_foreach(hist, i, k) {
		report_path(p, sizeof(p), "%s.%zu", path, i);
		fputs("<tr>", f);
		html_num_cell(f, fi, json_object_get(k, "lo_ns"), report_path(q, sizeof(q), "%s.lo_ns", p));
		html_num_cell(f, fi, json_object_get(k, "hi_ns"), report_path(q, sizeof(q), "%s.hi_ns", p));
		html_num_cell(f, fi, json_object_get(k, "count"), report_path(q, sizeof(q), "%s.count", p));
		fputs("</tr>\n", f);
	}
	fputs("</table></details>\n", f);
	free(b);
}
