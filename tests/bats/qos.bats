#!/usr/bin/env bats
# Who keeps the CPUs out of deep idle (issue 25): `idlescope info` names the
# processes holding /dev/cpu_dma_latency, the limit they leave, each CPU's
# resume-latency limit and the haltpoll governor's parameters. Oracles: the
# holders' own /proc/PID/fd links, the value read from the device, the
# sysfs files themselves; real holders (cyclictest, a process of our own).

bats_require_minimum_version 1.5.0
load helpers

setup() {
	HOLD=
	QOS_FILE=
	OUT=$BATS_TEST_TMPDIR/info.json
}

teardown() {
	if [ -n "$HOLD" ]; then
		kill "$HOLD" 2>/dev/null || true
		wait "$HOLD" 2>/dev/null || true
	fi
	[ -z "$QOS_FILE" ] || echo "$QOS_BEFORE" >"$QOS_FILE"
}

# info's JSON into $OUT, its pm_qos object shown in the log.
info_json() {
	run "$IDLESCOPE" info --format json -o "$OUT"
	[ "$status" -eq 0 ]
	jq .pm_qos "$OUT"
}

# The device's aggregate in us; 2000000000 (the default) means none.
qos_now() {
	od -An -td4 /dev/cpu_dma_latency | tr -d ' '
}

@test "info: a process holding /dev/cpu_dma_latency at 17 us is named, with the limit" {
	[ "$(qos_now)" -gt 17 ] || skip "another PM QoS request holds $(qos_now) us"
	cat >"$BATS_TEST_TMPDIR/hold.sh" <<'SH'
exec 3>/dev/cpu_dma_latency
printf '\x11\x00\x00\x00' >&3
echo held >"$1"
exec sleep 30
SH
	bash "$BATS_TEST_TMPDIR/hold.sh" "$BATS_TEST_TMPDIR/held" &
	HOLD=$!
	for _ in $(seq 50); do [ -e "$BATS_TEST_TMPDIR/held" ] && break; sleep 0.1; done
	# the oracles: the holder's descriptor, the device's aggregate
	ls -l /proc/"$HOLD"/fd | grep -q ' -> /dev/cpu_dma_latency$'
	[ "$(qos_now)" = 17 ]
	info_json
	jq -e '.pm_qos.cpu_dma_latency_us == 17' "$OUT"
	jq -e --argjson p "$HOLD" '[.pm_qos.holders[] | select(.pid == $p and .comm == "sleep" and .requests == 1)] | length == 1' "$OUT"
	run "$IDLESCOPE" info
	[ "$status" -eq 0 ]
	[[ "$output" == *"PM QoS CPU latency: limit 17 us"* ]]
	[[ "$output" == *"held by "*"sleep[$HOLD]"* ]]
	# gone with its holder: listed no more
	pid=$HOLD
	kill "$HOLD"
	wait "$HOLD" || true
	HOLD=
	run "$IDLESCOPE" info --format json -o "$OUT"
	jq -e --argjson p "$pid" '[.pm_qos.holders[] | select(.pid == $p)] | length == 0' "$OUT"
}

# cyclictest holds the device at 0 unless --laptop: the limit is 0 and the
# deepest state left is the one with no exit latency (POLL), where there are
# states. Tagged oracle: the state part needs a driver (the guests').
# bats test_tags=oracle
@test "info: cyclictest's request at 0 us, and the deepest state it leaves" {
	command -v cyclictest >/dev/null || skip "cyclictest not installed (make deps)"
	cyclictest -q -t 1 -i 10000 -D 30 >/dev/null 2>&1 &
	HOLD=$!
	for _ in $(seq 50); do [ "$(qos_now)" = 0 ] && break; sleep 0.1; done
	[ "$(qos_now)" = 0 ]
	info_json
	jq -e '.pm_qos.cpu_dma_latency_us == 0' "$OUT"
	jq -e --argjson p "$HOLD" '[.pm_qos.holders[] | select(.pid == $p and .comm == "cyclictest")] | length == 1' "$OUT"
	if [ "$(cpuidle_driver)" = none ]; then
		jq -e '.pm_qos.deepest_reachable_state == null' "$OUT"
	else
		# sysfs: the deepest enabled state of CPU 0 whose latency is 0
		want=
		for s in /sys/devices/system/cpu/cpu0/cpuidle/state[0-9]*; do
			[ "$(cat "$s/latency")" = 0 ] && [ "$(cat "$s/disable")" = 0 ] && want=$(cat "$s/name")
		done
		[ -n "$want" ] || want=$(cat /sys/devices/system/cpu/cpu0/cpuidle/state0/name)
		jq -e --arg w "$want" '.pm_qos.deepest_reachable_state == $w' "$OUT"
	fi
}

@test "info: a CPU's resume-latency limit, as sysfs has it" {
	f=/sys/devices/system/cpu/cpu1/power/pm_qos_resume_latency_us
	[ -w "$f" ] || skip "no $f"
	QOS_BEFORE=$(cat "$f")
	QOS_FILE=$f
	echo 50 >"$f"
	run "$IDLESCOPE" info --format json -o "$OUT"
	[ "$status" -eq 0 ]
	jq -e '.pm_qos.resume_latency_us["1"] == 50' "$OUT"
	run "$IDLESCOPE" info
	[[ "$output" == *"resume latency limits: "*"cpu1 50 us"* ]]
	echo n/a >"$f"
	run "$IDLESCOPE" info --format json -o "$OUT"
	jq -e '.pm_qos.resume_latency_us["1"] == 0' "$OUT"
	echo 0 >"$f"
	run "$IDLESCOPE" info --format json -o "$OUT"
	jq -e '.pm_qos.resume_latency_us | has("1") | not' "$OUT"
}

# Tagged oracle: in the haltpoll guest the governor is the one in use.
# bats test_tags=oracle
@test "info: the haltpoll governor's parameters, as its module has them" {
	d=/sys/module/haltpoll/parameters
	run "$IDLESCOPE" info --format json -o "$OUT"
	[ "$status" -eq 0 ]
	if [ ! -e "$d/guest_halt_poll_ns" ]; then
		jq -e '.pm_qos.haltpoll == null' "$OUT"
		return
	fi
	jq .pm_qos.haltpoll "$OUT"
	jq -e --argjson n "$(cat $d/guest_halt_poll_ns)" --argjson g "$(cat $d/guest_halt_poll_grow)" \
		--argjson s "$(cat $d/guest_halt_poll_grow_start)" --argjson k "$(cat $d/guest_halt_poll_shrink)" \
		'.pm_qos.haltpoll | .guest_halt_poll_ns == $n and .guest_halt_poll_grow == $g and
		 .guest_halt_poll_grow_start == $s and .guest_halt_poll_shrink == $k' "$OUT"
	gov=$(cat /sys/devices/system/cpu/cpuidle/current_governor_ro 2>/dev/null ||
		cat /sys/devices/system/cpu/cpuidle/current_governor)
	jq -e --argjson u "$([ "$gov" = haltpoll ] && echo true || echo false)" '.pm_qos.haltpoll_in_use == $u' "$OUT"
}
