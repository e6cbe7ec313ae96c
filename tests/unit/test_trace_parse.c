/* Unit tests for the trace parser (user/replay/trace_parse.c) and the --profile
 * reader (user/replay/trace_profile.c): event lines as ftrace and trace-cmd write
 * them, idlestat headers, the counts of what was not used, and garbage that
 * must be reported, never crash. Expected values are read off the lines. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "idle_stats.h"
#include "replay/trace_parse.h"
#include "replay/trace_profile.h"
#include "replay_event.h"

static int line(const char *s, struct trace_event *ev, char *name)
{
	return trace_parse_line(s, strlen(s), ev, name, 40);
}

static void test_ftrace_line(void **state)
{
	struct trace_event ev;
	char name[40];

	(void)state;
	assert_int_equal(line("          <idle>-0       [001] d..2.  1234.567890: cpu_idle: state=2 cpu_id=1",
			      &ev, name), 1);
	assert_string_equal(name, "cpu_idle");
	assert_int_equal(ev.re.kind, RE_IDLE);
	assert_int_equal(ev.re.cpu, 1);
	assert_int_equal(ev.re.idle.state, 2);
	assert_int_equal(ev.re.now_ns, 1234567890000ULL);
	/* exit, nanosecond timestamps, no flags column (trace-cmd report) */
	assert_int_equal(line("<idle>-0 [003] 5.000000001: cpu_idle: state=4294967295 cpu_id=3", &ev,
			      name), 1);
	assert_int_equal(ev.re.idle.state, IS_PWR_EVENT_EXIT);
	assert_int_equal(ev.re.now_ns, 5000000001ULL);
	assert_int_equal(ev.re.cpu, 3);
	/* trace-cmd pads the event name */
	assert_int_equal(line("  bash-1234  [000]  10.5: cpu_idle:             state=1 cpu_id=0", &ev,
			      name), 1);
	assert_int_equal(ev.re.now_ns, 10500000000ULL);
	/* a comm with brackets and spaces before the CPU column */
	assert_int_equal(line(" kworker/0:1 [x]-77  [000] .... 1.000001: cpu_idle: state=0 cpu_id=0",
			      &ev, name), 1);
	assert_int_equal(ev.re.now_ns, 1000001000ULL);
}

