/* ab --set KEY=V1,V2: parse (reads, never writes, sysfs and /proc/sys); a
 * parsed setting holds exactly the values given, and a sysctl path stays
 * under /proc/sys. */
#include "fuzz.h"

#include <sys/stat.h>

#include "sys/settings.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size), err[256] = "";
	struct setting st;
	struct stat sb;

	if (!setting_parse(s, &st, err, sizeof(err))) {
		const char *eq = strchr(s, '=');

		FUZZ_CHECK(eq && (size_t)(eq - s) == strlen(st.key) && !strncmp(s, st.key, strlen(st.key)),
			   "'%s': key '%s'", s, st.key);
		FUZZ_CHECK(st.nr_values >= 1 && st.nr_values <= IS_MAX_VALUES, "'%s'", s);
		/* the values are the comma-separated fields, none truncated */
		char *copy = strdup(eq + 1), *save = NULL, *v = copy;
		int i = 0;

		for (v = strtok_r(copy, ",", &save); v; v = strtok_r(NULL, ",", &save), i++)
			FUZZ_CHECK(i < st.nr_values && !strcmp(v, st.values[i]), "'%s': value %d '%s'", s,
				   i, i < st.nr_values ? st.values[i] : "(none)");
		FUZZ_CHECK(i == st.nr_values, "'%s': %d values, parsed %d", s, i, st.nr_values);
		free(copy);
		for (int i = 0; i < st.nr_saved; i++)
			FUZZ_CHECK(!strncmp(st.paths[i], "/proc/sys/", 10) && !strstr(st.paths[i], "..") &&
					   !stat(st.paths[i], &sb) && S_ISREG(sb.st_mode),
				   "'%s': path %s", s, st.paths[i]);
		if (st.kind == SET_STATE_DISABLE) {
			char want[64];

			snprintf(want, sizeof(want), "state%d.disable", st.state);
			FUZZ_CHECK(!strcmp(st.key, want), "'%s': key '%s' taken as %s", s, st.key, want);
		}
		setting_free(&st);
	} else {
		FUZZ_CHECK(err[0], "'%s': error '%s'", s, err);
	}
	free(s);
	return 0;
}
