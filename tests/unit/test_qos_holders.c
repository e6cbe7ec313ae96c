/* Unit tests for user/sys/qos_holders.c: the holders of /dev/cpu_dma_latency
 * found in a fake /proc (symlinks as the kernel shows descriptors), and the
 * haltpoll governor's parameters in a fake sysfs (fake_sysfs.h). The live
 * check, with cyclictest and a holder of our own, is tests/bats/qos.bats. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "fake_sysfs.h"
#include "sys/qos_holders.h"

static char proc[] = "/tmp/idlescope-proc-XXXXXX";

static void link_fd(const char *pid, const char *fd, const char *target)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", proc, pid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/fd", proc, pid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/fd/%s", proc, pid, fd);
	if (symlink(target, path))
		fail_msg("symlink %s: %s", path, strerror(errno));
}

static void put_comm(const char *pid, const char *comm)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/comm", proc, pid);
	assert_non_null(f = fopen(path, "w"));
	fprintf(f, "%s\n", comm);
	fclose(f);
}

/* pid 100 holds the device twice (cyclictest), 50 once (tuned), 200 has
 * /dev/null only, 300 has no fd directory (unreadable), "self" is no pid. */
static void test_holders(void **state)
{
	struct qos_holders q;
	char path[256];

	(void)state;
	assert_non_null(mkdtemp(proc));
	link_fd("100", "3", "/dev/cpu_dma_latency");
	link_fd("100", "4", "/dev/cpu_dma_latency");
	link_fd("100", "0", "/dev/pts/0");
	put_comm("100", "cyclictest");
	link_fd("50", "7", "/dev/cpu_dma_latency");
	put_comm("50", "tuned");
	link_fd("200", "0", "/dev/null");
	put_comm("200", "bash");
	snprintf(path, sizeof(path), "%s/300", proc);
	mkdir(path, 0755);
	link_fd("self", "3", "/dev/cpu_dma_latency");

	assert_int_equal(qos_holders_scan(proc, &q), 0);
	assert_int_equal(q.nr, 2);
	assert_int_equal(q.h[0].pid, 50);
	assert_string_equal(q.h[0].comm, "tuned");
	assert_int_equal(q.h[0].fds, 1);
	assert_int_equal(q.h[1].pid, 100);
	assert_string_equal(q.h[1].comm, "cyclictest");
	assert_int_equal(q.h[1].fds, 2);
	assert_int_equal(q.unreadable, 1);
	qos_holders_free(&q);
	assert_int_equal(q.nr, 0);
	nftw(proc, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
	assert_int_equal(qos_holders_scan("/nonexistent/proc", &q), -1);
}

static void test_haltpoll_params(void **state)
{
	struct haltpoll_params p;

	(void)state;
	haltpoll_params_read(&p);
	assert_false(p.present); /* not in the fake tree yet */
	fs_put("200000\n", "module/haltpoll/parameters/guest_halt_poll_ns");
	fs_put("2\n", "module/haltpoll/parameters/guest_halt_poll_grow");
	fs_put("50000\n", "module/haltpoll/parameters/guest_halt_poll_grow_start");
	fs_put("2\n", "module/haltpoll/parameters/guest_halt_poll_shrink");
	fs_put("Y\n", "module/haltpoll/parameters/guest_halt_poll_allow_shrink");
	haltpoll_params_read(&p);
	assert_true(p.present);
	assert_int_equal(p.poll_ns, 200000);
	assert_int_equal(p.grow, 2);
	assert_int_equal(p.grow_start, 50000);
	assert_int_equal(p.shrink, 2);
	assert_true(p.allow_shrink);
	fs_put("N\n", "module/haltpoll/parameters/guest_halt_poll_allow_shrink");
	haltpoll_params_read(&p);
	assert_false(p.allow_shrink);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_holders),
		cmocka_unit_test_setup_teardown(test_haltpoll_params, build_tree, destroy_tree),
	};

	return cmocka_run_group_tests_name("qos_holders", tests, NULL, NULL);
}
