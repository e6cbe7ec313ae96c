#!/usr/bin/env bats
# `idlescope compare`: deltas computed from the files' own numbers, matching
# by name, and bad inputs (truncated, other schema, mismatched topology).

bats_require_minimum_version 1.5.0
load helpers

setup() {
	A="$BATS_TEST_TMPDIR/a.json"
	B="$BATS_TEST_TMPDIR/b.json"
	"$IDLESCOPE" record -d 0.5 --format json -o "$A"
	"$IDLESCOPE" record -d 0.5 --format json -o "$B"
}

@test "compare: deltas are OTHER - BASE of the files' values, in every format" {
	run "$IDLESCOPE" compare "$A" "$B" --format json
	[ "$status" -eq 0 ]
	local a b
	a=$(jq .totals.entries "$A")
	b=$(jq .totals.entries "$B")
	echo "$output" | jq -e --argjson a "$a" --argjson b "$b" '
		.rows[] | select(.metric == "total.entries") |
		.values == [$a, $b] and .delta[1] == ($b - $a) and .delta[0] == 0'
	run "$IDLESCOPE" compare "$A" "$B" --format csv
	[ "$status" -eq 0 ]
	echo "$output" | grep -q "^total.entries,$a,$b,$((b - a)),"
	run "$IDLESCOPE" compare "$A" "$B" --all
	[ "$status" -eq 0 ]
	[[ "$output" == *"total.idle_share"* ]]
	# each of this machine's states has its row, with the base file's value:
	# the names from sysfs (without a driver, the one state record reports);
	# a row's name may hold spaces (haltpoll idle), so it is matched whole
	local names name want got
	if [ -d /sys/devices/system/cpu/cpu0/cpuidle ]; then
		names=$(cat /sys/devices/system/cpu/cpu0/cpuidle/state[0-9]*/name)
	else
		names=$(jq -r '.totals.states[].name' "$A")
	fi
	[ -n "$names" ]
	while IFS= read -r name; do
		want=$(jq --arg n "$name" '.totals.states[] | select(.name == $n) | .p99_ns' "$A")
		got=$(awk -v m="total.state[$name].p99_ns" 'substr($0, 1, length(m) + 1) == m " " {
			$0 = substr($0, length(m) + 1); print $1 }' <<<"$output")
		echo "$name: p99 $got, file $want"
		[ -n "$want" ]
		[ "$got" = "$want" ]
	done <<<"$names"
}

@test "compare: three files, base first" {
	run "$IDLESCOPE" compare "$A" "$B" "$A" --format json
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.files | length == 3'
	echo "$output" | jq -e '[.rows[] | .delta[2]] | all(. == 0)'
}

@test "compare: mismatched topology lists what could not be matched" {
	local c="$BATS_TEST_TMPDIR/c.json"
	"$IDLESCOPE" record -d 0.5 --topology custom:0-1 --format json -o "$c"
	run "$IDLESCOPE" compare "$A" "$c" --all
	[ "$status" -eq 0 ]
	[[ "$output" == *"Unmatched: only in $c"*"group[custom0]"* ]]
	# the readable table: the group only one file has, its rows "-" in the other
	run "$IDLESCOPE" compare "$A" "$c"
	[ "$status" -eq 0 ]
	[[ "$output" == *"custom0: "* ]]
	# fewer CPUs in one file: its missing CPUs are unmatched, not a crash
	jq '.cpus |= .[:1]' "$A" > "$BATS_TEST_TMPDIR/one.json"
	run "$IDLESCOPE" compare "$A" "$BATS_TEST_TMPDIR/one.json" --format json
	[ "$status" -eq 0 ]
	if [ "$(nproc --all)" -ge 2 ]; then
		echo "$output" | jq -e '[.unmatched[] | .entities[]] | index("cpu[1]") != null'
	fi
}

@test "compare: truncated JSON, other schema, missing file: one-line error, exit 1" {
	head -c 300 "$A" > "$BATS_TEST_TMPDIR/trunc.json"
	run "$IDLESCOPE" compare "$A" "$BATS_TEST_TMPDIR/trunc.json"
	[ "$status" -eq 1 ]
	[[ "$output" == "idlescope: $BATS_TEST_TMPDIR/trunc.json: invalid JSON"* ]]
	jq '.schema = "idlescope/2"' "$A" > "$BATS_TEST_TMPDIR/v2.json"
	run "$IDLESCOPE" compare "$A" "$BATS_TEST_TMPDIR/v2.json"
	[ "$status" -eq 1 ]
	[[ "$output" == *"schema 'idlescope/2' is not idlescope/1"* ]]
	run "$IDLESCOPE" compare "$A" /nonexistent.json
	[ "$status" -eq 1 ]
	run "$IDLESCOPE" compare "$A"
	[ "$status" -eq 2 ]
}

