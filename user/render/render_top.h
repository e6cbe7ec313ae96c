/* `idlescope top` screens: one interval's summary as text lines that fit a
 * width and height (full screen), or every row (plain line output). */
#ifndef IDLESCOPE_RENDER_TOP_H
#define IDLESCOPE_RENDER_TOP_H

#include <stdbool.h>

#include "model/model.h"

enum top_style { TOP_PLAIN, TOP_TITLE, TOP_HEAD };

struct top_layout {
	int width;         /* columns; every line is cut to this */
	int height;        /* rows; 0 = no limit (every CPU and group) */
	int scroll;        /* first CPU/group row shown (clamped) */
	bool footer;       /* the key help line (full screen) */
	const char *clock; /* wall-clock time shown in the title, or NULL */
};

struct top_text {
	int nr, cap;
	char **lines;
	enum top_style *style;
	int nr_rows;  /* CPU and group rows in all */
	int scroll;   /* the first shown (after clamping) */
	int shown;    /* how many are shown */
};

/* Fills out (which must start zeroed). Returns 0 or -ENOMEM. */
int render_top(const struct summary *s, const struct top_layout *l, struct top_text *out);
void top_text_free(struct top_text *t);

#endif
