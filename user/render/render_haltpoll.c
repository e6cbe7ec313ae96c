/* Guest halt-polling per CPU and in total: table and JSON. */
#include "render/render_haltpoll.h"

#include <inttypes.h>
#include <string.h>

#include "util/json_num.h"
#include "util/units.h"

/* a replayed trace does not carry the module parameters */
static bool replayed(const struct summary *s)
{
	return s->command && !strcmp(s->command, "replay");
}

static void limit_cell(FILE *f, const struct haltpoll_summary *h, bool total)
{
	char buf[64];

	if (!h->limit_known)
		snprintf(buf, sizeof(buf), "-");
	else if (total)
		snprintf(buf, sizeof(buf), "%s-%s", ns_text(h->limit_min_ns), ns_text(h->limit_max_ns));
	else
		snprintf(buf, sizeof(buf), "%s (%s-%s)", ns_text(h->limit_ns),
			 ns_text(h->limit_min_ns), ns_text(h->limit_max_ns));
	fprintf(f, " %-26s", buf);
}

static void row(FILE *f, const char *who, const struct haltpoll_summary *h, uint64_t window,
		bool total)
{
	const char *basis = haltpoll_basis_name(h->basis);

	fprintf(f, "  %-5s %8" PRIu64 " %9s %6.2f%% %8" PRIu64 " %9" PRIu64 " %10" PRIu64
		   " %5" PRIu64 " %6" PRIu64,
		who, h->polls, ns_text(h->poll_ns),
		window ? 100.0 * (double)h->poll_ns / (double)window : 0.0, h->woken,
		h->timed_out, h->unresolved, h->grow, h->shrink);
	limit_cell(f, h, total);
	if (basis)
		fprintf(f, " %9s %s\n", ns_text(h->saved_ns), basis);
	else
		fprintf(f, " %9s\n", "-");
}

void render_haltpoll_table(FILE *f, const struct summary *s)
{
	if (!s->totals.haltpoll.known)
		return;
	fprintf(f, "\nHalt-polling (driver %s, governor %s, guest_halt_poll_ns ", s->sys.driver,
		s->sys.governor);
	if (replayed(s))
		fprintf(f, "not in the trace");
	else
		fprintf(f, "%" PRIu64, s->sys.guest_halt_poll_ns);
	fprintf(f, "): POLL periods woken by work or timed out into a halt; the poll limit's "
		   "moves; saved = woken x the halt's exit\n");
	fprintf(f, "  %-5s %8s %9s %7s %8s %9s %10s %5s %6s %-26s %9s\n", "cpu", "polls",
		"poll time", "share", "woken", "timed out", "unresolved", "grow", "shrink",
		"limit now (min-max)", "saved");
	for (int c = 0; c < s->nr_cpus; c++) {
		char who[16];

		snprintf(who, sizeof(who), "%d", s->cpus[c].cpu);
		row(f, who, &s->cpus[c].haltpoll, s->duration_ns, false);
	}
	if (s->nr_cpus > 1)
		row(f, "all", &s->totals.haltpoll, s->duration_ns * (uint64_t)s->nr_cpus, true);
}

static json_t *limit_or_null(bool known, uint64_t v)
{
	return known ? json_u64(v) : json_null();
}

static json_t *one_json(const struct haltpoll_summary *h, int cpu, bool total)
{
	const char *basis = haltpoll_basis_name(h->basis);
	json_t *o = json_object();

	if (!total)
		json_object_set_new(o, "cpu", json_integer(cpu));
	json_object_set_new(o, "polls", json_u64(h->polls));
	json_object_set_new(o, "poll_ns", json_u64(h->poll_ns));
	json_object_set_new(o, "woken", json_u64(h->woken));
	json_object_set_new(o, "timed_out", json_u64(h->timed_out));
	json_object_set_new(o, "unresolved", json_u64(h->unresolved));
	json_object_set_new(o, "grow", json_u64(h->grow));
	json_object_set_new(o, "shrink", json_u64(h->shrink));
	json_object_set_new(o, "limit_ns", limit_or_null(h->limit_known && !total, h->limit_ns));
	json_object_set_new(o, "limit_first_ns",
			    limit_or_null(h->limit_known && !total, h->limit_first_ns));
	json_object_set_new(o, "limit_min_ns", limit_or_null(h->limit_known, h->limit_min_ns));
	json_object_set_new(o, "limit_max_ns", limit_or_null(h->limit_known, h->limit_max_ns));
	json_object_set_new(o, "saved_ns", basis ? json_u64(h->saved_ns) : json_null());
	json_object_set_new(o, "saved_basis", basis ? json_string(basis) : json_null());
	if (!total)
		json_object_set_new(o, "halt_exit_ns", basis ? json_u64(h->halt_exit_ns) : json_null());
	return o;
}

json_t *haltpoll_json(const struct summary *s)
{
	json_t *o, *cpus;

	if (!s->totals.haltpoll.known)
		return json_null();
	o = json_object();
	cpus = json_array();
	json_object_set_new(o, "guest_halt_poll_ns",
			    replayed(s) ? json_null() : json_u64(s->sys.guest_halt_poll_ns));
	for (int c = 0; c < s->nr_cpus; c++)
		json_array_append_new(cpus, one_json(&s->cpus[c].haltpoll, s->cpus[c].cpu, false));
	json_object_set_new(o, "cpus", cpus);
	json_object_set_new(o, "total", one_json(&s->totals.haltpoll, -1, true));
	return o;
}