static void test_other_events(void **state)
{
	struct trace_event ev;
	char name[40];

	(void)state;
	assert_int_equal(line("<idle>-0 [002] d..2. 1.0: cpu_idle_miss: cpu_id=2 state=1 type=below",
			      &ev, name), 1);
	assert_true(ev.re.kind == RE_IDLE_MISS && ev.re.cpu == 2 && ev.re.miss.state == 1 &&
		    ev.re.miss.below == 1);
	assert_int_equal(line("<idle>-0 [002] d..2. 1.0: cpu_idle_miss: cpu_id=2 state=1 type=sideways",
			      &ev, name), -1);
	assert_int_equal(line("<idle>-0 [001] d.h2. 1.0: irq_handler_entry: irq=24 name=virtio0-input",
			      &ev, name), 1);
	assert_true(ev.re.kind == RE_IRQ && ev.re.wake.detail == 24 && ev.re.cpu == 1);
	assert_string_equal(ev.re.wake.name, "virtio0-input");
	assert_int_equal(line("<idle>-0 [001] ..s2. 1.0: softirq_entry: vec=1 [action=TIMER]", &ev,
			      name), 1);
	assert_true(ev.re.kind == RE_SOFTIRQ && ev.re.wake.detail == 1);
	assert_int_equal(line("<idle>-0 [000] d.h1. 1.0: local_timer_entry: vector=236", &ev, name), 1);
	assert_true(ev.re.kind == RE_LOCAL_TIMER);
	assert_int_equal(line("<idle>-0 [005] d.h1. 1.0: ipi_entry: (Rescheduling interrupts)", &ev,
			      name), 1);
	assert_true(ev.re.kind == RE_RESCHED && ev.re.cpu == 5);
	/* sent from CPU 0 to CPU 3 */
	assert_int_equal(line("bash-9 [000] d..1. 1.0: ipi_send_cpu: cpu=3 callsite=x+0x1 callback=y",
			      &ev, name), 1);
	assert_true(ev.re.kind == RE_IPI_SEND && ev.re.cpu == 3 && ev.re.wake.detail == 0);
	/* comm with a space; the waker runs on CPU 1, the target is CPU 2 */
	assert_int_equal(line("bash-9 [001] d..4. 1.0: sched_wakeup: comm=Web Content pid=42 prio=120 target_cpu=002",
			      &ev, name), 1);
	assert_true(ev.re.kind == RE_SCHED_WAKEUP && ev.re.cpu == 2 && ev.re.task.waker_cpu == 1 &&
		    ev.re.task.pid == 42);
	assert_string_equal(ev.re.task.comm, "Web Content");
	/* trace-cmd report's sched plugin format, with its buffer-name prefix */
	assert_int_equal(line("inst:  stress-ng-29451 [001]  9558.245132: sched_wakeup:         stress-ng-t:x:29445 [120] CPU:000",
			      &ev, name), 1);
	assert_true(ev.re.kind == RE_SCHED_WAKEUP && ev.re.cpu == 0 && ev.re.task.waker_cpu == 1 &&
		    ev.re.task.pid == 29445);
	assert_string_equal(ev.re.task.comm, "stress-ng-t:x");
	assert_int_equal(line("a-1 [001] 1.0: sched_wakeup: foo [120] CPU:000", &ev, name), -1);
	assert_int_equal(line("<idle>-0 [000] d..2. 1.0: cpu_frequency: state=1800000 cpu_id=0", &ev,
			      name), 1);
	assert_true(ev.re.kind == RE_FREQ && ev.re.freq.khz == 1800000);
	assert_int_equal(line("<idle>-0 [000] d.h2. 1.0: hrtimer_expire_entry: hrtimer=00000000deadbeef function=tick_nohz_handler now=7000012000",
			      &ev, name), 1);
	assert_true(ev.re.kind == RE_HRTIMER && ev.re.timer.hrtimer == 0xdeadbeefULL &&
		    ev.re.timer.now == 7000012000ULL);
	assert_int_equal(line("x-1 [000] d..2. 1.0: hrtimer_start: hrtimer=0xffff8880abcd0000 function=hrtimer_wakeup expires=5 softexpires=5 mode=REL",
			      &ev, name), 1);
	assert_true(ev.re.kind == RE_HRTIMER_START && ev.re.timer.hrtimer == 0xffff8880abcd0000ULL &&
		    ev.re.timer.expires == 5);
	assert_int_equal(line("x-1 [000] d..2. 1.0: hrtimer_start: hrtimer=zz function=f expires=5", &ev,
			      name), -1);
	/* well-formed but unused: 0, with its name */
	assert_int_equal(line("bash-9 [000] d..2. 1.0: sched_switch: prev_comm=bash prev_pid=9", &ev,
			      name), 0);
	assert_string_equal(name, "sched_switch");
	assert_int_equal(ev.re.kind, 0); /* no next_pid: no idle-task time from it */
	/* its pids are kept for the idle task's time, ftrace's and trace-cmd's spellings */
	assert_int_equal(line("bash-9 [000] d..2. 1.0: sched_switch: prev_comm=bash prev_pid=9 "
			      "prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120",
			      &ev, name), 0);
	assert_true(ev.re.kind == RE_SWITCH && ev.re.sw.prev_pid == 9 && ev.re.sw.next_pid == 0);
	assert_int_equal(line("<idle>-0 [001] 1.0: sched_switch: swapper/1:0 [120] R ==> "
			      "kworker/1:3:29733 [120]", &ev, name), 0);
	assert_true(ev.re.kind == RE_SWITCH && ev.re.sw.prev_pid == 0 && ev.re.sw.next_pid == 29733);
	assert_int_equal(line("<idle>-0 [001] 1.0: sched_switch: swapper/1:0 [120] R ==> ", &ev, name), 0);
	assert_int_equal(ev.re.kind, 0);
}

static void test_garbage_lines(void **state)
{
	static const char *bad[] = {
		"", "hello", "[000] 1.0: cpu_idle: state=1 cpu_id=0", /* no comm before */
		"<idle>-0 [000] d..2. 1.: cpu_idle: state=1 cpu_id=0",
		"<idle>-0 [000] d..2. 1.0: cpu_idle: state=1",
		"<idle>-0 [000] d..2. 1.0: cpu_idle: state=x cpu_id=0",
		"<idle>-0 [000] d..2. 1.0: cpu_idle: state=1 cpu_id=4096", /* beyond IS_MAX_CPUS */
		"<idle>-0 [000] d..2. 1.0: cpu_idle: state=99999999999999999999999 cpu_id=0",
		"<idle>-0 [000] d..2. 1.1234567890: cpu_idle: state=1 cpu_id=0", /* 10 digits */
		"<idle>-0 [000] d..2. 99999999999.0: cpu_idle: state=1 cpu_id=0",
		"<idle>-0 [000] d..2. 1.0 cpu_idle: state=1 cpu_id=0",
	};
	struct trace_event ev;
	char name[40];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(line(bad[i], &ev, name), -1);
}

