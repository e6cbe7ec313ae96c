#!/usr/bin/env bats
# The PM QoS ledger of record (issue 25): every CPU latency request and CPU
# resume-latency limit that limited idle in the window, with who made it
# (pid, comm taken in BPF from the request's task), its value, since when,
# until when, and the periods it forced shallower. Oracles: the holders we
# start ourselves (their pid from $!, their value written by us, the
# device's aggregate read back, their /proc/PID/fd links), the sysfs file
# we write, and the kernel's own below counters (tagged oracle: they need
# a driver).

bats_require_minimum_version 1.5.0
load helpers

setup() {
	HOLD=
	REC=
	QOS_FILE=
	TUNED_SAVE=
	OUT=$BATS_TEST_TMPDIR/rec.json
}

teardown() {
	local p
	for p in "$HOLD" "$REC"; do
		[ -n "$p" ] || continue
		pkill -P "$p" 2>/dev/null || true # the holder's sleep, not only the holder
		kill "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	[ -z "$QOS_FILE" ] || echo "$QOS_BEFORE" >"$QOS_FILE"
	if [ -n "${TUNED_SAVE:-}" ]; then
		rm -rf /etc/tuned/idlescope-qos-test
		cp -a "$TUNED_SAVE/." /etc/tuned/
		for f in /etc/tuned/*; do # what tuned added
			[ -e "$TUNED_SAVE/${f##*/}" ] || rm -rf "$f"
		done
	fi
}

qos_now() {
	od -An -td4 /dev/cpu_dma_latency | tr -d ' '
}

# A holder of our own: opens the device, writes $1 us, after $2 s writes $3
# us, holds $4 s more, exits. Writes "held" to $5 once its first value is in.
# Its sleeps do not inherit the descriptor: killing the holder releases it.
holder_script() {
	cat >"$BATS_TEST_TMPDIR/hold.sh" <<'SH'
le32() { printf "\\x$(printf %02x $(($1 & 255)))\\x$(printf %02x $(($1 >> 8 & 255)))\\x00\\x00"; }
exec 3>/dev/cpu_dma_latency
le32 "$1" >&3
echo held >"$5"
sleep "$2" 3>&-
le32 "$3" >&3
sleep "$4" 3>&-
SH
}

# record -v -d $1 into $OUT in the background (REC its pid), back once its
# window is open (window_open, helpers.bash): what starts after that starts
# inside the window, however long the start-up took.
record_bg() {
	"$IDLESCOPE" record -v -d "$1" --format json -o "$OUT" 2>"$BATS_TEST_TMPDIR/rec.err" &
	REC=$!
	window_open "$BATS_TEST_TMPDIR/rec.err" "$REC"
}

wait_file() {
	for _ in $(seq 100); do [ -e "$1" ] && return 0; sleep 0.05; done
	return 1
}

@test "record: a holder that starts, changes its value and exits in the window is one row" {
	[ "$(qos_now)" -gt 23 ] || skip "another PM QoS request holds $(qos_now) us"
	holder_script
	record_bg 3
	bash "$BATS_TEST_TMPDIR/hold.sh" 17 0.6 23 0.6 "$BATS_TEST_TMPDIR/held" &
	HOLD=$!
	wait "$HOLD"
	wait "$REC"
	jq .pm_qos "$OUT"
	# the holder is $HOLD, its comm bash
	jq -e --argjson p "$HOLD" '[.pm_qos.requests[] | select(.pid == $p)] | length == 1' "$OUT"
	jq -e --argjson p "$HOLD" '.pm_qos.requests[] | select(.pid == $p) |
		.comm == "bash" and .scope == "all" and .value_us == 23 and .changes == 1 and
		.requests == 0 and .held_before == false and
		.since_ns > 0 and .since_ns < 2000000000 and
		.value_since_ns - .since_ns > 500000000 and .value_since_ns - .since_ns < 1500000000 and
		.until_ns - .value_since_ns > 500000000 and .until_ns - .value_since_ns < 1500000000' "$OUT"
	HOLD=
	[ "$(qos_now)" -gt 23 ]
}

