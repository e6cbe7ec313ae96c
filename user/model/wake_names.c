/* Name lookups for the wakeup report. */
#include "model/wake_names.h"

const char *wake_kind_name(int kind)
{
	static const char *const names[WAKE_NR_KINDS] = {
		[WAKE_UNKNOWN] = "unknown",
		[WAKE_TIMER] = "timer",
		[WAKE_IRQ] = "irq",
		[WAKE_IPI_RESCHED] = "ipi-resched",
		[WAKE_IPI_CALL] = "ipi-call",
		[WAKE_IPI_CALL_SINGLE] = "ipi-call-single",
		[WAKE_IPI_IRQ_WORK] = "ipi-irq-work",
		[WAKE_IPI_OTHER] = "ipi-other",
		[WAKE_SOFTIRQ] = "softirq",
		[WAKE_NO_IPI] = "poll-resched",
		[WAKE_POLL_TIMEOUT] = "poll-timeout",
	};

	return kind >= 0 && kind < WAKE_NR_KINDS ? names[kind] : "?";
}

const char *softirq_name(uint64_t vec)
{
	/* include/linux/interrupt.h, stable since 2.6 */
	static const char *const names[] = { "HI", "TIMER", "NET_TX", "NET_RX", "BLOCK",
					     "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU" };

	return vec < sizeof(names) / sizeof(names[0]) ? names[vec] : "?";
}
