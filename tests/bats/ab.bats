#!/usr/bin/env bats
# `idlescope ab`: runs variants interleaved, reports statistics, and always
# puts the settings back (on success, on a bad run, on SIGTERM).

bats_require_minimum_version 1.5.0
load helpers

setup() {
	save_governor
	OUT="$BATS_TEST_TMPDIR/ab.json"
}

teardown() {
	restore_governor
}

# one-driver: ab's sweep and restore over two governors, the same on any
# driver (tests/vm/README.md: run by one oracle guest, or the host)
# bats test_tags=oracle,one-driver
@test "ab governor=menu,OTHER --repeat 3: completes, interleaves, restores" {
	require_cpuidle_driver
	# OTHER: haltpoll where the host has it (KVM guests), else what the
	# kernel lists (QEMU TCG guests have no haltpoll governor)
	local g other=
	for g in haltpoll teo ladder; do
		grep -qw "$g" "$CPUIDLE/available_governors" && { other=$g; break; }
	done
	grep -qw menu "$CPUIDLE/available_governors" && [ -n "$other" ] ||
		skip "needs the menu governor and one of haltpoll, teo, ladder"
	run "$IDLESCOPE" ab --set "governor=menu,$other" --repeat 3 --format json -o "$OUT" -- \
		cyclictest --laptop -q -t 1 -i 1000 -l 300
	[ "$status" -eq 0 ]
	[ "$(cat "$CPUIDLE/current_governor")" = "$SAVED_GOVERNOR" ]
	jq -e --arg o "governor=$other" '.variants == ["governor=menu", $o] and .repeat == 3' "$OUT"
	jq -e '.metrics[] | select(.metric == "duration_ns") | .variants | all(.n == 3) and
		(.[1].vs_first | has("significant"))' "$OUT"
	# interleaved: the runs alternate menu, OTHER, menu, ...
	[ "$(echo "$output" | grep -o 'governor=[a-z]*' | head -4 | paste -sd' ')" = \
		"governor=menu governor=$other governor=menu governor=$other" ]
}

# bats test_tags=oracle
@test "ab killed mid-run (SIGTERM) restores the governor" {
	require_cpuidle_driver
	grep -qw menu "$CPUIDLE/available_governors" || skip "needs the menu governor"
	local other=menu
	[ "$SAVED_GOVERNOR" = menu ] && other=ladder
	"$IDLESCOPE" ab --set "governor=$other" --repeat 20 -d 1 > /dev/null 2>&1 &
	local pid=$!
	sleep 1.5
	[ "$(cat "$CPUIDLE/current_governor")" = "$other" ]
	kill -TERM "$pid"
	wait "$pid" || true
	[ "$(cat "$CPUIDLE/current_governor")" = "$SAVED_GOVERNOR" ]
}

# bats test_tags=oracle
@test "ab: a failing run still restores; bad --set is a usage error" {
	require_cpuidle_driver
	local other=menu
	[ "$SAVED_GOVERNOR" = menu ] && other=ladder
	run "$IDLESCOPE" ab --set "governor=$other" --repeat 1 -- /nonexistent/cmd
	[ "$status" -eq 1 ]
	[ "$(cat "$CPUIDLE/current_governor")" = "$SAVED_GOVERNOR" ]
	run "$IDLESCOPE" ab --set governor=bogus -d 1
	[ "$status" -eq 2 ]
	[[ "$output" == *"governor 'bogus' is not available"* ]]
	run "$IDLESCOPE" ab --set no.such.sysctl=1,2 -d 1
	[ "$status" -eq 2 ]
	run "$IDLESCOPE" ab --set state9.disable=0,1 -d 1
	[ "$status" -eq 2 ]
	run "$IDLESCOPE" ab --set governor=menu
	[ "$status" -eq 2 ]
	[[ "$output" == *"need -d SECONDS, -- COMMAND or --workload"* ]]
}