@test "record: a holder from before the window is named, its value the device's" {
	[ "$(qos_now)" -gt 17 ] || skip "another PM QoS request holds $(qos_now) us"
	holder_script
	bash "$BATS_TEST_TMPDIR/hold.sh" 17 30 17 0 "$BATS_TEST_TMPDIR/held" &
	HOLD=$!
	wait_file "$BATS_TEST_TMPDIR/held"
	# the oracles at this instant: its descriptor, the aggregate
	ls -l /proc/"$HOLD"/fd | grep -q ' -> /dev/cpu_dma_latency$'
	[ "$(qos_now)" = 17 ]
	run "$IDLESCOPE" record -d 1 --format json -o "$OUT"
	[ "$status" -eq 0 ]
	ls -l /proc/"$HOLD"/fd | grep -q ' -> /dev/cpu_dma_latency$'
	jq .pm_qos "$OUT"
	jq -e --argjson p "$HOLD" '[.pm_qos.requests[] | select(.pid == $p and .comm == "bash" and
		.held_before and .value_us == 17 and .since_ns == null and .until_ns == null and
		.requests == 1)] | length == 1' "$OUT"
	run "$IDLESCOPE" record -d 1
	[ "$status" -eq 0 ]
	[[ "$output" == *"bash[$HOLD]"*"all"*"17us"*"before"*"held"* ]]
}

@test "record: a CPU's resume-latency limit written in the window is that CPU's row, with its writer" {
	f=/sys/devices/system/cpu/cpu1/power/pm_qos_resume_latency_us
	[ -w "$f" ] || skip "no $f"
	QOS_BEFORE=$(cat "$f")
	[ "$QOS_BEFORE" = 0 ] || skip "cpu1 already has a resume-latency limit ($QOS_BEFORE)"
	QOS_FILE=$f
	record_bg 2
	bash -c 'echo $$ >"$0.pid"; echo 40 >"$1"; sleep 0.5; echo 0 >"$1"' "$BATS_TEST_TMPDIR/w" "$f" &
	HOLD=$!
	wait "$HOLD"
	HOLD=
	wait "$REC"
	w=$(cat "$BATS_TEST_TMPDIR/w.pid")
	jq .pm_qos "$OUT"
	jq -e --argjson p "$w" '[.pm_qos.requests[] | select(.scope == "cpu" and .cpu == 1 and
		.pid == $p and .comm == "bash" and .value_us == 40 and .until_ns != null and
		.until_ns - .since_ns > 300000000)] | length == 1' "$OUT"
	[ "$(cat "$f")" = 0 ]
}

@test "record: a reader of /dev/cpu_dma_latency leaves no row; no request, one line" {
	[ "$(qos_now)" = 2000000000 ] || skip "a PM QoS request holds $(qos_now) us"
	( sleep 0.3; for _ in 1 2 3 4 5; do od -An -td4 /dev/cpu_dma_latency >/dev/null; done ) &
	HOLD=$!
	run "$IDLESCOPE" record -d 1 --format json -o "$OUT"
	[ "$status" -eq 0 ]
	jq -e '.pm_qos.requests == [] and .pm_qos.other.forced_periods == 0 and
		.pm_qos.unmatched_removes == 0 and .pm_qos.lost_records == 0' "$OUT"
	run "$IDLESCOPE" record -d 1
	[[ "$output" == *"PM QoS: no CPU latency request or resume-latency limit during the window"* ]]
}

@test "record: cyclictest started and ended inside the window: its row, 0 us, closed at its exit" {
	command -v cyclictest >/dev/null || skip "cyclictest not installed (make deps)"
	[ "$(qos_now)" -gt 0 ] || skip "another PM QoS request holds 0 us"
	record_bg 3
	rec=$REC
	cyclictest -q -t 1 -i 10000 -D 1 >/dev/null 2>&1 &
	HOLD=$!
	pid=$HOLD
	# the oracles while it runs: its descriptor, the aggregate
	for _ in $(seq 100); do [ "$(qos_now)" = 0 ] && break; sleep 0.02; done
	[ "$(qos_now)" = 0 ]
	ls -l /proc/"$pid"/fd | grep -q ' -> /dev/cpu_dma_latency$'
	wait "$rec"
	wait "$HOLD"
	HOLD=
	jq .pm_qos "$OUT"
	jq -e '[.pm_qos.requests[] | select(.comm == "cyclictest")] | length == 1' "$OUT"
	jq -e --argjson p "$pid" '.pm_qos.requests[] | select(.comm == "cyclictest") | .pid == $p and .scope == "all" and
		.value_us == 0 and .held_before == false and .requests == 0 and
		.until_ns - .since_ns > 800000000 and .until_ns - .since_ns < 2000000000' "$OUT"
	[ "$(qos_now)" -gt 0 ]
}

