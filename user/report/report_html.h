/* `idlescope report`'s page: one self-contained HTML file (inline CSS and
 * SVG, no script, no external resource) from loaded JSON inputs. */
#ifndef IDLESCOPE_REPORT_HTML_H
#define IDLESCOPE_REPORT_HTML_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "report/report_blocks.h"

/* Writes the page for n inputs (and sets their labels). Returns 0 or -1
 * (template error). */
int report_write_html(FILE *f, struct report_input *in, int n);

#endif
