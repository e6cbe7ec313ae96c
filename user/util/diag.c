/* One-line errors on stderr (diag.h). */
#include "util/diag.h"

#include <stdarg.h>
#include <stdio.h>

void diag_one_line(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
}

void diag_error(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* one line, whatever a file or an argument quoted in it holds */
	diag_one_line(msg);
	fprintf(stderr, "idlescope: %s\n", msg);
}
