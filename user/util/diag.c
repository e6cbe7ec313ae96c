/* One-line errors on stderr (diag.h). */
#include "util/diag.h"

#include <stdarg.h>
#include <stdio.h>

void diag_error(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* one line, whatever a file or an argument quoted in it holds */
	for (char *p = msg; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	fprintf(stderr, "idlescope: %s\n", msg);
}
