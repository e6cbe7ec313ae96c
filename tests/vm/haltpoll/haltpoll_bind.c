// SPDX-License-Identifier: GPL-2.0
/*
 * Test module for the haltpoll oracle guest (tests/vm/oracle.sh): registers
 * the kernel's own haltpoll cpuidle driver and governor in a QEMU TCG guest.
 *
 * Both are built into Debian's kernels, but their init gives up when
 * kvm_para_available() is false, as it is under TCG (no KVM CPUID leaves).
 * Nothing here idles or chooses: the driver's states (POLL, "haltpoll idle"
 * entering HLT through default_idle()), the haltpoll governor's poll-window
 * logic and guest_halt_poll_ns are the kernel's. What is not reproduced is
 * arch_haltpoll_enable() (MSR_KVM_POLL_CONTROL, a KVM host feature) and the
 * driver's CPU hotplug callbacks: cpuidle_register() covers the CPUs online
 * at load time. The symbols are static, so they are looked up through
 * kallsyms_lookup_name, itself found through a kprobe (it is not exported).
 */
#include <linux/cpuidle.h>
#include <linux/kprobes.h>
#include <linux/module.h>

typedef unsigned long (*lookup_fn)(const char *name);

static lookup_fn find_lookup(void)
{
	struct kprobe kp = { .symbol_name = "kallsyms_lookup_name" };
	lookup_fn fn;

	if (register_kprobe(&kp) < 0)
		return NULL;
	fn = (lookup_fn)kp.addr;
	unregister_kprobe(&kp);
	return fn;
}

static int __init haltpoll_bind_init(void)
{
	int (*register_governor)(struct cpuidle_governor *gov);
	struct cpuidle_governor *gov;
	struct cpuidle_driver *drv;
	lookup_fn lookup;
	int ret;

	lookup = find_lookup();
	if (!lookup) {
		pr_err("haltpoll_bind: no kallsyms_lookup_name (kprobes)\n");
		return -ENOENT;
	}
	register_governor = (void *)lookup("cpuidle_register_governor");
	gov = (void *)lookup("haltpoll_governor");
	drv = (void *)lookup("haltpoll_driver");
	if (!register_governor || !gov || !drv) {
		pr_err("haltpoll_bind: haltpoll driver or governor not in this kernel\n");
		return -ENOENT;
	}
	/* -EEXIST: a kernel that registers the governor without KVM (6.13+) */
	ret = register_governor(gov);
	if (ret && ret != -EEXIST)
		return ret;
	/* what haltpoll_init() does after its KVM check: state 0 is POLL */
	cpuidle_poll_state_init(drv);
	/* the driver names its governor: registering switches to haltpoll */
	ret = cpuidle_register(drv, NULL);
	if (ret)
		pr_err("haltpoll_bind: cpuidle_register: %d\n", ret);
	else
		pr_info("haltpoll_bind: driver %s bound, %d states\n", drv->name, drv->state_count);
	return ret;
}
module_init(haltpoll_bind_init);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("idlescope test: bind the kernel's haltpoll cpuidle driver without KVM");
