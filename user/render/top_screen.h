/* The full-screen terminal of `idlescope top` (ncurses): alternate screen,
 * no cursor, keys without echo; restored on close, and on a crash by a
 * fatal-signal handler. */
#ifndef IDLESCOPE_TOP_SCREEN_H
#define IDLESCOPE_TOP_SCREEN_H

#include <stddef.h>

#include "render/render_top.h"

/* Keys top acts on (ncurses key codes folded in). */
enum top_key { TK_NONE, TK_QUIT, TK_DOWN, TK_UP, TK_PGDOWN, TK_PGUP, TK_HOME, TK_END, TK_REDRAW };

/* Takes over the terminal on stdin/stdout. Returns 0, or -1 with a reason. */
int screen_open(char *err, size_t errlen);
/* Current size; after SIGWINCH call screen_resize() first. */
void screen_size(int *rows, int *cols);
void screen_resize(void);
void screen_draw(const struct top_text *t);
/* The next pending key (does not block), TK_NONE when there is none. */
enum top_key screen_key(void);
/* Gives the terminal back; safe to call twice. */
void screen_close(void);

#endif
