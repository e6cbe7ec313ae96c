/* The observer's own cost (self_cost.h). */
#include "session/self_cost.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "idlescope.skel.h"
#include "session/idle_loader.h"

/* The "memlock:" line of one of our descriptors, 0 when absent. */
static uint64_t fd_memlock(int fd)
{
	char path[64], line[128];
	uint64_t v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	if (!(f = fopen(path, "re")))
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "memlock: %" SCNu64, &v) == 1)
			break;
	fclose(f);
	return v;
}

/* Pss and Private of this process, summed over smaps_rollup's one block or
 * smaps' per-mapping ones (the same lines); false when neither reads. */
static bool read_smaps(uint64_t *pss, uint64_t *priv)
{
	static const char *const files[] = { "/proc/self/smaps_rollup", "/proc/self/smaps" };
	unsigned long long kb;
	char line[256];

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		FILE *f = fopen(files[i], "re");
		bool any = false;

		if (!f)
			continue;
		*pss = *priv = 0;
		while (fgets(line, sizeof(line), f)) {
			if (sscanf(line, "Pss: %llu kB", &kb) == 1) {
				*pss += kb * 1024;
				any = true;
			} else if (sscanf(line, "Private_Clean: %llu kB", &kb) == 1 ||
				   sscanf(line, "Private_Dirty: %llu kB", &kb) == 1) {
				*priv += kb * 1024;
			}
		}
		fclose(f);
		if (any)
			return true;
	}
	*pss = *priv = 0;
	return false;
}

void self_cost_read(struct idle_session *s, struct self_cost *c)
{
	struct bpf_program *p;
	struct bpf_map *m;
	unsigned long long ut = 0, st = 0, pages = 0;
	int on = 0;
	FILE *f;

	memset(c, 0, sizeof(*c));
	if ((f = fopen("/proc/sys/kernel/bpf_stats_enabled", "re"))) {
		c->stats_enabled = fscanf(f, "%d", &on) == 1 && on;
		fclose(f);
	}
	if (s->skel) {
		bpf_object__for_each_program(p, s->skel->obj) {
			struct bpf_prog_info info = { 0 };
			uint32_t len = sizeof(info);
			int fd = bpf_program__fd(p);

			if (fd < 0 || c->nr_progs >= SELF_MAX_PROGS ||
			    bpf_obj_get_info_by_fd(fd, &info, &len))
				continue;
			snprintf(c->progs[c->nr_progs].name, sizeof(c->progs[0].name), "%s",
				 bpf_program__name(p));
			c->progs[c->nr_progs].runs = info.run_cnt;
			c->progs[c->nr_progs].run_ns = info.run_time_ns;
			c->nr_progs++;
		}
		bpf_object__for_each_map(m, s->skel->obj)
			if (bpf_map__fd(m) >= 0)
				c->map_bytes += fd_memlock(bpf_map__fd(m));
	}
	/* utime and stime are fields 14 and 15, after the comm in parentheses */
	if ((f = fopen("/proc/self/stat", "re"))) {
		char buf[1024], *q = NULL;

		if (fgets(buf, sizeof(buf), f) && (q = strrchr(buf, ')')))
			sscanf(q + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut,
			       &st);
		fclose(f);
		c->cpu_ns = (uint64_t)(ut + st) * 1000000000ULL / (uint64_t)sysconf(_SC_CLK_TCK);
	}
	if ((f = fopen("/proc/self/statm", "re"))) {
		if (fscanf(f, "%*u %llu", &pages) == 1)
			c->rss_bytes = (uint64_t)pages * (uint64_t)sysconf(_SC_PAGESIZE);
		fclose(f);
	}
	read_smaps(&c->pss_bytes, &c->private_bytes);
}
