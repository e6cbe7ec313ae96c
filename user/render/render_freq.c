/* Frequency residency per CPU and domain (record): table and JSON. */
#include <inttypes.h>
#include <jansson.h>
#include <string.h>

#include "render/render_freq.h"

static void freq_line(FILE *f, const struct summary *s, const struct freq_summary *fs)
{
	for (int i = 0; i < fs->nr; i++)
		fprintf(f, " %.2fGHz %.1f%%", fs->khz[i] / 1e6,
			s->duration_ns ? 100.0 * (double)fs->time_ns[i] / (double)s->duration_ns : 0);
	fprintf(f, " (%" PRIu64 " changes)\n", fs->changes);
}

void render_freq_table(FILE *f, const struct summary *s)
{
	if (!s->freq_status)
		return;
	if (strcmp(s->freq_status, "ok")) {
		fprintf(f, "\nFrequency residency: %s\n", s->freq_status);
		return;
	}
	fprintf(f, "\nFrequency residency (power:cpu_frequency from a scaling_cur_freq snapshot)\n");
	for (int c = 0; c < s->nr_cpus; c++) {
		fprintf(f, "  CPU %d:", s->cpus[c].cpu);
		freq_line(f, s, &s->cpus[c].freq);
	}
	for (int d = 0; d < s->nr_freq_domains; d++)
		for (int c = 0; c < s->nr_cpus; c++)
			if (s->cpus[c].cpu == s->freq_domains[d].cpu) {
				fprintf(f, "  %s (CPUs %s):", s->freq_domains[d].name, s->freq_domains[d].cpus);
				freq_line(f, s, &s->cpus[c].freq);
			}
}

static json_t *freq_res_json(const struct summary *s, const struct freq_summary *fs)
{
	json_t *a = json_array();

	for (int i = 0; i < fs->nr; i++)
		json_array_append_new(a, json_pack("{s:i,s:I,s:f}", "khz", (int)fs->khz[i], "time_ns",
						   (json_int_t)fs->time_ns[i], "share",
						   s->duration_ns ? (double)fs->time_ns[i] /
									    (double)s->duration_ns
								  : 0.0));
	return a;
}

json_t *freq_json(const struct summary *s)
{
	json_t *cpus = json_array(), *domains = json_array();

	if (!s->freq_status)
		return json_null();
	for (int c = 0; strcmp(s->freq_status, "ok") == 0 && c < s->nr_cpus; c++)
		json_array_append_new(cpus, json_pack("{s:i,s:I,s:I,s:o}", "cpu", s->cpus[c].cpu,
						      "changes", (json_int_t)s->cpus[c].freq.changes,
						      "drops", (json_int_t)s->cpus[c].freq.drops,
						      "residency", freq_res_json(s, &s->cpus[c].freq)));
	for (int d = 0; d < s->nr_freq_domains; d++)
		json_array_append_new(domains, json_pack("{s:s,s:s,s:i}", "name",
							 s->freq_domains[d].name, "cpus",
							 s->freq_domains[d].cpus, "cpu",
							 s->freq_domains[d].cpu));
	return json_pack("{s:s,s:o,s:o}", "status", s->freq_status, "cpus", cpus, "domains", domains);
}
