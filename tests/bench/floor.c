/* Loader of the floor observer (floor.bpf.c): attach what this kernel has
 * (an event missing from its BTF is left out), wait for SIGINT or SIGTERM,
 * detach. Prints "attached" on stderr when ready. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/btf.h>

#include "floor.skel.h"

static volatile sig_atomic_t done;

static void on_signal(int sig)
{
	(void)sig;
	done = 1;
}

int main(void)
{
	struct floor_bpf *skel = floor_bpf__open();
	struct btf *vmlinux = btf__load_vmlinux_btf();
	struct bpf_program *p;

	if (!skel || !vmlinux) {
		fprintf(stderr, "floor: cannot open the object or vmlinux BTF\n");
		return 1;
	}
	bpf_object__for_each_program(p, skel->obj) {
		char tp[128];

		snprintf(tp, sizeof(tp), "btf_trace_%s", bpf_program__name(p) + strlen("floor_"));
		if (btf__find_by_name_kind(vmlinux, tp, BTF_KIND_TYPEDEF) < 0)
			bpf_program__set_autoload(p, false);
	}
	btf__free(vmlinux);
	if (floor_bpf__load(skel) || floor_bpf__attach(skel)) {
		fprintf(stderr, "floor: cannot load/attach (root?)\n");
		floor_bpf__destroy(skel);
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	fprintf(stderr, "attached\n");
	while (!done)
		pause();
	floor_bpf__destroy(skel);
	return 0;
}
