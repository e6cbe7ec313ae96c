/* SHA-256 in base64 (sha256.h): nettle's digest and encoder, linked from
 * Debian (libnettle.so, or libnettle.a in the static build). */
#include "util/sha256.h"

#include <stdint.h>

#include <nettle/base64.h>
#include <nettle/sha2.h>

const char *sha256_base64(const void *data, size_t len, char out[SHA256_BASE64_SIZE])
{
	struct sha256_ctx ctx;
	uint8_t d[SHA256_DIGEST_SIZE];

	sha256_init(&ctx);
	sha256_update(&ctx, len, data);
	sha256_digest(&ctx, sizeof(d), d);
	base64_encode_raw(out, sizeof(d), d);
	out[BASE64_ENCODE_RAW_LENGTH(sizeof(d))] = '\0';
	return out;
}
