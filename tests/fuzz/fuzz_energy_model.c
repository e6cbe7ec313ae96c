/* idlestat energy model files (advise --energy-model): parse or fail with a
 * "line N: ..." reason; what parses stays within its bounds. */
#include "fuzz.h"

#include "advise/energy_model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct energy_model em;
	char err[256] = "";

	memset(&em, 0, sizeof(em));
	if (!energy_model_parse((const char *)data, size, &em, err, sizeof(err)))
		FUZZ_CHECK(em.nr_clusters >= 0 && em.nr_clusters <= EM_MAX_CLUSTERS, "clusters %d",
			   em.nr_clusters);
	else
		FUZZ_CHECK(err[0], "no reason");
	energy_model_free(&em);
	return 0;
}