# tuned's latency-performance profile holds the device at the latency of
# the first idle state past POLL (3 us without one): its force_latency line,
# copied from the profile, in a throwaway profile of its own, since the rest
# of latency-performance changes sysctls and the cpufreq governor. tuned
# runs in the foreground without D-Bus; the files it writes under
# /etc/tuned are put back.
@test "record: tuned's latency-performance force_latency, applied and stopped in the window, is tuned's row" {
	command -v tuned >/dev/null || skip "tuned not installed (make deps)"
	src=/usr/lib/tuned/latency-performance/tuned.conf
	[ -r "$src" ] || skip "no $src"
	[ "$(qos_now)" = 2000000000 ] || skip "a PM QoS request holds $(qos_now) us"
	line=$(grep '^force_latency' "$src")
	TUNED_SAVE=$BATS_TEST_TMPDIR/tuned-etc
	mkdir -p "$TUNED_SAVE"
	cp -a /etc/tuned/. "$TUNED_SAVE/"
	mkdir /etc/tuned/idlescope-qos-test
	printf '[main]\nsummary=idlescope test: latency-performance force_latency only\n[cpu]\n%s\n' \
		"$line" >/etc/tuned/idlescope-qos-test/tuned.conf
	record_bg 9
	rec=$REC
	tuned --no-dbus --no-socket -p idlescope-qos-test -l "$BATS_TEST_TMPDIR/tuned.log" &
	HOLD=$!
	pid=$HOLD
	for _ in $(seq 150); do [ "$(qos_now)" != 2000000000 ] && break; sleep 0.05; done
	# the oracles while it holds: the aggregate, its descriptor
	value=$(qos_now)
	[ "$value" -lt 2000000000 ]
	ls -l /proc/"$pid"/fd | grep -q ' -> /dev/cpu_dma_latency$'
	sleep 1
	kill -TERM "$pid"
	wait "$pid" || true
	HOLD=
	[ "$(qos_now)" = 2000000000 ]
	wait "$rec"
	cat "$BATS_TEST_TMPDIR/tuned.log"
	jq .pm_qos "$OUT"
	jq -e --argjson p "$pid" --argjson v "$value" '[.pm_qos.requests[] | select(.pid == $p and
		.scope == "all" and .value_us == $v and .held_before == false and .requests == 0 and
		.until_ns > .since_ns)] | length == 1' "$OUT"
}

# cyclictest holds the device at 0 (no --laptop) for the whole window: every
# period the kernel calls too shallow is one the limit forced (each deeper
# state has an exit latency above 0), and the ledger charges them to
# cyclictest. Oracle: the kernel's below counters, inner and outer
# snapshots around the window (helpers.bash), one period per CPU of
# allowance at either bound (a period straddling an edge).
# bats test_tags=oracle
@test "record: cyclictest's 0 us request is charged the kernel's below periods" {
	require_cpuidle_driver
	command -v cyclictest >/dev/null || skip "cyclictest not installed (make deps)"
	for s in /sys/devices/system/cpu/cpu*/cpuidle/state[1-9]*; do
		[ "$(cat "$s/latency")" -gt 0 ] || skip "$s has no exit latency: its below periods are not forced"
	done
	cyclictest -q -t 1 -i 10000 -D 60 >/dev/null 2>&1 &
	HOLD=$!
	for _ in $(seq 100); do [ "$(qos_now)" = 0 ] && break; sleep 0.1; done
	[ "$(qos_now)" = 0 ]
	p=$BATS_TEST_TMPDIR/snap
	record_snapped "$p" "sleep 3" --format json -o "$OUT"
	jq .pm_qos "$OUT"
	jq -e --argjson c "$HOLD" '[.pm_qos.requests[] | select(.pid == $c and .comm == "cyclictest" and
		.value_us == 0 and .held_before)] | length == 1' "$OUT"
	# the deepest state 0 us leaves, from sysfs: CPU 0's deepest enabled
	# state of exit latency 0
	want=
	for s in /sys/devices/system/cpu/cpu0/cpuidle/state[0-9]*; do
		[ "$(cat "$s/latency")" = 0 ] && [ "$(cat "$s/disable")" = 0 ] && want=$(cat "$s/name")
	done
	jq -e --argjson c "$HOLD" --arg w "$want" '.pm_qos.requests[] | select(.pid == $c) |
		.deepest_reachable_state == $w' "$OUT"
	forced=$(jq --argjson c "$HOLD" '([.pm_qos.requests[] | select(.pid == $c) | .forced_periods] | add) + .pm_qos.other.forced_periods' "$OUT")
	qos=$(jq '.totals.states | map(.below_qos) | add' "$OUT")
	read -r lo hi < <(snap_deltas "$p" | jq -r '[.[] | select(.missing | not)] |
		"\(map(.in.below) | add) \(map(.out.below) | add)"')
	n=$(jq '.cpus | length' "$OUT")
	echo "# forced $forced (below_qos $qos), kernel below inner $lo outer $hi, $n CPUs" >&3
	[ "$forced" -eq "$qos" ]
	[ "$lo" -gt 0 ]
	[ "$forced" -ge $((lo - n)) ]
	[ "$forced" -le $((hi + n)) ]
}
