#!/bin/sh
# Runs as /test.sh in the oracle guests (tests/vm/oracle.sh): the host's own
# BATS oracle tests (tag "oracle", or VMTEST_TAGS) against this guest's sysfs
# counters, with the static idlescope (vmtest_filter=WORD on the kernel
# command line, e.g. ORACLE_KINDS=oracle VMTEST_APPEND=vmtest_filter=instances,
# runs only the tests whose name matches). Each TAP line goes to the console as
# "ORACLE-TAP: ..." for tests/lib/coverage.sh; each failed test also as a
# "CHECK FAIL" line for run.sh's summary. Exits 1 if any test failed.
# Under bash: busybox sh runs its own applets (sed, date) before PATH's.
[ -n "${BASH_VERSION:-}" ] || exec /usr/bin/bash "$0" "$@"
export PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root TERM=dumb LC_ALL=C
export IDLESCOPE=/bin/idlescope IDLESCOPE_TC_SHIM=/src/build/trace_cmd_shim.so
# TCG stretches the observer's time per idle period (run.sh's VMTEST_BIAS_US)
bias=${vmtest_bias_us:-50}
[ "${vmtest_accel:-tcg}" = tcg ] || bias=${vmtest_bias_us:-2}
export IDLESCOPE_TEST_BIAS_NS=$((bias * 1000))
# and a stalled vCPU can stretch a period by a whole QEMU slice (helpers.bash)
# and top's blocks and the sysfs reads around them are further apart (top.bats below/s)
[ "${vmtest_accel:-tcg}" = tcg ] && export IDLESCOPE_TEST_STALL_PERIODS=2 IDLESCOPE_TEST_RATE_TOLERANCE=0.3
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
mount -t tmpfs tmpfs /tmp
# tmux's panes (top.bats) are pseudo-terminals: devtmpfs has /dev/ptmx, not devpts
mkdir -p /dev/pts && mount -t devpts -o ptmxmode=0666 devpts /dev/pts
# bash's process substitution (bats uses it) needs /dev/fd, which devtmpfs lacks
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
# The haltpoll guest (oracle.sh): bind the kernel's haltpoll driver and
# governor first (tests/vm/haltpoll/haltpoll_bind.c); without them the
# tests would run on the default idle call and prove nothing of haltpoll.
if [ "${vmtest_haltpoll:-0}" = 1 ]; then
	insmod "/lib/modules/$(uname -r)/haltpoll_bind.ko" 2>&1
	dmesg | grep 'haltpoll_bind:' | sed 's/^/INFO /'
	if [ "$(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null)" != haltpoll ] ||
		[ "$(cat /sys/devices/system/cpu/cpuidle/current_governor_ro 2>/dev/null)" != haltpoll ]; then
		echo "CHECK FAIL haltpoll guest: the haltpoll driver and governor are not bound"
		exit 1
	fi
fi
echo "INFO cpuidle driver $(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null || echo none)," \
	"governor $(cat /sys/devices/system/cpu/cpuidle/current_governor_ro 2>/dev/null || echo none)," \
	"governors $(cat /sys/devices/system/cpu/cpuidle/available_governors 2>/dev/null)," \
	"cmdline $(cat /proc/cmdline)"
# vmtest_wakeups=1: the wakeups bench instead of the tests, its rows on
# the console (WAKEUPS-TSV:) for the host's tests/bench/wakeups.py table;
# an idle guest is what it needs (ORACLE_KINDS=haltpoll, tests/vm/README.md)
if [ "${vmtest_wakeups:-0}" = 1 ]; then
	cd /src || exit 1
	WAKE_PRINT='WAKEUPS-TSV: ' WAKE_DOC='' WAKE_RESULTS=/tmp/wakeups.tsv IDLESCOPE=/bin/idlescope \
		WAKE_REPS=${vmtest_wake_reps:-3} WAKE_WINDOW=${vmtest_wake_window:-10} \
		WAKE_SETTLE=${vmtest_wake_settle:-8} WAKE_ORACLE=${vmtest_wake_oracle:-usage} \
		WAKE_ROWS=${vmtest_wake_rows:-} WAKE_TRACE=${vmtest_wake_trace:-} \
		WAKE_COMMANDS="$(echo "${vmtest_wake_commands:-record-d,record-i1,hist-d,top-d,serve,tick-ref}" | tr , ' ')" \
		exec tests/bench/wakeups.sh
fi
cd /src/tests/bats || exit 1
t0=$(cut -d' ' -f1 /proc/uptime)
bats --tap --filter-tags "${vmtest_tags:-oracle}" ${vmtest_filter:+-f "$vmtest_filter"} . >/tmp/tap 2>&1 &
bats_pid=$!
# stream the TAP while it runs (a timeout still shows what finished), and
# after each test how long it took, as ORACLE-TIME lines (where a slow suite
# spends its time)
tail -f /tmp/tap 2>/dev/null | mawk -W interactive -v t0="$t0" '
	{ print "ORACLE-TAP: " $0 }
	/^(not )?ok / {
		getline u <"/proc/uptime"; close("/proc/uptime"); split(u, f, " ")
		printf "ORACLE-TIME: %6.1fs (at %6.1fs) %s\n", f[1] - t0 - last, f[1] - t0, $0
		last = f[1] - t0
	}' &
tail_pid=$!
wait "$bats_pid"
rc=$?
sleep 1
kill "$tail_pid" 2>/dev/null
# Under TCG a test that failed gets one more run, shown as "ORACLE-RETRY: "
# lines (tests/lib/coverage.sh marks it ok/retry, its first failure stays in this
# log): QEMU's single thread can stall a vCPU for a whole slice between two
# reads the host does back to back, which no tolerance of the host's covers.
sed -n 's/^not ok [0-9]* //p' /tmp/tap >/tmp/failed
planned=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' /tmp/tap)
if [ -s /tmp/failed ] && [ "${vmtest_accel:-tcg}" = tcg ] &&
	[ "$(grep -cE '^(not )?ok ' /tmp/tap)" = "${planned:-x}" ]; then
	rc=0 # bats ran every test: only the retries decide
	while IFS= read -r name; do
		re=$(printf '%s' "$name" | sed 's/[][\.*^$(){}?+|/]/\\&/g')
		bats --tap --filter-tags "${vmtest_tags:-oracle}" -f "^$re\$" . >/tmp/retry 2>&1
		sed 's/^/ORACLE-RETRY: /' /tmp/retry
		# passed: an ok line that is not a skip, and no failure (a retry
		# that skips proves nothing: tests/lib/coverage.sh shows it FAIL too)
		if grep '^ok ' /tmp/retry | grep -qv ' # skip\( \|$\)' && ! grep -q '^not ok ' /tmp/retry; then
			echo "INFO retried and passed: $name"
		else
			echo "CHECK FAIL $name"
			rc=1
		fi
	done </tmp/failed
else
	sed 's/^/CHECK FAIL /' /tmp/failed
fi
echo "INFO bats exit $rc in $(awk -v a="$t0" '{ printf "%.0f", $1 - a }' /proc/uptime)s"
[ "$rc" -eq 0 ]