static const char ftrace_buf[] =
	"# tracer: nop\n"
	"#\n"
	"          <idle>-0     [001] d..2.   100.000300: cpu_idle: state=1 cpu_id=1\n"
	"          <idle>-0     [000] d..2.   100.000200: cpu_idle: state=0 cpu_id=0\n"
	"          <idle>-0     [000] d..2.   100.000100: cpu_idle: state=4294967295 cpu_id=0\n"
	"CPU:1 [LOST 17 EVENTS]\n"
	"inst: CPU:0 [EVENTS DROPPED]\n"
	"this line is garbage\n"
	"            bash-9     [001] d..2.   100.000400: sched_switch: prev_comm=bash\n"
	"            bash-9     [001] d..2.   100.000400: foo_bar: x=1\n"
	"            bash-9     [001] d..2.   100.000400: sched_switch: prev_comm=bash\n"
	"          <idle>-0     [001] d..2.   100.000400: cpu_idle: state=4294967295 cpu_id=1\n"
	"          <idle>-0     [001] d..2.   100.0005";

static void test_buffer_counts(void **state)
{
	struct trace_data d;

	(void)state;
	assert_int_equal(trace_parse_buffer(ftrace_buf, strlen(ftrace_buf), &d), 0);
	assert_int_equal(d.format, TF_FTRACE);
	assert_int_equal(d.nr_ev, 4);
	assert_int_equal(d.skipped, 3);
	assert_int_equal(d.nr_skipped_names, 2);
	assert_string_equal(d.skipped_names[0].name, "sched_switch");
	assert_int_equal(d.skipped_names[0].count, 2);
	assert_int_equal(d.garbled, 2); /* the garbage and the cut last line */
	assert_int_equal(d.first_garbled_line, 8);
	assert_int_equal(d.drop_markers, 1);
	assert_true(d.truncated);
	assert_int_equal(d.lost_events, 17);
	assert_int_equal(d.out_of_order, 1); /* CPU 0 went back from 200 to 100 us */
	assert_int_equal(d.max_cpu, 1);
	trace_sort_events(&d);
	assert_int_equal(d.ev[0].re.now_ns, 100000100000ULL);
	assert_int_equal(d.ev[0].line, 5);
	assert_int_equal(d.ev[1].line, 4);
	assert_int_equal(d.ev[2].line, 3);
	assert_int_equal(d.ev[3].line, 12);
	trace_data_free(&d);
}

static void test_stable_sort(void **state)
{
	static const char buf[] =
		"cpus=2\n"
		"<idle>-0 [001] 2.0: cpu_idle: state=1 cpu_id=1\n"
		"<idle>-0 [000] 1.0: cpu_idle: state=1 cpu_id=0\n"
		"<idle>-0 [000] 1.0: cpu_idle: state=4294967295 cpu_id=0\n"
		"<idle>-0 [000] 1.0: cpu_idle: state=0 cpu_id=0\n";
	struct trace_data d;

	(void)state;
	assert_int_equal(trace_parse_buffer(buf, strlen(buf), &d), 0);
	assert_int_equal(d.format, TF_TRACE_CMD);
	assert_int_equal(d.header_cpus, 2);
	assert_false(d.truncated);
	trace_sort_events(&d);
	/* equal timestamps keep the file's order: enter, exit, enter */
	assert_int_equal(d.ev[0].re.idle.state, 1);
	assert_int_equal(d.ev[1].re.idle.state, IS_PWR_EVENT_EXIT);
	assert_int_equal(d.ev[2].re.idle.state, 0);
	assert_int_equal(d.ev[3].re.cpu, 1);
	trace_data_free(&d);
}

static const char idlestat_buf[] =
	"idlestat version = 0.8\n"
	"cpus=4\n"
	"clusterA:\n"
	"\tcore0\n"
	"\t\tcpu0\n"
	"\t\tcpu1\n"
	"clusterB:\n"
	"\tcore0\n"
	"\t\tcpu2\n"
	"\t\tcpu3\n"
	"cpuid 0:\n\tWFI\n\t1\n\tCPU_PD\n\t1000\n\t(null)\n\t0\n"
	"cpuid 1:\n\tWFI\n\t1\n\tCPU_PD\n\t1000\n\t(null)\n\t0\n"
	"cpuid 2:\n\tWFI\n\t1\n\t(null)\n\t0\n"
	"cpuid 3:\n\tWFI\n\t1\n\tCPU_PD\n\t1500\n\tCLS_PD\n\t5000\n"
	"          <idle>-0     [003] d..2   100.000000: cpu_idle: state=2 cpu_id=3\n";

