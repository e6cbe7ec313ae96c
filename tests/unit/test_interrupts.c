/* Unit tests for user/sys/interrupts.c: IRQ names from /proc/interrupts lines
 * as x86 and arm64 kernels print them, and each CPU's count summed by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmocka.h>

#include "sys/interrupts.h"

static char path[] = "/tmp/idlescope-interrupts-XXXXXX";

static int setup(void **state)
{
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	(void)state;
	if (!f)
		return -1;
	fputs("           CPU0       CPU1\n"
	      "  1:          0          9   IO-APIC   1-edge      i8042\n"
	      " 24:          0          0  PCI-MSI 49152-edge      virtio1-config\n"
	      " 36:        120          4  PCI-MSIX-0000:00:03.0   1-edge      virtio1-req.0, extra\n"
	      " 11:      81234      80001     GICv3  27 Level     arch_timer\n"
	      " 13:          5          0     GICv3  33 Level     uart-pl011\n"
	      " 52:          7          0  ITS-MSI 16384 Edge      virtio0-config\n"
	      " 99:          1          2     weird\n"
	      "NMI:          0          0   Non-maskable interrupts\n"
	      "ERR:          3\n",
	      f);
	fclose(f);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return 0;
}

static void check(unsigned int irq, const char *want)
{
	char buf[64];

	irq_name_in(path, irq, buf, sizeof(buf));
	assert_string_equal(buf, want);
}

/* By hand: CPU0 0+0+120+81234+5+7+1+0 = 81367, CPU1 9+0+4+80001+0+0+2+0
 * = 80016; ERR (one total) left out. */
static void test_per_cpu_counts(void **state)
{
	uint64_t c[4] = { 7, 7, 7, 7 };

	(void)state;
	assert_int_equal(interrupts_per_cpu_in(path, c, 4), 2);
	assert_int_equal(c[0], 81367);
	assert_int_equal(c[1], 80016);
	assert_int_equal(c[2], 0); /* zeroed: no such column */
	assert_int_equal(interrupts_per_cpu_in("/nonexistent/interrupts", c, 4), -1);
	/* more CPU columns than asked for: unreadable, not truncated */
	assert_int_equal(interrupts_per_cpu_in(path, c, 1), -1);
}

static void test_irq_names(void **state)
{
	(void)state;
	check(1, "i8042");                        /* x86 IO-APIC "1-edge" */
	check(24, "virtio1-config");               /* x86 MSI */
	check(36, "virtio1-req.0, extra");         /* shared line: every action */
	check(11, "arch_timer");                   /* arm64 GIC "27 Level" */
	check(13, "uart-pl011");
	check(52, "virtio0-config");               /* arm64 ITS "Edge" */
	check(99, "weird");                        /* no trigger column: last token */
	check(7, "");                              /* not listed */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_irq_names),
		cmocka_unit_test(test_per_cpu_counts),
	};

	return cmocka_run_group_tests_name("interrupts", tests, setup, teardown);
}
