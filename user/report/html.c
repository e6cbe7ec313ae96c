/* HTML escaping, exact number formatting and template expansion for the
 * report page; kept free of the page layout so they can be unit tested. */
#include "report/html.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/units.h"

void html_escape(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fputc(*s, f);
		}
	}
}

const char *fmt_exact(char *buf, size_t len, double v)
{
	if (!isfinite(v)) {
		snprintf(buf, len, "%s", isnan(v) ? "NaN" : v > 0 ? "Infinity" : "-Infinity");
		return buf;
	}
	if (v == floor(v) && fabs(v) < 1e17) {
		snprintf(buf, len, "%.0f", v);
		return buf;
	}
	/* %.17g always reads back; fewer digits often do, and read better */
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	return buf;
}

const char *fmt_json_number(char *buf, size_t len, const json_t *v)
{
	if (json_is_integer(v))
		snprintf(buf, len, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
	else if (json_is_real(v))
		fmt_exact(buf, len, json_real_value(v));
	else
		snprintf(buf, len, "%s", json_is_null(v) ? "null" : "");
	return buf;
}

const char *fmt_pct(char *buf, size_t len, double share)
{
	snprintf(buf, len, "%.2f%%", 100.0 * share);
	return buf;
}

void html_json_block(FILE *f, const char *id, const json_t *doc)
{
	char *text = json_dumps(doc, JSON_COMPACT | JSON_ENSURE_ASCII);

	fputs("<script type=\"application/json\" id=\"", f);
	html_escape(f, id);
	fputs("\">", f);
	/* '<' occurs only inside JSON strings, where \u003c is the same text */
	for (const char *c = text; c && *c; c++)
		if (*c == '<')
			fputs("\\u003c", f);
		else
			fputc(*c, f);
	fputs("</script>\n", f);
	free(text);
}

int heat_level(double count, double max)
{
	int l;

	if (count <= 0 || max <= 0)
		return 0;
	if (count >= max)
		return 9;
	/* 1..8 for (0, max): nothing non-zero looks empty */
	l = 1 + (int)(8.0 * count / max);
	return l > 8 ? 8 : l;
}

static bool marker_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

int template_expand(FILE *f, const char *tpl,
		    int (*fill)(FILE *f, const char *name, void *arg), void *arg)
{
	const char *p = tpl;

	while (*p) {
		const char *at = strchr(p, '@'), *end;
		char name[64];
		int r;

		if (!at) {
			fputs(p, f);
			break;
		}
		for (end = at + 1; marker_char(*end); end++)
			;
		if (*end != '@' || end == at + 1 || end - at - 1 >= (long)sizeof(name)) {
			/* a lone '@' (an e-mail address, CSS @media): text */
			fwrite(p, 1, (size_t)(at - p) + 1, f);
			p = at + 1;
			continue;
		}
		fwrite(p, 1, (size_t)(at - p), f);
		snprintf(name, sizeof(name), "%.*s", (int)(end - at - 1), at + 1);
		if ((r = fill(f, name, arg)))
			return r;
		p = end + 1;
	}
	return 0;
}

/* A duration's key: "time_ns", "p99_ns", "lo_ns"; the last field of path. */
static bool is_duration(const char *path)
{
	const char *last = strrchr(path, '.');
	size_t n;

	last = last ? last + 1 : path;
	n = strlen(last);
	return n > 3 && !strcmp(last + n - 3, "_ns");
}

static void num_cell(FILE *f, int fi, const json_t *v, const char *path, bool pct)
{
	char raw[48], shown[48];
	bool dur = false;

	fmt_json_number(raw, sizeof(raw), v);
	if (json_is_null(v) || !json_is_number(v)) {
		snprintf(shown, sizeof(shown), "-");
	} else if (pct) {
		fmt_pct(shown, sizeof(shown), json_number_value(v));
	} else if ((dur = is_duration(path))) {
		/* human units on screen; the exact nanoseconds in the tooltip and data-v */
		double x = json_number_value(v);
		char h[32];

		fmt_ns(h, sizeof(h), (uint64_t)(fabs(x) + 0.5));
		snprintf(shown, sizeof(shown), "%s%s", x < 0 ? "-" : "", h);
	} else {
		snprintf(shown, sizeof(shown), "%s", raw);
	}
	fputs("<td class=\"n\"", f);
	if (dur)
		fprintf(f, " title=\"%s ns\"", raw);
	else if (pct && json_is_number(v))
		fprintf(f, " title=\"%s\"", raw);
	fprintf(f, " data-f=\"%d\" data-p=\"", fi);
	html_escape(f, path);
	fprintf(f, "\" data-v=\"%s\">%s</td>", raw, shown);
}

void html_num_cell(FILE *f, int fi, const json_t *v, const char *path)
{
	num_cell(f, fi, v, path, false);
}

void html_pct_cell(FILE *f, int fi, const json_t *v, const char *path)
{
	num_cell(f, fi, v, path, true);
}

void html_text_cell(FILE *f, const char *s)
{
	fputs("<td>", f);
	html_escape(f, s);
	fputs("</td>", f);
}