static void test_idlestat_header(void **state)
{
	struct trace_data d;
	size_t cut;

	(void)state;
	assert_int_equal(trace_parse_buffer(idlestat_buf, strlen(idlestat_buf), &d), 0);
	assert_int_equal(d.format, TF_IDLESTAT);
	assert_int_equal(d.header_cpus, 4);
	assert_int_equal(d.nr_clusters, 2);
	assert_int_equal(d.cluster_of[1], 0);
	assert_int_equal(d.cluster_of[2], 1);
	assert_int_equal(d.nr_states[0], 2);
	assert_int_equal(d.nr_states[2], 1);
	assert_int_equal(d.nr_states[3], 3);
	assert_string_equal(d.states[3 * IS_MAX_STATES + 2].name, "CLS_PD");
	assert_int_equal(d.states[3 * IS_MAX_STATES + 1].target_residency_ns, 1500000);
	assert_int_equal(d.nr_ev, 1);
	assert_int_equal(d.ev[0].line, 37);
	trace_data_free(&d);

	/* every cut inside the header either fails cleanly or parses fewer
	 * tables; never crashes */
	for (cut = 0; cut < strlen(idlestat_buf); cut++) {
		int r = trace_parse_buffer(idlestat_buf, cut, &d);

		if (cut > 30 && cut < 60)
			assert_int_equal(r, -1); /* topology only: no state tables */
		if (r)
			assert_true(d.error[0] != '\0');
		trace_data_free(&d);
	}
}

/* What idlestat 0.8 writes on a host without a cpuidle driver: every slot
 * "(null)" / "-1"; its events are state=1 from the default idle call. */
static void test_idlestat_no_driver(void **state)
{
	char buf[2048];
	size_t n = 0;
	struct trace_data d;

	(void)state;
	n += (size_t)snprintf(buf + n, sizeof(buf) - n,
			      "idlestat version = 0.8\ncpus=2\nclusterA:\n\tcore0\n\t\tcpu0\n"
			      "\tcore1\n\t\tcpu1\n");
	for (int c = 0; c < 2; c++) {
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "cpuid %d:\n", c);
		for (int i = 0; i < 16; i++)
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "\t(null)\n\t-1\n");
	}
	n += (size_t)snprintf(buf + n, sizeof(buf) - n,
			      "<idle>-0 [000] d..1. 1.000100: cpu_idle: state=1 cpu_id=0\n"
			      "<idle>-0 [000] d..1. 1.000287: cpu_idle: state=4294967295 cpu_id=0\n");
	assert_int_equal(trace_parse_buffer(buf, n, &d), 0);
	assert_int_equal(d.format, TF_IDLESTAT);
	assert_string_equal(d.version, "0.8");
	assert_true(d.have_states);
	assert_true(d.described[0] && d.described[1]);
	assert_int_equal(d.nr_states[0], 0);
	assert_int_equal(d.nr_states[1], 0);
	assert_int_equal(d.nr_ev, 2);
	assert_int_equal(d.ev[0].line, 8 + 2 * 33);
	assert_int_equal(d.garbled, 0);
	trace_data_free(&d);
}

/* idlestat's scenario files: the header as "# " comments, CRLF line ends,
 * idlestat 0.4's "version = 0.4-rc1" without state tables. */
static void test_idlestat_04_and_comments(void **state)
{
	static const char v04[] =
		"# version = 0.4-rc1\r\n# cpus=3\r\n# clusterA:\r\n# \tcore0\r\n# \t\tcpu1\r\n"
		"# clusterB:\r\n# \tcore0\r\n# \t\tcpu0\r\n# \t\tcpu2\r\n\r\n"
		"#####\r\n# Execution scenario\r\n"
		"  idlestat/x  [002] ....  1000.000000: idlestat_start\r\n"
		"  idlestat/x  [002] d...  1000.000000: cpu_idle: state=0 cpu_id=2\r\n"
		"  idlestat/x  [002] d...  1000.000900: cpu_idle: state=4294967295 cpu_id=2\r\n";
	static const char v08[] =
		"# idlestat version = 0.8\n# cpus=1\n# clusterA:\n# \tcore0\n# \t\tcpu0\n"
		"# a comment\n# cpuid 0:\n# \tPOLL\n# \t0\n# \tC1\n# \t2\n# \t(null)\n# \t-1\n"
		"<idle>-0 [000] d..1. 1.000100: cpu_idle: state=1 cpu_id=0\n";
	static const char tc[] = "version = 6\ncpus=2\n<idle>-0 [000] 1.0: cpu_idle: state=1 cpu_id=0\n";
	struct trace_data d;

	(void)state;
	assert_int_equal(trace_parse_buffer(v04, strlen(v04), &d), 0);
	assert_int_equal(d.format, TF_IDLESTAT);
	assert_string_equal(d.version, "0.4-rc1");
	assert_false(d.have_states);
	assert_int_equal(d.header_cpus, 3);
	assert_int_equal(d.nr_clusters, 2);
	assert_int_equal(d.cluster_of[1], 0);
	assert_int_equal(d.cluster_of[2], 1);
	assert_int_equal(d.garbled, 0);
	assert_int_equal(d.skipped, 1); /* idlestat_start */
	assert_int_equal(d.nr_ev, 2);
	assert_int_equal(d.ev[1].re.now_ns - d.ev[0].re.now_ns, 900000);
	trace_data_free(&d);

	assert_int_equal(trace_parse_buffer(v08, strlen(v08), &d), 0);
	assert_int_equal(d.format, TF_IDLESTAT);
	assert_int_equal(d.nr_states[0], 2);
	assert_string_equal(d.states[1].name, "C1");
	assert_int_equal(d.states[1].target_residency_ns, 2000);
	assert_int_equal(d.nr_ev, 1);
	trace_data_free(&d);

	/* trace-cmd report starts the same way, without the topology */
	assert_int_equal(trace_parse_buffer(tc, strlen(tc), &d), 0);
	assert_int_equal(d.format, TF_TRACE_CMD);
	assert_string_equal(d.version, "");
	trace_data_free(&d);
}