@test "compare: reads the summary line of record -i JSON Lines" {
	local l="$BATS_TEST_TMPDIR/lines.json"
	"$IDLESCOPE" record -d 0.6 -i 0.2 --format json -o "$l"
	run "$IDLESCOPE" compare "$A" "$l" --format json
	[ "$status" -eq 0 ]
	echo "$output" | jq -e --argjson d "$(tail -1 "$l" | jq .duration_ns)" \
		'.rows[] | select(.metric == "duration_ns") | .values[1] == $d'
}

TR="$BATS_TEST_DIRNAME/../fixtures/traces"

# The table's state rows as entity, state, file, then the five cells.
table_rows() {
	awk '/^$/ { exit } /^state / { next }
	     /^[^ ]/ { i = index($0, ": "); ent = substr($0, 1, i - 1); st = substr($0, i + 2); next }
	     { print ent "\t" st "\t" $1 "\t" $2 "\t" $3 "\t" $4 "\t" $5 "\t" $6 }'
}

# Each table cell of compare A T (in $BATS_TEST_TMPDIR/cells, table_rows)
# parsed back from its units against the JSON (compare_expected_rows, in
# ea and et): the base's value, the other's difference (points for shares);
# n.a. exactly where that file has no entries; 3 significant digits, so
# within 0.5%. At least MIN cells checked.
cells_match() { # A MIN
	awk -F'\t' -v A="$1" -v MIN="$2" '
	# the value of a cell, and in ulp half its last printed digit (the
	# display rounds to it: 3 significant digits, or 2 decimals of a point)
	function num(s,   m, i) {
		m = 1
		if (s ~ /ns$/) sub(/ns$/, "", s)
		else if (s ~ /us$/) { sub(/us$/, "", s); m = 1e3 }
		else if (s ~ /ms$/) { sub(/ms$/, "", s); m = 1e6 }
		else if (s ~ /s$/) { sub(/s$/, "", s); m = 1e9 }
		else if (s ~ /%$/) { sub(/%$/, "", s); m = 0.01 }
		i = index(s, ".")
		ulp = 0.5 * m * (i ? 10 ^ -(length(s) - i) : 1)
		return (s + 0) * m
	}
	function near(got, want) {
		d = got - want; if (d < 0) d = -d
		w = want < 0 ? -want : want
		return d <= 0.005 * w + 1e-9 || d <= ulp + 1e-12
	}
	FILENAME ~ /ea$/ { ea[$1 FS $2] = $0; next }
	FILENAME ~ /et$/ { et[$1 FS $2] = $0; next }
	{
		key = $1 FS $2; split(ea[key], b, FS); split(et[key], o, FS)
		if (!(key in ea) || !(key in et)) { print "no expected row " key; bad++; next }
		base = ($3 == A)
		entered = base ? b[5] > 0 : o[5] > 0
		for (c = 1; c <= 5; c++) {
			cell = $(3 + c)
			want = base ? b[2 + c] : o[2 + c] - b[2 + c]
			if (!entered) { if (cell != "n.a.") { print key, $3, c, cell, "want n.a."; bad++ }; continue }
			if (cell == "n.a." || !near(num(cell), want)) { print key, $3, c, cell, "want", want; bad++ }
			if (!base && want > 0 && cell !~ /^\+/) { print key, c, cell, "unsigned"; bad++ }
			checked++
		}
	}
	END { print checked, "cells checked"; exit bad > 0 || checked < MIN }
	' "$BATS_TEST_TMPDIR/ea" "$BATS_TEST_TMPDIR/et" "$BATS_TEST_TMPDIR/cells"
}

@test "compare: two replays of a two-cluster trace, every cell the JSON's value" {
	local a="$BATS_TEST_TMPDIR/a.json" t="$BATS_TEST_TMPDIR/t.json"
	"$IDLESCOPE" replay --profile "$TR/arm-2x2.json" "$TR/two-cluster.ftrace" --format json -o "$a"
	"$IDLESCOPE" replay --profile "$TR/arm-2x2.json" "$TR/two-cluster-truncated.ftrace" --format json -o "$t"
	run "$IDLESCOPE" compare "$a" "$t"
	[ "$status" -eq 0 ]
	echo "$output"
	[[ "$output" == *"No repetitions: each side is one run"* ]]
	table_rows <<<"$output" > "$BATS_TEST_TMPDIR/cells"
	compare_expected_rows "$a" > "$BATS_TEST_TMPDIR/ea"
	compare_expected_rows "$t" > "$BATS_TEST_TMPDIR/et"
	# 3 entities (all CPUs, cluster0, cluster1) x 3 states x 2 files
	[ "$(wc -l < "$BATS_TEST_TMPDIR/cells")" -eq 18 ]
	cells_match "$a" 40
	# --per-cpu adds each CPU after the groups
	run "$IDLESCOPE" compare --per-cpu "$a" "$t"
	[ "$status" -eq 0 ]
	[[ "$output" == *"cluster1: CLS_PD"*"cpu 3: CLS_PD"* ]]
	# the wakeup causes of all CPUs: the base's counts
	local irq
	irq=$(jq .totals.wakeups.causes.irq.count "$a")
	awk '/^woken by/ { split($0, h); for (i = 1; i <= NF; i++) if ($i == "irq") col = i - 1 }
	     /^all CPUs$/ { getline; print $col; exit }' <<<"$output" | grep -qx "$irq"
}

