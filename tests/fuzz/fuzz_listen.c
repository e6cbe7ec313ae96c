/* serve --listen HOST:PORT: parse or fail with a reason; never binds. */
#include "fuzz.h"

#include "web/listen.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size), err[256] = "";
	struct listen_addr a;

	if (listen_parse(s, &a, err, sizeof(err)))
		FUZZ_CHECK(err[0], "no reason for '%s'", s);
	free(s);
	return 0;
}