/* Per-CPU order: CPU 0's exit is logged at 287 us and its next enter at
 * 286 us (its clock stepped back): file order is kept, the enter replayed
 * at 287 us. CPU 1's lines came as two blocks, the later one first: merged
 * by time. */
static void test_per_cpu_order(void **state)
{
	static const char buf[] =
		"<idle>-0 [000] 1.000100: cpu_idle: state=1 cpu_id=0\n"
		"<idle>-0 [001] 1.000500: cpu_idle: state=1 cpu_id=1\n"
		"<idle>-0 [001] 1.000600: cpu_idle: state=4294967295 cpu_id=1\n"
		"<idle>-0 [000] 1.000287: cpu_idle: state=4294967295 cpu_id=0\n"
		"<idle>-0 [000] 1.000286: cpu_idle: state=1 cpu_id=0\n"
		"<idle>-0 [001] 1.000200: cpu_idle: state=1 cpu_id=1\n"
		"<idle>-0 [001] 1.000300: cpu_idle: state=4294967295 cpu_id=1\n"
		"<idle>-0 [000] 1.000900: cpu_idle: state=4294967295 cpu_id=0\n";
	static const uint32_t order[] = { 1, 6, 4, 5, 7, 2, 3, 8 }; /* 100 200 287 287 300 ... */
	struct trace_data d;

	(void)state;
	assert_int_equal(trace_parse_buffer(buf, strlen(buf), &d), 0);
	assert_int_equal(d.out_of_order, 2); /* 286 after 287, 200 after 600 */
	trace_sort_events(&d);
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		assert_int_equal(d.ev[i].line, order[i]);
	assert_int_equal(d.ev[3].re.now_ns, 1000287000ULL); /* line 5, held at its exit's time */
	assert_int_equal(d.held_back, 1);
	assert_int_equal(d.reordered, 4); /* lines 4-7 come before lines 2-3 */
	trace_data_free(&d);
}

/* A file cut mid-number would read as another number: the unterminated
 * last line is not an event. */
static void test_cut_mid_line(void **state)
{
	static const char buf[] = "<idle>-0 [000] 1.000100: cpu_idle: state=1 cpu_id=0\n"
				  "<idle>-0 [000] 1.000200: cpu_idle: state=4294";
	struct trace_data d;

	(void)state;
	assert_int_equal(trace_parse_buffer(buf, strlen(buf), &d), 0);
	assert_int_equal(d.nr_ev, 1);
	assert_true(d.truncated);
	assert_int_equal(d.truncated_line, 2);
	assert_int_equal(d.garbled, 1);
	trace_data_free(&d);
}