# bats test_tags=oracle
@test "ab stateN.disable: every CPU's flag set per variant and restored" {
	require_cpuidle_driver
	[ -e /sys/devices/system/cpu/cpu0/cpuidle/state1/disable ] || skip "no state1"
	local before name
	before=$(cat /sys/devices/system/cpu/cpu*/cpuidle/state1/disable | paste -sd' ')
	# the state it disables, by the name sysfs gives it (POLL is state 0 on
	# x86 drivers only; psci has none; haltpoll's state 1 has a space)
	name=$(cat /sys/devices/system/cpu/cpu0/cpuidle/state1/name)
	run "$IDLESCOPE" ab --set state1.disable=1,0 --repeat 1 --metric "state[$name].entries" \
		--format json -o "$OUT" -- cyclictest --laptop -q -t 1 -i 1000 -l 300
	[ "$status" -eq 0 ]
	[ "$(cat /sys/devices/system/cpu/cpu*/cpuidle/state1/disable | paste -sd' ')" = "$before" ]
	jq -e --arg m "state[$name].entries" '.variants == ["state1.disable=1", "state1.disable=0"] and
		.metrics[0].metric == $m and (.metrics[0].variants | length == 2)' "$OUT"
	# disabled on every CPU before the run, the state is entered nowhere in
	# it (menu, teo and ladder skip a disabled state): at most the periods
	# already in it when the flag was written end in the window, one per CPU.
	# The haltpoll governor never reads the flags (haltpoll_select picks POLL
	# or state 1): there ab warns that the variant changes nothing, and the
	# state is still entered (seen in the haltpoll guest before the warning).
	if [ "$(cat /sys/devices/system/cpu/cpuidle/current_governor_ro)" = haltpoll ]; then
		jq -e '.warnings | length == 1 and (.[0] | contains("haltpoll governor changes nothing"))' "$OUT"
		[[ "$output" == *"idlescope: warning: state1.disable under the haltpoll governor"* ]]
		jq -e '.metrics[0].variants[0] | .n == 1 and .runs[0] > 0' "$OUT"
	else
		jq -e '.warnings == []' "$OUT"
		jq -e --argjson cpus "$(getconf _NPROCESSORS_ONLN)" \
			'.metrics[0].variants[0] | .n == 1 and .runs[0] <= $cpus' "$OUT"
	fi
}

# bats test_tags=oracle
@test "ab: a run that writes no summary fails instead of reusing the last one" {
	require_cpuidle_driver
	local once="$BATS_TEST_TMPDIR/once.sh"
	# the command removes itself: the second run cannot start it at all
	printf '#!/bin/sh\nrm -f "$0"\n' > "$once"
	chmod +x "$once"
	run "$IDLESCOPE" ab --set governor="$SAVED_GOVERNOR" --repeat 2 -- "$once"
	[ "$status" -eq 1 ]
	[[ "$output" == *"run 2 ("*") failed"* ]]
}

# The kernel's aggregate PM QoS CPU latency (a read of /dev/cpu_dma_latency)
# is the oracle: each run sees the value its variant holds, and none after.
@test "ab cpu_dma_latency=none,VALUE: each run under its request, dropped after" {
	local log="$BATS_TEST_TMPDIR/qos.log" before
	before=$(od -An -td4 /dev/cpu_dma_latency | tr -d ' ')
	cat > "$BATS_TEST_TMPDIR/qos.sh" <<EOS
#!/bin/sh
od -An -td4 /dev/cpu_dma_latency | tr -d ' ' >> "$log"
EOS
	chmod +x "$BATS_TEST_TMPDIR/qos.sh"
	run "$IDLESCOPE" ab --set cpu_dma_latency=none,17 --repeat 2 -- "$BATS_TEST_TMPDIR/qos.sh"
	[ "$status" -eq 0 ]
	# none: whatever the machine had (no other holder: its default)
	diff "$log" <(printf '%s\n' "$before" 17 "$before" 17)
	[ "$(od -An -td4 /dev/cpu_dma_latency | tr -d ' ')" = "$before" ]
	run "$IDLESCOPE" ab --set cpu_dma_latency=none,-1 -d 1
	[ "$status" -eq 2 ]
	[[ "$output" == *"cpu_dma_latency takes 'none' or microseconds"* ]]
}

