/* serve's libraries as one table (web_libs.h): dlopen'ed in the dynamic
 * build, each symbol resolved at once, or the linked functions. */
#include "web/web_libs.h"

#include <stdio.h>
#include <string.h>

#ifdef IDLESCOPE_WEB_DLOPEN
#include <dlfcn.h>
#include <link.h>

struct web_libs web_lib;

static void *mhd_handle, *gnutls_handle;

/* where each symbol goes in the table, by name */
#define WEB_LIBS_SLOT(f) { #f, offsetof(struct web_libs, f) },
static const struct slot {
	const char *name;
	size_t off;
} mhd_slots[] = { WEB_LIBS_MHD(WEB_LIBS_SLOT) }
#ifdef IDLESCOPE_GNUTLS
, gnutls_slots[] = { WEB_LIBS_GNUTLS(WEB_LIBS_SLOT) { "gnutls_free",
						       offsetof(struct web_libs, gnutls_free_var) } }
#endif
;
#undef WEB_LIBS_SLOT

/* the package that ships a soname, for the error line */
static const char *package_of(const char *soname)
{
	if (!strcmp(soname, WEB_LIBS_MHD_SONAME))
		return "libmicrohttpd12";
	if (!strcmp(soname, WEB_LIBS_GNUTLS_SONAME))
		return "libgnutls30";
	return NULL;
}

static void *open_lib(const char *soname, char *err, size_t len)
{
	const char *pkg = package_of(soname);
	void *h;

	dlerror();
	if ((h = dlopen(soname, RTLD_NOW | RTLD_LOCAL)))
		return h;
	snprintf(err, len, "serve needs %s: %s%s%s", soname, dlerror(), pkg ? "; install " : "",
		 pkg ? pkg : "");
	return NULL;
}

static int resolve(void *h, const char *soname, const struct slot *slots, size_t n, char *err,
		   size_t len)
{
	struct link_map *lm = NULL;

	for (size_t i = 0; i < n; i++) {
		void *p;

		dlerror();
		if ((p = dlsym(h, slots[i].name)) && !dlerror()) {
			/* POSIX: a data pointer from dlsym holds a function's address */
			memcpy((char *)&web_lib + slots[i].off, &p, sizeof(p));
			continue;
		}
		if (dlinfo(h, RTLD_DI_LINKMAP, &lm) || !lm)
			lm = NULL;
		snprintf(err, len, "serve needs %s with %s, which %s lacks; install %s", soname,
			 slots[i].name, lm && lm->l_name[0] ? lm->l_name : soname,
			 package_of(soname) ? package_of(soname) : "the library");
		return -1;
	}
	return 0;
}

void web_libs_close(void)
{
	if (gnutls_handle)
		dlclose(gnutls_handle);
	if (mhd_handle)
		dlclose(mhd_handle);
	gnutls_handle = mhd_handle = NULL;
	memset(&web_lib, 0, sizeof(web_lib));
}

int web_libs_open_named(const char *mhd, const char *gnutls, char *err, size_t len)
{
	if (mhd_handle)
		return 0;
	/* libmicrohttpd first: it brings the GnuTLS it was built with */
	if (!(mhd_handle = open_lib(mhd, err, len)) ||
	    resolve(mhd_handle, mhd, mhd_slots, sizeof(mhd_slots) / sizeof(mhd_slots[0]), err, len))
		goto fail;
#ifdef IDLESCOPE_GNUTLS
	if (!(gnutls_handle = open_lib(gnutls, err, len)) ||
	    resolve(gnutls_handle, gnutls, gnutls_slots,
		    sizeof(gnutls_slots) / sizeof(gnutls_slots[0]), err, len))
		goto fail;
#else
	(void)gnutls;
#endif
	return 0;
fail:
	web_libs_close();
	return -1;
}
#else
/* the static build: libmicrohttpd linked, without HTTPS; no GnuTLS */
#define WEB_LIBS_LINKED(f) .f = f,
struct web_libs web_lib = { WEB_LIBS_MHD(WEB_LIBS_LINKED)
#ifdef IDLESCOPE_GNUTLS
			    WEB_LIBS_GNUTLS(WEB_LIBS_LINKED) .gnutls_free_var = &gnutls_free,
#endif
};
#undef WEB_LIBS_LINKED

int web_libs_open_named(const char *mhd, const char *gnutls, char *err, size_t len)
{
	(void)mhd;
	(void)gnutls;
	(void)err;
	(void)len;
	return 0;
}

void web_libs_close(void)
{
}
#endif

int web_libs_open(char *err, size_t len)
{
	return web_libs_open_named(WEB_LIBS_MHD_SONAME, WEB_LIBS_GNUTLS_SONAME, err, len);
}