static void test_formats_and_errors(void **state)
{
	static const char dat[] = "\x17\x08\x44tracing6\0\0\0";
	struct trace_data d;

	(void)state;
	assert_int_equal(trace_parse_buffer(dat, sizeof(dat), &d), -1);
	assert_non_null(strstr(d.error, "trace-cmd report"));
	trace_data_free(&d);
	assert_int_equal(trace_parse_buffer("random text\nmore\n", 17, &d), -1);
	assert_non_null(strstr(d.error, "no trace events"));
	trace_data_free(&d);
	assert_int_equal(trace_parse_buffer("", 0, &d), -1);
	assert_string_equal(d.error, "empty file");
	trace_data_free(&d);
	{	/* header and comments only: no window, an error; #P: is the CPU count */
		static const char hdr[] = "# tracer: nop\n#\n"
					  "# entries-in-buffer/entries-written: 0/0   #P:8\n#\n";
		static const char one[] = "# tracer: nop\n#\n"
					  "# entries-in-buffer/entries-written: 1/1   #P:8\n#\n"
					  "          <idle>-0       [001] d..2.    50.000100: cpu_idle: "
					  "state=1 cpu_id=1\n";

		assert_int_equal(trace_parse_buffer(hdr, sizeof(hdr) - 1, &d), -1);
		assert_non_null(strstr(d.error, "no event lines"));
		trace_data_free(&d);
		assert_int_equal(trace_parse_buffer("cpus=2\n", 7, &d), -1);
		assert_non_null(strstr(d.error, "no event lines"));
		trace_data_free(&d);
		assert_int_equal(trace_parse_buffer(one, sizeof(one) - 1, &d), 0);
		assert_int_equal(d.header_cpus, 8);
		assert_int_equal(d.max_cpu, 1);
		assert_int_equal(d.overwritten, 0);
		trace_data_free(&d);
	}
	assert_int_equal(trace_parse_buffer("\n\n\r\n", 5, &d), -1);
	trace_data_free(&d);
	assert_int_equal(trace_parse_buffer("idlestat version = 0.8\ncpus=x\n", 30, &d), -1);
	assert_non_null(strstr(d.error, "cpus=N"));
	trace_data_free(&d);
}

/* trace_decode from fields by name, as a binary record's format gives them
 * (trace_dat.c): numbers where the text has words (below, the function's
 * address), a comm as a string. */
struct fake_field {
	const char *key;
	uint64_t num;
	const char *str;
};

static const struct fake_field *fake_find(const void *ctx, const char *key)
{
	for (const struct fake_field *f = ctx; f->key; f++)
		if (!strcmp(f->key, key))
			return f;
	return NULL;
}

static int fake_num(const void *ctx, const char *key, uint64_t *v)
{
	const struct fake_field *f = fake_find(ctx, key);

	if (!f || f->str)
		return -1;
	*v = f->num;
	return 0;
}

static int fake_str(const void *ctx, const char *key, char *out, size_t len)
{
	const struct fake_field *f = fake_find(ctx, key);

	if (!f || !f->str)
		return -1;
	snprintf(out, len, "%s", f->str);
	return 0;
}

static int fake_decode(const char *name, const struct fake_field *ff, struct replay_event *re)
{
	const struct trace_fields f = { fake_num, fake_str, ff };

	memset(re, 0, sizeof(*re));
	return trace_decode(name, &f, 3, re);
}

static void test_decode_fields(void **state)
{
	struct replay_event re;

	(void)state;
	assert_int_equal(fake_decode("cpu_idle", (struct fake_field[]){
		{ "state", 0xffffffffu, NULL }, { "cpu_id", 1, NULL }, { 0 } }, &re), 1);
	assert_int_equal(re.kind, RE_IDLE);
	assert_int_equal(re.cpu, 1);
	assert_int_equal(re.idle.state, IS_PWR_EVENT_EXIT);
	assert_int_equal(fake_decode("cpu_idle_miss", (struct fake_field[]){
		{ "state", 2, NULL }, { "cpu_id", 0, NULL }, { "below", 1, NULL }, { 0 } }, &re), 1);
	assert_int_equal(re.kind, RE_IDLE_MISS);
	assert_int_equal(re.miss.state, 2);
	assert_int_equal(re.miss.below, 1);
	assert_int_equal(fake_decode("sched_wakeup", (struct fake_field[]){
		{ "comm", 0, "kworker/0:1 x" }, { "pid", 11, NULL }, { "target_cpu", 2, NULL },
		{ 0 } }, &re), 1);
	assert_int_equal(re.kind, RE_SCHED_WAKEUP);
	assert_int_equal(re.cpu, 2);
	assert_int_equal(re.task.waker_cpu, 3);
	assert_int_equal(re.task.pid, 11);
	assert_string_equal(re.task.comm, "kworker/0:1 x");
	assert_int_equal(fake_decode("hrtimer_expire_entry", (struct fake_field[]){
		{ "hrtimer", 0xffff888627d206f8ULL, NULL }, { "function", 0xffffffff81234560ULL, NULL },
		{ "now", 367916011162ULL, NULL }, { 0 } }, &re), 1);
	assert_int_equal(re.kind, RE_HRTIMER);
	assert_int_equal(re.cpu, 3);
	assert_int_equal(re.timer.hrtimer, 0xffff888627d206f8ULL);
	assert_int_equal(re.timer.now, 367916011162ULL);
	assert_int_equal(re.timer.fn, 0); /* the importer names the function */
	assert_int_equal(fake_decode("irq_handler_entry", (struct fake_field[]){
		{ "irq", 36, NULL }, { "name", 0, "virtio1-req.0" }, { 0 } }, &re), 1);
	assert_int_equal(re.kind, RE_IRQ);
	assert_string_equal(re.wake.name, "virtio1-req.0");
	assert_int_equal(fake_decode("ipi_send_cpu", (struct fake_field[]){
		{ "cpu", 0, NULL }, { 0 } }, &re), 1);
	assert_int_equal(re.kind, RE_IPI_SEND);
	assert_int_equal(re.cpu, 0);
	assert_int_equal(re.wake.detail, 3);
	assert_int_equal(fake_decode("ipi_entry", (struct fake_field[]){
		{ "reason", 0, "(Single function call interrupts)" }, { 0 } }, &re), 1);
	assert_int_equal(re.kind, RE_CALL_SINGLE);
	/* a CPU beyond the maps, a field the format lacks, a vector out of range */
	assert_int_equal(fake_decode("cpu_idle", (struct fake_field[]){
		{ "state", 1, NULL }, { "cpu_id", 4096, NULL }, { 0 } }, &re), -1);
	assert_int_equal(fake_decode("sched_wakeup", (struct fake_field[]){
		{ "pid", 1, NULL }, { "target_cpu", 0, NULL }, { 0 } }, &re), -1);
	assert_int_equal(fake_decode("softirq_entry", (struct fake_field[]){
		{ "vec", 32, NULL }, { 0 } }, &re), -1);
	assert_int_equal(fake_decode("sched_switch", (struct fake_field[]){ { 0 } }, &re), 0);
}