# A real trace: the arm64 guest's own ftrace text (tests/vm/capture-trace.sh:
# 4 CPUs in 2 clusters, WFI and two PSCI states, a CPU of each cluster
# waking every 3 and 20 ms), whole against its first half.
@test "compare: two replays of the arm64 guest's real two-cluster trace, every cell the JSON's value" {
	local a="$BATS_TEST_TMPDIR/a.json" t="$BATS_TEST_TMPDIR/t.json" w="$BATS_TEST_TMPDIR/whole.ftrace" n
	zcat "$TR/arm64-guest.ftrace.gz" >"$w"
	n=$(wc -l <"$w")
	head -n $((n / 2)) "$w" >"$BATS_TEST_TMPDIR/half.ftrace"
	"$IDLESCOPE" replay --profile "$TR/arm64-guest.json" "$w" --format json -o "$a"
	"$IDLESCOPE" replay --profile "$TR/arm64-guest.json" "$BATS_TEST_TMPDIR/half.ftrace" --format json -o "$t"
	# two clusters of two CPUs, three states, periods in each cluster's
	# deepest state
	[ "$(jq '.groups.groups | length' "$a")" -ge 2 ]
	[ "$(jq '[.totals.states[].name] | length' "$a")" -eq 3 ]
	run "$IDLESCOPE" compare "$a" "$t"
	[ "$status" -eq 0 ]
	echo "$output"
	table_rows <<<"$output" >"$BATS_TEST_TMPDIR/cells"
	compare_expected_rows "$a" >"$BATS_TEST_TMPDIR/ea"
	compare_expected_rows "$t" >"$BATS_TEST_TMPDIR/et"
	# all CPUs and the two clusters, 3 states, 2 files
	[ "$(wc -l <"$BATS_TEST_TMPDIR/cells")" -eq 18 ]
	cells_match "$a" 40
}

@test "compare: runs per variant (BASE... -- OTHER...): means, intervals, significance" {
	local a="$BATS_TEST_TMPDIR/a.json" t="$BATS_TEST_TMPDIR/t.json" s="$BATS_TEST_TMPDIR/s.json"
	"$IDLESCOPE" replay --profile "$TR/arm-2x2.json" "$TR/two-cluster.ftrace" --format json -o "$a"
	"$IDLESCOPE" replay --profile "$TR/arm-2x2.json" "$TR/two-cluster-shuffled.ftrace" --format json -o "$s"
	"$IDLESCOPE" replay --profile "$TR/arm-2x2.json" "$TR/two-cluster-truncated.ftrace" --format json -o "$t"
	# identical runs on each side: no spread, so a difference is significant
	# exactly where the means differ, and the base's interval is 0
	run "$IDLESCOPE" compare "$a" "$s" -- "$t" "$t"
	[ "$status" -eq 0 ]
	echo "$output"
	[[ "$output" == *"$a (2 runs)"* && "$output" == *"$t (2 runs)"* ]]
	[[ "$output" != *"No repetitions"* ]]
	[[ "$output" == *"* = significant"* ]]
	# all CPUs: CPU_PD 4.90ms in a and s, 2.80ms in t: -2.10ms, significant
	local want
	want=$(jq '[.totals.states[] | select(.name == "CPU_PD") | .time_ns] | .[0]' "$t")
	[ "$want" -eq 2800000 ]
	grep -A2 '^all CPUs: CPU_PD$' <<<"$output" | grep -q "  $a (2 runs) *4.90ms ±0 "
	grep -A2 '^all CPUs: CPU_PD$' <<<"$output" | grep -q "  $t (2 runs) *-2.10ms ±0\* "
	# WFI time is the same on both sides: no mark
	grep -A2 '^all CPUs: WFI$' <<<"$output" | grep -q "  $t (2 runs) *0 ±0 "
	# -- with nothing on one side is a usage error
	run "$IDLESCOPE" compare "$a" --
	[ "$status" -eq 2 ]
	run "$IDLESCOPE" compare -- "$a" "$t"
	[ "$status" -eq 2 ]
	# JSON and CSV stay the flat list, a column per file
	run "$IDLESCOPE" compare "$a" "$s" -- "$t" --format json
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.files | length == 3'
}
