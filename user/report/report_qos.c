/* The report's PM QoS section (report_qos.h). */
#include "report/report_qos.h"

#include "report/html.h"
#include "report/report_blocks.h"

void report_qos_section(FILE *f, int fi, const json_t *doc)
{
	static const char *const nums[] = { "value_us", "since_ns", "until_ns", "forced_periods",
					     "forced_idle_ns", NULL };
	const json_t *q = json_object_get(doc, "pm_qos"), *r;
	size_t i;
	char p[256], q2[300];

	if (!json_is_object(q))
		return;
	fprintf(f, "<h3 id=\"f%d-pm-qos\">PM QoS: who limited idle</h3>\n<p class=\"note\">CPU "
		   "latency requests (scope all) and CPU resume-latency limits; forced = periods too "
		   "shallow because the limit barred the deeper state; times from the window's start "
		   "(- before it).</p>\n",
		fi);
	if (!json_array_size(json_object_get(q, "requests"))) {
		fputs("<p>No request limited idle during the window.</p>\n", f);
		return;
	}
	fputs("<table class=\"data\"><tr><th>holder</th><th>pid</th><th>scope</th><th>value_us</th>"
	      "<th>since_ns</th><th>until_ns</th><th>forced_periods</th><th>forced_idle_ns</th>"
	      "<th>deepest reachable</th></tr>\n",
	      f);
	json_array_foreach(json_object_get(q, "requests"), i, r) {
		const char *comm = json_string_value(json_object_get(r, "comm"));
		const json_t *cpu = json_object_get(r, "cpu");
		char scope[24] = "all";

		if (json_is_integer(cpu))
			snprintf(scope, sizeof(scope), "cpu%lld", (long long)json_integer_value(cpu));
		report_path(p, sizeof(p), "pm_qos.requests.%zu", i);
		fputs("<tr>", f);
		html_text_cell(f, comm ? comm : "(set before)");
		html_num_cell(f, fi, json_object_get(r, "pid"), report_path(q2, sizeof(q2), "%s.pid", p));
		html_text_cell(f, scope);
		for (int k = 0; nums[k]; k++)
			html_num_cell(f, fi, json_object_get(r, nums[k]),
				      report_path(q2, sizeof(q2), "%s.%s", p, nums[k]));
		html_text_cell(f, json_string_value(json_object_get(r, "deepest_reachable_state")));
		fputs("</tr>\n", f);
	}
	fputs("<tr><td>(not told apart)</td><td></td><td></td><td></td><td></td><td></td>", f);
	html_num_cell(f, fi, json_object_get(json_object_get(q, "other"), "forced_periods"),
		      "pm_qos.other.forced_periods");
	html_num_cell(f, fi, json_object_get(json_object_get(q, "other"), "forced_idle_ns"),
		      "pm_qos.other.forced_idle_ns");
	fputs("<td></td></tr>\n</table>\n", f);
}
