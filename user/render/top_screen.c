/* ncurses for `idlescope top`: it knows each terminal's sequences from
 * terminfo (alternate screen, cursor, keys) and restores them in endwin();
 * linked statically like the rest (libncurses.a, libtinfo.a). */
#include "render/top_screen.h"

#include <curses.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

static SCREEN *scr;
static struct termios saved_tio;
static bool have_tio;
/* Written by the fatal-signal handler, which cannot call ncurses. */
static char restore_seq[128];
static size_t restore_len;

static void add_cap(const char *name)
{
	char *s = tigetstr((char *)name);
	size_t n;

	if (!s || s == (char *)-1)
		return;
	n = strlen(s);
	if (restore_len + n < sizeof(restore_seq)) {
		memcpy(restore_seq + restore_len, s, n);
		restore_len += n;
	}
}

/* A crash must not leave the terminal raw and on the alternate screen:
 * put termios and the screen back (async-signal-safe calls only), then die
 * of the same signal. */
static void on_fatal(int sig)
{
	if (restore_len && write(STDOUT_FILENO, restore_seq, restore_len) < 0) {
		/* nothing more to do */
	}
	if (have_tio)
		tcsetattr(STDIN_FILENO, TCSANOW, &saved_tio);
	signal(sig, SIG_DFL);
	raise(sig);
}

int screen_open(char *err, size_t errlen)
{
	static const int fatal[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };

	have_tio = tcgetattr(STDIN_FILENO, &saved_tio) == 0;
	scr = newterm(NULL, stdout, stdin);
	if (!scr) {
		snprintf(err, errlen, "no terminfo entry for TERM '%s'",
			 getenv("TERM") ? getenv("TERM") : "");
		return -1;
	}
	/* the reverse of smcup/civis, for on_fatal */
	add_cap("sgr0");
	add_cap("cnorm");
	add_cap("rmcup");
	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		signal(fatal[i], on_fatal);
	cbreak(); /* keys at once, Ctrl-C still a signal */
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	curs_set(0);
	return 0;
}

void screen_size(int *rows, int *cols)
{
	*rows = LINES;
	*cols = COLS;
}

void screen_resize(void)
{
	struct winsize ws;

	if (scr && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row && ws.ws_col)
		resizeterm(ws.ws_row, ws.ws_col);
}

void screen_draw(const struct top_text *t)
{
	if (!scr)
		return;
	erase();
	for (int i = 0; i < t->nr && i < LINES; i++) {
		int a = t->style[i] == TOP_TITLE ? A_REVERSE : t->style[i] == TOP_HEAD ? A_BOLD : 0;
		int y = i;

		if (a)
			attron(a);
		mvaddnstr(y, 0, t->lines[i], COLS);
		if (t->style[i] == TOP_TITLE) /* a full-width bar */
			for (int x = (int)strlen(t->lines[i]); x < COLS; x++)
				mvaddch(y, x, ' ');
		if (a)
			attroff(a);
	}
	refresh();
}

enum top_key screen_key(void)
{
	int ch = scr ? getch() : ERR;

	switch (ch) {
	case 'q':
	case 'Q':
		return TK_QUIT;
	case 'j':
	case KEY_DOWN:
		return TK_DOWN;
	case 'k':
	case KEY_UP:
		return TK_UP;
	case ' ':
	case KEY_NPAGE:
		return TK_PGDOWN;
	case 'b':
	case KEY_PPAGE:
		return TK_PGUP;
	case 'g':
	case KEY_HOME:
		return TK_HOME;
	case 'G':
	case KEY_END:
		return TK_END;
	case 12: /* Ctrl-L */
		return TK_REDRAW;
	case ERR:
		return TK_NONE;
	default:
		return TK_REDRAW;
	}
}

void screen_close(void)
{
	static const int fatal[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };

	if (!scr)
		return;
	curs_set(1);
	endwin();
	delscreen(scr);
	scr = NULL;
	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		signal(fatal[i], SIG_DFL);
}