/* trace-cmd report's counted drop marker, and a %ps function's "/0x0". */
static void test_report_markers(void **state)
{
	static const char buf[] =
		"cpus=2\n"
		"CPU:1 [42 EVENTS DROPPED]\n"
		"  <idle>-0 [001] 367.960822798: hrtimer_expire_entry: hrtimer=0xffff888627d206f8 "
		"now=367916011162 function=tick_nohz_handler/0x0\n";
	struct trace_data d;

	(void)state;
	assert_int_equal(trace_parse_buffer(buf, strlen(buf), &d), 0);
	assert_int_equal(d.lost_events, 42);
	assert_int_equal(d.garbled, 0);
	assert_int_equal(d.nr_ev, 1);
	assert_int_equal(d.gaps, 1); /* the next event of CPU 1 follows a gap */
	assert_int_equal(d.ev[0].gap, 1);
	assert_int_equal(d.nr_fn_names, 1);
	assert_string_equal(d.fn_names[0], "tick_nohz_handler");
	assert_int_equal(d.ev[0].re.timer.fn, 1);
	trace_data_free(&d);
}

/* Random bytes and mutated lines: no crash, every line accounted for. */
static void test_random_input(void **state)
{
	char buf[4096];
	uint64_t x = 88172645463325252ULL;
	struct trace_data d;

	(void)state;
	for (int round = 0; round < 300; round++) {
		size_t n = sizeof(buf);

		memcpy(buf, ftrace_buf, sizeof(ftrace_buf) - 1);
		for (size_t i = 0; i < n; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			if (round % 3 == 0 || i >= sizeof(ftrace_buf) - 1 || x % 29 == 0)
				buf[i] = (char)(round % 2 ? (int)(x & 0xff) : " 0123456789.:=[]\n-abc"[x % 21]);
		}
		if (!trace_parse_buffer(buf, n, &d))
			assert_true(d.nr_ev + d.skipped + d.garbled <= d.lines);
		trace_data_free(&d);
	}
}

