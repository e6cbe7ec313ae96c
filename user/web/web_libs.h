/* serve's libraries, libmicrohttpd and GnuTLS, as one table of functions:
 * the dynamic build opens them when serve starts, so no other command maps
 * them (or runs GnuTLS's constructor); the static build fills it with the
 * functions it links. Every call to them goes through web_lib. */
#ifndef IDLESCOPE_WEB_LIBS_H
#define IDLESCOPE_WEB_LIBS_H

#include <stddef.h>

#include <microhttpd.h>
#ifdef IDLESCOPE_GNUTLS
#include <gnutls/gnutls.h>
#endif

/* the sonames the dynamic build opens (Debian: libmicrohttpd12, libgnutls30) */
#define WEB_LIBS_MHD_SONAME "libmicrohttpd.so.12"
#define WEB_LIBS_GNUTLS_SONAME "libgnutls.so.30"

#define WEB_LIBS_MHD(X)                                                                        \
	X(MHD_start_daemon) X(MHD_stop_daemon) X(MHD_queue_response)                           \
	X(MHD_create_response_from_buffer) X(MHD_destroy_response) X(MHD_add_response_header) \
	X(MHD_get_connection_info) X(MHD_get_connection_values)                                \
	X(MHD_lookup_connection_value_n) X(MHD_basic_auth_get_username_password)               \
	X(MHD_queue_basic_auth_fail_response) X(MHD_is_feature_supported) X(MHD_http_unescape) \
	X(MHD_free)
/* gnutls_free is a variable holding the function (and a macro): gnutls_free_var */
#define WEB_LIBS_GNUTLS(X)                                                                     \
	X(gnutls_strerror) X(gnutls_certificate_allocate_credentials)                          \
	X(gnutls_certificate_set_x509_key_mem2) X(gnutls_certificate_free_credentials)         \
	X(gnutls_certificate_get_peers) X(gnutls_certificate_verify_peers2)                    \
	X(gnutls_certificate_verification_status_print)

#define WEB_LIBS_FIELD(f) __typeof__(f) *f;
struct web_libs {
	WEB_LIBS_MHD(WEB_LIBS_FIELD)
#ifdef IDLESCOPE_GNUTLS
	WEB_LIBS_GNUTLS(WEB_LIBS_FIELD)
	gnutls_free_function *gnutls_free_var;
#endif
};
#undef WEB_LIBS_FIELD

/* Filled by web_libs_open (the static build: from the start). */
extern struct web_libs web_lib;

/* Opens the libraries (dynamic build; once, later calls return 0). Returns
 * 0, or -1 with one line in err naming the library or the symbol missing
 * and the package to install; nothing is left open then. */
int web_libs_open(char *err, size_t len);
/* The same with other sonames (tests: a library missing, or lacking a
 * symbol). The static build ignores the names. */
int web_libs_open_named(const char *mhd, const char *gnutls, char *err, size_t len);
/* Closes what web_libs_open opened and empties the table (dynamic build). */
void web_libs_close(void);

#endif
