/* Request checks libmicrohttpd 0.9.75 leaves to `serve`: a NUL in the path
 * (raw, or decoded from %00) ends MHD's C string early, so /metrics%00.txt
 * read as /metrics; and Content-Length twice, or beside Transfer-Encoding,
 * frames the body two ways (request smuggling). */
#ifndef IDLESCOPE_WEB_REQUEST_H
#define IDLESCOPE_WEB_REQUEST_H

#include <microhttpd.h>

/* MHD_OPTION_URI_LOG_CALLBACK: keeps the raw path's length as the request's
 * context (*con_cls of the handler). */
void *web_request_uri_log(void *cls, const char *uri, struct MHD_Connection *conn);
/* MHD_OPTION_UNESCAPE_CALLBACK: MHD's decoding, but a path with %00 stays
 * encoded (and so matches no page). */
size_t web_request_unescape(void *cls, struct MHD_Connection *conn, char *s);
/* 0 when the request may be answered; else the status to refuse it with
 * (400), and *why the body. url, version and con_cls as the handler got them. */
unsigned int web_request_check(struct MHD_Connection *conn, const char *url, const char *version,
			       void *con_cls, const char **why);

#endif
