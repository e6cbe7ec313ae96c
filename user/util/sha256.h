/* SHA-256 through Debian's nettle, as a Content-Security-Policy source
 * ('sha256-...': the base64 of the digest) for the report's one script. */
#ifndef IDLESCOPE_SHA256_H
#define IDLESCOPE_SHA256_H

#include <stddef.h>

/* The base64 of the 32-byte digest (44 characters and a NUL). */
#define SHA256_BASE64_SIZE 45

/* The SHA-256 of len bytes at data, base64-encoded into out. Returns out. */
const char *sha256_base64(const void *data, size_t len, char out[SHA256_BASE64_SIZE]);

#endif
