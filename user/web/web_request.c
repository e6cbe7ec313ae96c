/* What a request must be before `serve` reads its path: one framing of its
 * body, and a path whose C string is all of it. */
#include "web/web_request.h"

#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "web/web_libs.h"

void *web_request_uri_log(void *cls, const char *uri, struct MHD_Connection *conn)
{
	(void)cls;
	(void)conn;
	/* MHD has cut the request line at the version's space but not yet split
	 * or decoded the path: its strlen stops at the first NUL. A length, not
	 * an allocation: nothing to free when the request ends. */
	return (void *)(uintptr_t)(uri ? strlen(uri) + 1 : 0);
}

size_t web_request_unescape(void *cls, struct MHD_Connection *conn, char *s)
{
	(void)cls;
	(void)conn;
	if (strstr(s, "%00"))
		return strlen(s);
	return web_lib.MHD_http_unescape(s);
}

static enum MHD_Result count_framing(void *cls, enum MHD_ValueKind kind, const char *key,
				     const char *value)
{
	unsigned int *n = cls;

	(void)kind;
	(void)value;
	if (!strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH))
		n[0]++;
	else if (!strcasecmp(key, MHD_HTTP_HEADER_TRANSFER_ENCODING))
		n[1]++;
	return MHD_YES;
}

unsigned int web_request_check(struct MHD_Connection *conn, const char *url, const char *version,
			       void *con_cls, const char **why)
{
	uintptr_t raw = (uintptr_t)con_cls;
	unsigned int n[2] = { 0, 0 };

	/* MHD put the version right after the raw path and its space: a gap
	 * between them is what followed a NUL in the path */
	if (!raw || !version[0] || version != url + raw) {
		*why = "bad request line (a NUL in the path, or no HTTP version)\n";
		return MHD_HTTP_BAD_REQUEST;
	}
	web_lib.MHD_get_connection_values(conn, MHD_HEADER_KIND, count_framing, n);
	if (n[0] > 1 || n[1] > 1 || (n[0] && n[1])) {
		*why = "Content-Length twice, or beside Transfer-Encoding\n";
		return MHD_HTTP_BAD_REQUEST;
	}
	return 0;
}