# A sweep: every variant under each workload, interleaved (round, workload,
# variant); the governor each run sees is the oracle of the order (the
# governor file exists without a cpuidle driver too; PM QoS is no oracle
# here, other users of the machine hold requests of their own),
# cyclictest's own printed Avg of its figure, and the settings come back.
@test "ab --workload: one table per workload, the workload's own figure, restored" {
	local log="$BATS_TEST_TMPDIR/gov.log" out="$BATS_TEST_TMPDIR/sweep.json"
	local qos="$BATS_TEST_TMPDIR/gov.sh" g
	for g in menu ladder; do
		grep -qw "$g" "$CPUIDLE/available_governors" || skip "needs the menu and ladder governors"
	done
	printf '#!/bin/sh\ncat %s/current_governor >> %s\nsleep 0.2\n' "$CPUIDLE" "$log" >"$qos"
	chmod +x "$qos"
	run --separate-stderr "$IDLESCOPE" ab --set governor=menu,ladder --repeat 2 \
		--workload "qos=$qos" --workload "cyc=cyclictest --laptop -q -t1 -i 1000 -l 200" \
		--format json -o "$out"
	[ "$status" -eq 0 ]
	[ "$(cat "$CPUIDLE/current_governor")" = "$SAVED_GOVERNOR" ]
	diff "$log" <(printf '%s\n' menu ladder menu ladder)
	[ "$(grep -c '^idlescope ab: run [0-9]/8, governor=[a-z]*, \(qos\|cyc\)$' <<<"$stderr")" -eq 8 ]
	jq -e '.schema == "idlescope-ab-sweep/1" and [.workloads[].name] == ["qos", "cyc"] and
	       (.workloads[1].command | startswith("cyclictest"))' "$out"
	# cyclictest's lines, passed through in run order: each Avg (us) is its run's figure
	grep -oE 'Avg: *[0-9]+' <<<"$output" | awk '{ print $2 * 1000 }' >"$BATS_TEST_TMPDIR/printed"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/printed")" -eq 4 ]
	jq -r '.workloads[1].ab.metrics[] | select(.metric == "workload.latency_avg_ns") | .variants |
	       [.[0].runs[0], .[1].runs[0], .[0].runs[1], .[1].runs[1]][]' "$out" >"$BATS_TEST_TMPDIR/reported"
	diff "$BATS_TEST_TMPDIR/printed" "$BATS_TEST_TMPDIR/reported"
	# the qos script prints none, and every run has its summary's metrics
	jq -e '.workloads[0].ab.metrics[] | select(.metric == "workload.latency_avg_ns") |
	       .variants | all(.n == 0)' "$out"
	jq -e '[.workloads[].ab.metrics[] | select(.metric == "total.entries") | .variants[].n] == [2, 2, 2, 2]' "$out"

	# the table: a section per workload in compare's layout; the figures only
	# where the workload printed them, their mean that of cyclictest's Avg
	: >"$log"
	local runs="$BATS_TEST_TMPDIR/runs"
	mkdir "$runs"
	run --separate-stderr "$IDLESCOPE" ab --set governor=menu,ladder --repeat 2 \
		--workload "qos=$qos" --workload "cyc=cyclictest --laptop -q -t1 -i 1000 -l 200" \
		--save-runs "$runs"
	[ "$status" -eq 0 ]
	[ "$(ls "$runs" | wc -l)" -eq 8 ]
	# the saved runs through compare (runs per variant split by --): the
	# same cells as ab's table of that workload, line for line
	"$IDLESCOPE" compare "$runs"/cyc-governor=menu-*.json -- \
		"$runs"/cyc-governor=ladder-*.json >"$BATS_TEST_TMPDIR/compare.txt"
	awk '/^Idle states/ { on = 1; next } on && /^$/ { exit } on && /^  / { $1 = $2 = $3 = ""; print; next } on' \
		"$BATS_TEST_TMPDIR/compare.txt" >"$BATS_TEST_TMPDIR/c.cells"
	sed -n '/^=== workload cyc/,$p' <<<"$output" |
		awk '/^Idle states/ { on = 1; next } on && /^$/ { exit } on && /^  / { $1 = ""; print; next } on' \
		>"$BATS_TEST_TMPDIR/a.cells"
	[ -s "$BATS_TEST_TMPDIR/a.cells" ]
	diff <(tr -s ' ' <"$BATS_TEST_TMPDIR/a.cells" | sed 's/^ //') <(tr -s ' ' <"$BATS_TEST_TMPDIR/c.cells" | sed 's/^ //')
	echo "$output"
	[ "$(grep -c '^=== workload ' <<<"$output")" -eq 2 ]
	[ "$(grep -c '^all CPUs: ' <<<"$output")" -ge 2 ]
	[ "$(grep -c "^The workload's own figures" <<<"$output")" -eq 1 ]
	sed -n '/^=== workload cyc/,$p' <<<"$output" | grep -q "^The workload's own figures"
	local want got
	want=$(grep -oE 'Avg: *[0-9]+' <<<"$output" | awk '{ print $2 }' | awk 'NR % 2 == 1 { s += $1; n++ } END { print s / n * 1000 }')
	got=$(awk '/^The workload.s own figures/ { on = 1 } on && /^  governor=menu/ { print $2; exit }' <<<"$output")
	echo "latency avg: table $got, cyclictest $want ns"
	awk -v g="$got" -v w="$want" 'BEGIN {
		m = 1; if (g ~ /us$/) m = 1e3; else if (g ~ /ms$/) m = 1e6; else if (g ~ /ns$/) m = 1
		sub(/[a-z]+$/, "", g); d = g * m - w; if (d < 0) d = -d
		exit !(d <= 0.005 * w + 0.5) }'
	[ "$(cat "$CPUIDLE/current_governor")" = "$SAVED_GOVERNOR" ]
	# --workload needs NAME=COMMAND, and takes no -- COMMAND beside it
	run "$IDLESCOPE" ab --set governor=menu,ladder --workload cyc
	[ "$status" -eq 2 ]
	run "$IDLESCOPE" ab --set governor=menu,ladder --workload a=true -- true
	[ "$status" -eq 2 ]
	run "$IDLESCOPE" ab --set governor=menu,ladder --workload a=true --save-runs /nonexistent
	[ "$status" -eq 1 ]
	[[ "$output" == "idlescope: --save-runs: cannot write in '/nonexistent'"* ]]
}

