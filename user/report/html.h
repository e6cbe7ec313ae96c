/* Building blocks of `idlescope report`'s HTML page: escaping, numbers
 * written exactly as the JSON holds them, and @NAME@ templates. */
#ifndef IDLESCOPE_HTML_H
#define IDLESCOPE_HTML_H

#include <jansson.h>
#include <stdio.h>

/* Writes s with & < > " ' escaped, safe in text and in quoted attributes.
 * NULL writes nothing. */
void html_escape(FILE *f, const char *s);

/* The shortest decimal that reads back as the same double (integers
 * without a fraction), so a page shows the number the JSON holds. */
const char *fmt_exact(char *buf, size_t len, double v);
/* A JSON number as its document holds it: integers verbatim, reals via
 * fmt_exact; "null" for null and "" for anything else. */
const char *fmt_json_number(char *buf, size_t len, const json_t *v);
/* share 0..1 as a percentage with two decimals: "91.58%". */
const char *fmt_pct(char *buf, size_t len, double share);

/* Table cells for numbers of input file fi at JSON path (dotted, e.g.
 * "cpus.0.states.1.time_ns"): data-f, data-p and data-v (the exact value)
 * let a test look every shown number up in the JSON. num shows the value
 * itself ("-" for null); pct shows a 0..1 share as a percentage. */
void html_num_cell(FILE *f, int fi, const json_t *v, const char *path);
void html_pct_cell(FILE *f, int fi, const json_t *v, const char *path);
/* A cell of escaped text. */
void html_text_cell(FILE *f, const char *s);

/* doc as a data block, <script type="application/json" id="id"> (not run:
 * the page's CSP allows one script by its hash), every '<' written as
 * \u003c so that no text in it closes the element. */
void html_json_block(FILE *f, const char *id, const json_t *doc);

/* Heat level 0..9 of count against the largest count of a matrix: 0 only
 * for 0, 9 for the maximum, proportional in between. */
int heat_level(double count, double max);

/* Writes tpl with each @NAME@ (capital letters, digits, _) replaced by what
 * fill writes for NAME; other text verbatim. Returns 0, or the first
 * non-zero value fill returned. */
int template_expand(FILE *f, const char *tpl,
		    int (*fill)(FILE *f, const char *name, void *arg), void *arg);

#endif
