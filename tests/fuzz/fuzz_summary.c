/* JSON summaries read back by compare and ab (a document or record -i JSON
 * Lines): load, then flatten into metric names as compare and --fail-if do. */
#include "fuzz.h"

#include "model/flatten.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[256] = "";
	json_t *doc = load_summary_buffer((const char *)data, size, "fuzz", err, sizeof(err));
	struct metric_set m = { 0 };

	if (doc) {
		FUZZ_CHECK(!flatten_summary(doc, &m), "flatten failed");
		for (int i = 0; i < m.n; i++)
			FUZZ_CHECK(memchr(m.kv[i].key, 0, sizeof(m.kv[i].key)), "key %d", i);
		if (m.n)
			FUZZ_CHECK(metric_find(&m, m.kv[0].key) == &m.kv[0], "find");
		metric_set_free(&m);
		FUZZ_CHECK(!flatten_hist(doc, &m), "flatten_hist failed");
		metric_set_free(&m);
		json_decref(doc);
	} else {
		FUZZ_CHECK(err[0], "error '%s'", err);
	}
	return 0;
}