# The page (-o NAME.html): report's comparison per workload, from the same
# runs. Oracles: sysbench's own printed "avg:" of each run, rt-app's logs
# as printed (awk), the saved runs' summaries read with jq; chromium (with
# playwright-core) for the units, a sort and the console.
@test "ab -o page.html: a section per workload, sysbench's and rt-app's figures, --per-cpu" {
	local g d=$BATS_TEST_TMPDIR
	for g in menu ladder; do
		grep -qw "$g" "$CPUIDLE/available_governors" || skip "needs the menu and ladder governors"
	done
	command -v sysbench >/dev/null && command -v rt-app >/dev/null || skip "needs sysbench and rt-app (sudo make deps)"
	mkdir "$d/runs" "$d/rtlog"
	cat >"$d/rt.json" <<EOS
{ "tasks": { "t0": { "run": 1000, "timer": { "ref": "a", "period": 5000 } },
             "t1": { "run": 500, "timer": { "ref": "b", "period": 3000 } } },
  "global": { "duration": 1, "calibration": "CPU0", "default_policy": "SCHED_OTHER",
              "logdir": "$d/rtlog", "log_basename": "rt", "log_size": 16 } }
EOS
	run --separate-stderr "$IDLESCOPE" ab --set governor=menu,ladder --repeat 2 --per-cpu \
		--workload "sb=sysbench cpu --events=300 --time=0 run" \
		--workload "rt=rm -f $d/rtlog/*.log; rt-app $d/rt.json 2>/dev/null && cat $d/rtlog/*.log" \
		--save-runs "$d/runs" -o "$d/page.html"
	echo "$stderr" | tail -3
	[ "$status" -eq 0 ]
	[ "$(cat "$CPUIDLE/current_governor")" = "$SAVED_GOVERNOR" ]
	local h=$d/page.html
	grep -q '<section class="workload" id="w0">' "$h"
	grep -qF '<h2>workload rt: <code>rm -f' "$h"
	sed -n 's/^<script type="application\/json" id="ab-json">\(.*\)<\/script>$/\1/p' "$h" >"$d/ab.json"
	jq -e '.schema == "idlescope-ab-sweep/1" and [.workloads[].name] == ["sb", "rt"]' "$d/ab.json"
	# sysbench: each run's printed avg (ms), in run order, is its figure
	awk '/^Latency \(ms\):/ { on = 1; next } on && /avg:/ { print $2 * 1e6; on = 0 }' <<<"$output" >"$d/printed"
	[ "$(wc -l <"$d/printed")" -eq 4 ]
	jq -r '.workloads[0].ab.metrics[] | select(.metric == "workload.latency_avg_ns") | .variants |
	       [.[0].runs[0], .[1].runs[0], .[0].runs[1], .[1].runs[1]][]' "$d/ab.json" |
		paste - "$d/printed" | awk '{ d = $1 - $2; if (d < 0) d = -d; if (d > 1e-6 * $2) { print "bad", $0; exit 1 } }'
	# and the page's cell is their mean (A: the menu runs)
	local want
	want=$(sed -n '1p;3p' "$d/printed" | awk '{ s += $1 } END { print s / 2 }')
	grep -oE 'data-i="0" data-e="workload" data-s="" data-c="latency avg" data-v="[^"]*"' "$h" | head -1 |
		sed -E 's/.*data-v="([^"]*)"/\1/' | awk -v w="$want" '{ d = $1 - w; if (d < 0) d = -d; exit !(d <= 1e-6 * w) }'
	# rt-app: the largest wu_lat and the smallest slack of every period printed (us)
	awk '/^#idx/ { on = 1; next } on && NF == 11 && $1 ~ /^[0-9]+$/ {
		if (!n || $11 > m) m = $11; if (!n || $8 < s) s = $8; n++ }
		END { print m * 1000, s * 1000, n }' <<<"$output" >"$d/rt.want"
	jq -r '.workloads[1].ab.metrics[] | select(.metric == "workload.latency_max_ns" or .metric == "workload.slack_min_ns") |
	       [.variants[].runs[]] | (max, min)' "$d/ab.json" | sed -n '1p;4p' | paste -sd' ' >"$d/rt.got"
	echo "rt-app: printed $(cat "$d/rt.want"), ab $(cat "$d/rt.got")"
	[ "$(cut -d' ' -f3 "$d/rt.want")" -gt 100 ]
	[ "$(cut -d' ' -f1,2 "$d/rt.want")" = "$(cat "$d/rt.got")" ]
	# the states: A's time of all CPUs per state, the mean of the menu runs' summaries
	local st mean got
	for st in $(jq -r '.totals.states[].name' "$d/runs/sb-governor=menu-1.json" | tr ' ' '_'); do
		mean=$(jq -s --arg s "${st//_/ }" '[.[].totals.states[] | select(.name == $s) | .time_ns] | add / length' \
			"$d"/runs/sb-governor=menu-*.json)
		got=$(grep -oE "data-i=\"0\" data-e=\"all CPUs\" data-s=\"${st//_/ }\" data-c=\"time\" data-v=\"[^\"]*\"" "$h" | head -1 |
			sed -E 's/.*data-v="([^"]*)"/\1/')
		echo "$st: page $got, runs $mean"
		[ "$got" = null ] || jq -en --argjson g "$got" --argjson m "$mean" '($g - $m) | fabs <= 1e-6 * $m + 1e-6'
	done
	# --per-cpu: a row per CPU after the groups
	grep -q 'data-e="cpu 0"' "$h"
	# chromium: units, a click sorts, no console message
	if command -v node >/dev/null && [ -f "$BATS_TEST_DIRNAME/../browser/node_modules/playwright-core/package.json" ]; then
		run timeout 120 node "$BATS_TEST_DIRNAME/../browser/sort_check.js" "$h" w0-cv-states "$d/ab.png"
		echo "$output"
		[ "$status" -eq 0 ]
	fi
	# one command (no --workload): one section, ab's own JSON embedded
	run "$IDLESCOPE" ab --set governor=menu,ladder -o "$d/c.html" -- sleep 0.2
	[ "$status" -eq 0 ]
	[ "$(cat "$CPUIDLE/current_governor")" = "$SAVED_GOVERNOR" ]
	[ "$(grep -c '<section class="workload"' "$d/c.html")" -eq 1 ]
	sed -n 's/^<script type="application\/json" id="ab-json">\(.*\)<\/script>$/\1/p' "$d/c.html" |
		jq -e '.schema == "idlescope-ab/1" and (.variants | length) == 2'
	# --html and -o naming two files, --html with --format json, --per-cpu without a table
	run "$IDLESCOPE" ab --set governor=menu,ladder --html "$d/a.html" -o "$d/b.html" -d 1
	[ "$status" -eq 2 ]
	run "$IDLESCOPE" ab --set governor=menu,ladder --html "$d/a.html" --format json -d 1
	[ "$status" -eq 2 ]
	run "$IDLESCOPE" ab --set governor=menu,ladder --per-cpu -d 1
	[ "$status" -eq 2 ]
	[[ "$output" == *"--per-cpu is for compare's tables"* ]]
}
