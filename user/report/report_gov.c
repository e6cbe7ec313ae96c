/* The report's governor-miss section (report_gov.h). */
#include "report/report_gov.h"

#include "report/html.h"
#include "report/report_blocks.h"

static const char *const fields[] = { "known_periods",	      "above_timer_near",
				      "above_woken_before_timer", "below_tick_kept",
				      "below_predicted_short",	      "below_timer_moved", NULL };

/* one row per state of c (at JSON path prefix) with a governor object */
static void rows(FILE *f, int fi, const json_t *c, const char *prefix, const char *label)
{
	const json_t *st;
	size_t i;
	char p[300];

	json_array_foreach(json_object_get(c, "states"), i, st) {
		const json_t *g = json_object_get(st, "governor");

		if (!json_is_object(g))
			continue;
		fputs("<tr>", f);
		html_text_cell(f, label);
		html_text_cell(f, json_string_value(json_object_get(st, "name")));
		html_num_cell(f, fi, json_object_get(st, "above"),
			      report_path(p, sizeof(p), "%s.states.%zu.above", prefix, i));
		html_num_cell(f, fi, json_object_get(st, "below"),
			      report_path(p, sizeof(p), "%s.states.%zu.below", prefix, i));
		html_num_cell(f, fi, json_object_get(st, "below_qos"),
			      report_path(p, sizeof(p), "%s.states.%zu.below_qos", prefix, i));
		for (int k = 0; fields[k]; k++)
			html_num_cell(f, fi, json_object_get(g, fields[k]),
				      report_path(p, sizeof(p), "%s.states.%zu.governor.%s", prefix, i,
						  fields[k]));
		fputs("</tr>\n", f);
	}
}

void report_gov_section(FILE *f, int fi, const json_t *doc)
{
	const json_t *in = json_object_get(doc, "governor_inputs"), *c;
	size_t i;
	char prefix[32], label[32];

	if (!json_is_object(in))
		return;
	fprintf(f, "<h3 id=\"f%d-governor\">Why the governor missed</h3>\n", fi);
	if (!json_is_true(json_object_get(in, "watched"))) {
		fputs("<p class=\"note\">Not known here: ", f);
		html_escape(f, json_string_value(json_object_get(in, "reason")));
		fputs(".</p>\n", f);
		return;
	}
	fputs("<p class=\"note\">Of the periods whose governor inputs were seen: too deep with the "
	      "next timer due before the state paid off (timer near) or woken before it; too "
	      "shallow, not for PM QoS, with the tick kept on, predicted short, or the timer "
	      "moved.</p>\n<table class=\"data\"><tr><th>CPU</th><th>state</th><th>above</th>"
	      "<th>below</th><th>below_qos</th><th>known</th><th>timer near</th>"
	      "<th>woken before timer</th><th>tick kept</th><th>predicted short</th>"
	      "<th>timer moved</th></tr>\n",
	      f);
	json_array_foreach(json_object_get(doc, "cpus"), i, c) {
		snprintf(prefix, sizeof(prefix), "cpus.%zu", i);
		snprintf(label, sizeof(label), "cpu %lld",
			 (long long)json_integer_value(json_object_get(c, "cpu")));
		rows(f, fi, c, prefix, label);
	}
	rows(f, fi, json_object_get(doc, "totals"), "totals", "all");
	fputs("</table>\n", f);
}