static void test_profile(void **state)
{
	static const char ok[] =
		"{\"schema\":\"idlescope-profile/1\",\"cpus\":4,\"driver\":\"psci_idle\","
		"\"states\":[{\"name\":\"WFI\",\"exit_latency_us\":1,\"target_residency_us\":1},"
		"{\"name\":\"CPU_PD\",\"exit_latency_us\":100.5,\"target_residency_us\":1000,\"disabled\":true}],"
		"\"tables\":[{\"cpus\":\"2-3\",\"states\":[{\"name\":\"POLL\",\"exit_latency_us\":0,"
		"\"target_residency_us\":0}]}],\"groups\":[\"0-1\",\"2-3\"]}";
	static const struct {
		const char *json, *err;
	} bad[] = {
		{ "[]", "JSON object" },
		{ "{\"cpus\":0,\"states\":[]}", "\"cpus\"" },
		{ "{\"cpus\":2}", "needs \"states\"" },
		{ "{\"cpus\":2,\"states\":[{\"name\":\"A\",\"exit_latency_us\":1}]}", "target_residency_us" },
		{ "{\"cpus\":2,\"states\":[{\"name\":\"A\",\"exit_latency_us\":-1,\"target_residency_us\":1}]}", ">= 0" },
		{ "{\"cpus\":2,\"tables\":[{\"cpus\":\"0\",\"states\":[{\"name\":\"A\",\"exit_latency_us\":1,\"target_residency_us\":1}]}]}", "CPU 1 has no" },
		{ "{\"cpus\":2,\"states\":[{\"name\":\"A\",\"exit_latency_us\":1,\"target_residency_us\":1}],\"groups\":[\"0-1\",\"1\"]}", "two groups" },
		{ "{\"cpus\":2,\"states\":[{\"name\":\"A\",\"exit_latency_us\":1,\"target_residency_us\":1}],\"groups\":[\"0-2\"]}", "beyond" },
		{ "{\"cpus\":2,\"schema\":\"x\",\"states\":[]}", "schema" },
		{ "{\"cpus\":2,\"states\":[{\"name\":\"A\",\"exit_latency_us\":1,\"target_residency_us\":1}],\"groups\":[\"0\"],\"levels\":[]}", "not both" },
		{ "{\"cpus\":2,\"states\":[{\"name\":\"A\",\"exit_latency_us\":1,\"target_residency_us\":1}],\"levels\":[{\"groups\":[\"0\"]}]}", "needs a \"name\"" },
		{ "{\"cpus\":2,\"states\":[{\"name\":\"A\",\"exit_latency_us\":1,\"target_residency_us\":1}],\"levels\":[{\"name\":\"a\",\"groups\":[\"0\"]},{\"name\":\"a\",\"groups\":[\"1\"]}]}", "given twice" },
		{ "{\"cpus\":2,\"states\":[{\"name\":\"A\",\"exit_latency_us\":1,\"target_residency_us\":1}],\"levels\":[{\"name\":\"a\",\"groups\":[]}]}", "non-empty" },
		{ "{\"cpus\":2,", "line 1" },
	};
	struct trace_profile p;
	char err[256];

	(void)state;
	assert_int_equal(trace_profile_parse(ok, strlen(ok), &p, err, sizeof(err)), 0);
	assert_int_equal(p.nr_cpus, 4);
	assert_string_equal(p.driver, "psci_idle");
	assert_int_equal(p.nr_levels, 1);
	assert_string_equal(p.levels[0].name, "cluster");
	assert_int_equal(p.info[0].nr_states, 2);
	assert_int_equal(p.info[1].states[1].exit_latency_ns, 100500);
	assert_int_equal(p.info[1].states[1].target_residency_ns, 1000000);
	assert_true(p.info[1].states[1].disabled);
	assert_false(p.info[1].states[0].poll);
	assert_int_equal(p.info[2].nr_states, 1);
	assert_true(p.info[3].states[0].poll); /* named POLL */
	assert_int_equal(p.levels[0].nr, 2);
	assert_true(cpulist_has(&p.levels[0].cpus[1], 3));
	trace_profile_free(&p);
	/* several levels */
	{
		static const char lv[] =
			"{\"cpus\":4,\"states\":[{\"name\":\"A\",\"exit_latency_us\":1,\"target_residency_us\":1}],"
			"\"levels\":[{\"name\":\"core\",\"groups\":[\"0-1\",\"2-3\"]},"
			"{\"name\":\"package\",\"groups\":[\"0-3\"]}]}";

		assert_int_equal(trace_profile_parse(lv, strlen(lv), &p, err, sizeof(err)), 0);
		assert_int_equal(p.nr_levels, 2);
		assert_string_equal(p.levels[1].name, "package");
		assert_int_equal(p.levels[0].nr, 2);
		assert_int_equal(cpulist_count(&p.levels[1].cpus[0]), 4);
		trace_profile_free(&p);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(trace_profile_parse(bad[i].json, strlen(bad[i].json), &p, err,
						     sizeof(err)), -1);
		if (!strstr(err, bad[i].err))
			fail_msg("profile %zu: '%s' lacks '%s'", i, err, bad[i].err);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ftrace_line),
		cmocka_unit_test(test_other_events),
		cmocka_unit_test(test_garbage_lines),
		cmocka_unit_test(test_buffer_counts),
		cmocka_unit_test(test_stable_sort),
		cmocka_unit_test(test_idlestat_header),
		cmocka_unit_test(test_idlestat_no_driver),
		cmocka_unit_test(test_idlestat_04_and_comments),
		cmocka_unit_test(test_per_cpu_order),
		cmocka_unit_test(test_cut_mid_line),
		cmocka_unit_test(test_formats_and_errors),
		cmocka_unit_test(test_decode_fields),
		cmocka_unit_test(test_report_markers),
		cmocka_unit_test(test_random_input),
		cmocka_unit_test(test_profile),
	};

	return cmocka_run_group_tests_name("trace-parse", tests, NULL, NULL);
}
