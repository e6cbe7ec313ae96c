/* serve --web-config YAML (user/web/web_config.c): parse or fail with a
 * one-line reason; a parsed file has bcrypt-shaped hashes and TLS only with
 * its certificate and key read. The input is a memfd behind /proc/self/fd. */
#include "fuzz.h"

#include <sys/mman.h>
#include <unistd.h>

#include "web/web_config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct web_config c;
	char err[512] = "", path[64];
	int fd = memfd_create("web.yml", 0);

	FUZZ_CHECK(fd >= 0, "memfd_create");
	FUZZ_CHECK(write(fd, data, size) == (ssize_t)size, "write");
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (!web_config_load(path, &c, err, sizeof(err))) {
		FUZZ_CHECK(!c.tls || (c.cert_pem && c.key_pem), "tls without its files");
		for (int i = 0; i < c.nr_users; i++)
			FUZZ_CHECK(strlen(c.users[i].value) == 60, "hash '%s'", c.users[i].value);
		web_config_free(&c);
	} else {
		FUZZ_CHECK(err[0] && !strchr(err, '\n'), "reason '%s'", err);
	}
	close(fd);
	return 0;
}
