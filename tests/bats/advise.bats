#!/usr/bin/env bats
# `idlescope advise`: on hand-made summaries of the Armada XP cpuidle table
# before and after its thresholds patch (tests/fixtures/advise), the JSON
# equals answers worked out by hand below; bad inputs give one clear line
# and a non-zero status; the live path works on this machine.
#
# The fixtures hold, in idlescope's quarter-octave buckets [lo, hi) ns:
#   CPU 0: WFI 10 in [49152, 57344) (~50us); MV CPU IDLE (power-down, PD)
#          4 in [65536, 81920) (~70us) and 6 in [458752, 524288) (~500us);
#          MV CPU DEEP IDLE (deep) 2 in [786432, 917504) (~800us) and 8 in
#          [12582912, 14680064) (~13ms)
#   CPU 1: WFI 5 in [229376, 262144) (~240us) and 2 in [2097152, 2621440)
#          (~2.2ms); PD 3 in [4194304, 5242880) (~4.5ms); deep 4 in
#          [41943040, 50331648) (~45ms)
# No bucket straddles a threshold below, so the counts are exact.
# before: WFI exit 1us/target 1us, PD 10us/100us, deep 100us/1000us.
# after:  WFI 1us/1us,             PD 100us/1000us, deep 1000us/10000us.

bats_require_minimum_version 1.5.0
load helpers

FIX=$BATS_TEST_DIRNAME/../fixtures/advise

adv() { # jq filter, then advise arguments
	local f=$1
	shift
	run --separate-stderr "$IDLESCOPE" advise --format json "$@"
	[ "$status" -eq 0 ]
	echo "$output" | jq -e "$f"
}

@test "advise: before the patch, shares and proposals equal the hand computation" {
	# WFI below (r - 1us >= 100us): 240us (5) + 2.2ms (2) = 7 of 17.
	# PD above (r < 100us): 70us (4); below (r - 10us >= 1000us): 4.5ms (3); of 13.
	# deep above (r < 1000us): 800us (2) of 14.
	# PD: misses(T) = PD periods < T + WFI periods >= T + 1000ns:
	#   17 up to 48152, falls to 7 by 56344, 7 to 65536, rises to 11 by 81920,
	#   11 to 228376, falls to 6 by 261144, 6 up to 458752, then 12 and more:
	#   minimum 6 on [261144, 458752], closest to 100000: 261144 (misses at
	#   100us: 4 + 7 = 11). Its bucket [229376, 262144) is 32768 wide.
	# deep: misses(T) = deep < T + PD periods >= max(100000, T + 10000):
	#   9 up to 448752, falls to 3 by 514288, 3 to 786432, rises to 5 by 917504,
	#   5 to 4184304, falls to 2 by 5232880, 2 up to 12582912: proposal
	#   5232880 (misses at 1000us: 2 + 3 = 5), bucket [4194304, 5242880).
	# All proposals at once: WFI below r >= 262144: 2; PD above r < 261144: 4;
	#   PD below r >= 5242880: 0; deep above r < 5232880: 2: 8 (now 16).
	adv '.schema == "idlescope-advise/1" and (.tables | length) == 1 and
	     .tables[0].cpus == "0-1" and .tables[0].periods == 44' "$FIX/armada-xp-before.json"
	echo "$output" | jq -e '.tables[0].states as $s |
	     ([$s[] | [.entries, .above, .below]] == [[17, 0, 7], [13, 4, 3], [14, 2, 0]]) and
	     ([$s[] | [.model_above, .model_below]] == [[0, 7], [4, 3], [2, 0]]) and
	     ($s[0].below_share == 7 / 17) and ($s[1].above_share == 4 / 13) and
	     ($s[1].below_share == 3 / 13) and ($s[2].above_share == 2 / 14) and
	     ($s[0].proposed_target_residency_ns == null) and ($s[0].shallower == null) and
	     ($s[1].shallower == "WFI") and ($s[2].shallower == "MV CPU IDLE") and
	     ([$s[1], $s[2]] | map([.proposed_target_residency_ns, .resolution_ns,
	                            .misses_current, .misses_proposed])
	       == [[261144, 32768, 11, 6], [5232880, 1048576, 5, 2]]) and
	     .tables[0].misses == {"current": 16, "proposed": 8}'
}

@test "advise: after the patch, shares and proposals equal the hand computation" {
	# WFI below (r - 1us >= 1000us): 2.2ms (2). PD above (r < 1000us): 70us (4)
	# + 500us (6) = 10; below (r - 100us >= 10ms): 0. deep above (r < 10ms): 2.
	# PD: the same misses(T) as before (WFI unchanged): minimum 6 on
	#   [261144, 458752], closest to 1000000: 458752 (at 1000us: 10 + 2 = 12).
	# deep: PD below counts r >= max(1000000, T + 100000): 3 up to 786432, 5
	#   from 917504 to 4094304, falls to 2 by 5142880, 2 up to 12582912: the
	#   current 10000000 is a minimiser and stays (2 -> 2).
	# All at once: WFI 2 + PD above 4 + deep above 2 = 8 (now 2 + 10 + 2 = 14).
	adv '.tables[0].states as $s |
	     ([$s[] | [.above, .below]] == [[0, 2], [10, 0], [2, 0]]) and
	     ([$s[] | [.model_above, .model_below]] == [[0, 2], [10, 0], [2, 0]]) and
	     ($s[1].above_share == 10 / 13) and ($s[0].below_share == 2 / 17) and
	     ([$s[1], $s[2]] | map([.proposed_target_residency_ns, .misses_current, .misses_proposed])
	       == [[458752, 12, 6], [10000000, 2, 2]]) and
	     .tables[0].misses == {"current": 14, "proposed": 8}' "$FIX/armada-xp-after.json"
}

@test "advise: break-even and energies from an idlestat energy model" {
	# armada-xp.em: WFI 100 units, tr 0; PD 20, tr 8000 unit-us; deep 5, 23000.
	# Break-even PD vs WFI: (8000 - 0) / (100 - 20) = 100us; deep vs PD:
	# (23000 - 8000) / (20 - 5) = 1000us.
	# Energy = sum of count x (tr x 1e-6 + P x mean x 1e-9), mean = (lo+hi-1)/2:
	# measured (the chosen states):
	#   WFI 100e-9 x (10 x 53247.5 + 5 x 245759.5 + 2 x 2359295.5) = 0.64798635
	#   PD 13 x 0.008 + 20e-9 x (4 x 73727.5 + 6 x 491519.5 + 3 x 4718591.5)
	#      = 0.104 + 0.34799603
	#   deep 14 x 0.023 + 5e-9 x (2 x 851967.5 + 8 x 13631487.5 + 4 x 46137343.5)
	#      = 0.322 + 1.476526045;  total 2.898508425
	# before, perfect prediction at 1us/100us/1000us: < 100us WFI (10 x 50us,
	#   4 x 70us) = 0.0827385; [100us, 1ms) PD (5 x 240us, 6 x 500us, 2 x 800us)
	#   = 0.104 + 0.11763699; >= 1ms deep (2 x 2.2ms, 3 x 4.5ms, 8 x 13ms,
	#   4 x 45ms) = 0.391 + 1.5623781975; total 2.2577536875. The break-even
	#   thresholds are the same values: the same energy.
	# after, at 1us/1ms/10ms: < 1ms WFI = 0.67092345; [1ms, 10ms) PD (2 x 2.2ms,
	#   3 x 4.5ms) = 0.04 + 0.37748731; >= 10ms deep (8 x 13ms, 4 x 45ms)
	#   = 0.276 + 1.46800637; total 2.83241713.
	near='def near($x): (. - $x) | fabs < 1e-9;'
	adv "$near"'.energy_model.format == "idlestat" and .tables[0] as $t |
	     ([$t.states[] | .break_even] == [null, "at", "at"]) and
	     ($t.states[1].break_even_ns | near(100000)) and
	     ($t.states[2].break_even_ns | near(1000000)) and
	     ([$t.states[] | .power] == [100, 20, 5]) and
	     ($t.energy.measured | near(2.898508425)) and
	     ($t.energy.current_thresholds | near(2.2577536875)) and
	     ($t.energy.break_even_thresholds | near(2.2577536875)) and
	     ($t.energy.proposed_thresholds | type == "number")' \
		"$FIX/armada-xp-before.json" --energy-model "$FIX/armada-xp.em"
	adv "$near"'.tables[0].energy as $e |
	     ($e.measured | near(2.898508425)) and ($e.current_thresholds | near(2.83241713)) and
	     ($e.break_even_thresholds | near(2.2577536875))' \
		"$FIX/armada-xp-after.json" --energy-model "$FIX/armada-xp.em"
	# the table says the same and states its assumptions
	run "$IDLESCOPE" advise "$FIX/armada-xp-before.json" --energy-model "$FIX/armada-xp.em"
	[ "$status" -eq 0 ]
	[[ "$output" == *"measured 2.89851; perfect prediction at the current thresholds 2.25775"* ]]
	[[ "$output" == *"Assumptions:"*"tr(k) + P(k) r"* ]]
}

@test "advise: the fixture energy model is valid for idlestat 0.8 itself" {
	command -v idlestat >/dev/null || skip "idlestat not installed"
	run idlestat --import -f /dev/null -e "$FIX/armada-xp.em"
	[[ "$output" == *"Parsed energy model file successfully"* ]]
}

@test "advise: --exit-latency measured and -C on a file" {
	# CPU 0's WFI timer lateness: 4 periods in [2048, 2560), min 2100, max
	# 2500: median as record's percentiles, the bucket clamped to
	# [2100, 2501): 2100 + round(2/4 x 400) = 2300. With it as WFI's exit
	# latency the WFI population moves down by 2300 - 1000: the minimum of
	# PD's misses(T) starts at 262144 - 2300 = 259844 (instead of 261144).
	adv '.exit_latency == "measured" and .tables[0].states[0].measured_exit_latency_ns == 2300 and
	     .tables[0].states[0].timer_lateness_count == 4 and
	     .tables[0].states[1].proposed_target_residency_ns == 259844' \
		"$FIX/armada-xp-before.json" --exit-latency measured
	# CPU 1 alone: WFI 5 x 240us, 2 x 2.2ms; PD 3 x 4.5ms. PD's misses(T):
	# 7 up to 228376, 2 from 261144, 0 from 2620440 up to 4194304: 2620440.
	adv '.tables[0].cpus == "1" and .tables[0].periods == 14 and
	     .tables[0].states[1].proposed_target_residency_ns == 2620440 and
	     .tables[0].states[1].misses_proposed == 0' "$FIX/armada-xp-before.json" -C 1
}

@test "advise: a state missing from the energy model leaves energy out, saying why" {
	em="$BATS_TEST_TMPDIR/two.em"
	grep -v '^MV-CPU-DEEP-IDLE' "$FIX/armada-xp.em" | sed 's/3 C states/2 C states/' > "$em"
	adv '.tables[0].energy == null and
	     .tables[0].energy_note == "the energy model has no C-state named '"'MV CPU DEEP IDLE'"'" and
	     .tables[0].states[2].break_even == "unknown"' "$FIX/armada-xp-before.json" --energy-model "$em"
}

@test "advise: bad energy model, wrong schema, broken histogram: one line, exit 1" {
	em="$BATS_TEST_TMPDIR/bad.em"
	sed 's/^MV-CPU-IDLE.*/MV-CPU-IDLE 0 twenty/' "$FIX/armada-xp.em" > "$em"
	run "$IDLESCOPE" advise "$FIX/armada-xp-before.json" --energy-model "$em"
	[ "$status" -eq 1 ]
	[ "$output" = "idlescope: $em: line 20: core power 'twenty' is not a number >= 0" ]
	run "$IDLESCOPE" advise "$FIX/armada-xp-before.json" --energy-model "$BATS_TEST_TMPDIR/none.em"
	[ "$status" -eq 1 ]
	[[ "$output" == "idlescope: cannot read energy model '$BATS_TEST_TMPDIR/none.em': No such file or directory" ]]

	jq '.schema = "idlescope-hist/1"' "$FIX/armada-xp-before.json" > "$BATS_TEST_TMPDIR/h.json"
	run "$IDLESCOPE" advise "$BATS_TEST_TMPDIR/h.json"
	[ "$status" -eq 1 ]
	[[ "$output" == "idlescope: $BATS_TEST_TMPDIR/h.json: schema 'idlescope-hist/1' is not idlescope/1"* ]]

	jq '.cpus[1].states[2].hist[0].hi_ns = 1' "$FIX/armada-xp-before.json" > "$BATS_TEST_TMPDIR/b.json"
	run "$IDLESCOPE" advise "$BATS_TEST_TMPDIR/b.json"
	[ "$status" -eq 1 ]
	[ "$output" = "idlescope: $BATS_TEST_TMPDIR/b.json: cpus[1].states[2].hist[0]: hi_ns 1 is not above lo_ns 41943040" ]

	jq 'del(.cpus[0].states[1].hist)' "$FIX/armada-xp-before.json" > "$BATS_TEST_TMPDIR/n.json"
	run "$IDLESCOPE" advise "$BATS_TEST_TMPDIR/n.json"
	[ "$status" -eq 1 ]
	[[ "$output" == *"cpus[0].states[1].hist: missing or not an array"* ]]

	jq '.cpus[0].states[0].hist = [range(5000) | {lo_ns: (. * 2), hi_ns: (. * 2 + 1), count: 1}]' \
		"$FIX/armada-xp-before.json" > "$BATS_TEST_TMPDIR/m.json"
	run "$IDLESCOPE" advise "$BATS_TEST_TMPDIR/m.json"
	[ "$status" -eq 1 ]
	[[ "$output" == *"state 'WFI' hist: 5002 buckets, more than 4096" ]]

	printf '{"schema": "idlescope/1", "cpus": [' > "$BATS_TEST_TMPDIR/t.json"
	run "$IDLESCOPE" advise "$BATS_TEST_TMPDIR/t.json"
	[ "$status" -eq 1 ]
	[[ "$output" == "idlescope: $BATS_TEST_TMPDIR/t.json: invalid JSON"* ]]
}

@test "advise: usage errors exit 2" {
	run "$IDLESCOPE" advise "$FIX/armada-xp-before.json" --format csv
	[ "$status" -eq 2 ]
	[[ "$output" == *"unknown format 'csv' (table or json)"* ]]
	run "$IDLESCOPE" advise "$FIX/armada-xp-before.json" -d 1
	[ "$status" -eq 2 ]
	[[ "$output" == *"FILE and -d or COMMAND exclude each other"* ]]
	run "$IDLESCOPE" advise "$FIX/armada-xp-before.json" --exit-latency guessed
	[ "$status" -eq 2 ]
	run "$IDLESCOPE" advise a.json b.json
	[ "$status" -eq 2 ]
	# live: record's own usage error, said once by record
	run "$IDLESCOPE" advise -C 4095 -d 1
	[ "$status" -eq 2 ]
	[[ "$output" == "idlescope: CPU 4095 does not exist"* ]]
}

# bats test_tags=oracle
@test "advise: live -d 2 on this machine" {
	require_cpuidle_driver
	local u0 u1 n
	u0=$(cat /sys/devices/system/cpu/cpu*/cpuidle/state*/usage | awk "{s += \$1} END {print s}")
	adv '.source | startswith("live, ")' -d 2
	u1=$(cat /sys/devices/system/cpu/cpu*/cpuidle/state*/usage | awk "{s += \$1} END {print s}")
	# every online CPU is in a table; the periods are the kernel's idle
	# entries during the window, so no more than sysfs counted around it
	echo "$output" | jq -e --arg cpus "$(cat /sys/devices/system/cpu/online)" \
		'[.tables[].cpus] == [$cpus] and (.tables[0].states | length) > 0 and
		 .duration_ns >= 2000000000'
	n=$(echo "$output" | jq '[.tables[].periods] | add')
	echo "periods $n, sysfs usage delta $((u1 - u0))"
	# (other load may keep the CPUs busy: then both are near 0)
	[ "$n" -le $((u1 - u0 + 4)) ]
	[ "$((u1 - u0))" -lt 100 ] || [ "$n" -gt 0 ]
	# the table form, and a command's own status passes through
	run "$IDLESCOPE" advise -- sh -c 'sleep 0.5; exit 3'
	[ "$status" -eq 3 ]
	[[ "$output" == *"idlescope advise: live, "*"Assumptions:"* ]]
	# even a status that looks like a usage error is the command's
	run --separate-stderr "$IDLESCOPE" advise --format json -- sh -c 'exit 2'
	[ "$status" -eq 2 ]
	echo "$output" | jq -e '.schema == "idlescope-advise/1"'
}

@test "advise: replayed from an ftrace trace of the same periods, the answers are the same" {
	# tests/fixtures/advise/armada-xp.trace holds the fixtures' periods with
	# exact durations inside the same buckets (fixtures README); replay runs
	# them through the BPF handlers with each table, advise reads the result.
	local t
	for t in before after; do
		run "$IDLESCOPE" replay --profile "$FIX/armada-xp-$t.profile.json" "$FIX/armada-xp.trace" \
			--format json -o "$BATS_TEST_TMPDIR/$t.json"
		[ "$status" -eq 0 ]
	done
	adv '.tables[0].states as $s | .tables[0].periods == 44 and
	     ([$s[] | [.entries, .above, .below]] == [[17, 0, 7], [13, 4, 3], [14, 2, 0]]) and
	     ([$s[1], $s[2]] | map([.proposed_target_residency_ns, .misses_current, .misses_proposed])
	       == [[261144, 11, 6], [5232880, 5, 2]]) and
	     .tables[0].misses == {"current": 16, "proposed": 8}' "$BATS_TEST_TMPDIR/before.json"
	near='def near($x): (. - $x) | fabs < 1e-9;'
	adv "$near"'.tables[0] as $t | ([$t.states[] | [.above, .below]] == [[0, 2], [10, 0], [2, 0]]) and
	     ([$t.states[1], $t.states[2]] | map([.proposed_target_residency_ns, .misses_current, .misses_proposed])
	       == [[458752, 12, 6], [10000000, 2, 2]]) and
	     ($t.energy.measured | near(2.898508425)) and ($t.energy.current_thresholds | near(2.83241713))' \
		"$BATS_TEST_TMPDIR/after.json" --energy-model "$FIX/armada-xp.em"
}

# budget.ftrace with acpi-1.json (the trace's header has its periods): one
# CPU, POLL 0 / C1 1 / C2 50 / C3 400 us declared; every lateness of a state
# is one value, so its quantiles lie in that value's bucket: POLL 1 us in
# [960, 1024), C1 10 us in [9216, 10240), C2 80 us in [73728, 81920), C3 has
# 5 samples (< 10): its declared 400 us counts. Window 106.15 ms; C2 holds
# 20 x 2 ms = 40 ms, C3 5 x 10 ms = 50 ms.
#   50us:  C2 (~80 us) and C3 (400) out; PM QoS = C1's declared 1 us (C2's
#          50 and C3's 400 are above it); 25 periods, 90 ms (0.8479 of the
#          window) go shallower; p99 afterwards <= C1's (~10 us)
#   100us: C3 out; QoS 50 us; 5 periods, 50 ms; p99 <= C2's (~80 us)
#   1ms:   nothing out
# C1's median (~10 us) is over 2x its declared 1 us: a warning.
# Ideal states (deepest target <= the period): POLL's 20 us periods C1 (2 us),
# C1's 500 us C2 (100 us), C2's 2 ms and C3's 10 ms C3 (800 us): C2 and C3
# out leaves 20 + 20 + 5 = 45 of 55 periods without their ideal; C3 out, 25.
@test "advise --latency-budget: states left out, PM QoS, cost and bound as worked out by hand" {
	local tr="$BATS_TEST_DIRNAME/../fixtures/traces" j="$BATS_TEST_TMPDIR/b.json"
	run "$IDLESCOPE" replay --profile "$tr/acpi-1.json" "$tr/budget.ftrace" --format json -o "$j"
	[ "$status" -eq 0 ]
	b() { "$IDLESCOPE" advise "$j" --format json "$@" | jq -c '.tables[0].latency_budget'; }
	run b --latency-budget 50us
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.feasible and ([.disable[].name] == ["C2", "C3"]) and .pm_qos_us == 1 and
		.moved_entries == 25 and .moved_ns == 90000000 and ((.moved_share - 90 / 106.15) | fabs) < 1e-9 and
		.predicted_ns >= 9216 and .predicted_ns < 10240 and .deepest_kept == "C1" and
		.ideal_left_out == 45 and ((.ideal_left_out_share - 45 / 55) | fabs) < 1e-12'
	echo "$output" | jq -e '[.states[] | [.name, .source, .fits, .slower_than_declared, .samples]] ==
		[["POLL","measured",true,false,10],["C1","measured",true,true,20],
		 ["C2","measured",false,false,20],["C3","declared",false,false,5]]'
	echo "$output" | jq -e '.states[2].latency_ns >= 73728 and .states[2].latency_ns < 81920 and
		.states[3].latency_ns == 400000 and .states[3].measured_ns >= 458752'
	echo "$output" | jq -e '[.warnings[] | select(startswith("C1: measured median exit latency"))] | length == 1'
	run b --latency-budget 100us
	echo "$output" | jq -e '([.disable[].name] == ["C3"]) and .pm_qos_us == 50 and .moved_entries == 5 and .ideal_left_out == 25 and
		.moved_ns == 50000000 and .predicted_ns >= 73728 and .predicted_ns < 81920'
	run b --latency-budget 1ms
	echo "$output" | jq -e '.disable == [] and .moved_ns == 0 and .predicted_ns == 400000'
	# p50 instead: C2's median (~74-80 us) still over 50 us
	run b --latency-budget 50 --latency-percentile 50
	echo "$output" | jq -e '.percentile == 50 and ([.disable[].name] == ["C2", "C3"])'
	# the table says it, and the settings ab takes
	run "$IDLESCOPE" advise "$j" --latency-budget 50us --write-ab "$BATS_TEST_TMPDIR/ab.set"
	[ "$status" -eq 0 ]
	[[ "$output" == *"proposal: leave out C2 (state2), C3 (state3): disable them, or hold /dev/cpu_dma_latency at 1 us"* ]]
	[[ "$output" == *"cost: 25 periods, 90.0ms (84.79% of these CPUs' time) go to shallower states; 45 periods (81.8%) had a left-out state as their ideal"* ]]
	[ "$(grep -v '^#' "$BATS_TEST_TMPDIR/ab.set")" = "cpu_dma_latency=none,1" ]
	run "$IDLESCOPE" advise "$j" --latency-budget 1ms --write-ab "$BATS_TEST_TMPDIR/none.set"
	[ "$status" -eq 0 ]
	[ -z "$(grep -v '^#' "$BATS_TEST_TMPDIR/none.set")" ]
	# usage errors
	run "$IDLESCOPE" advise "$j" --latency-budget 0
	[ "$status" -eq 2 ]
	run "$IDLESCOPE" advise "$j" --latency-budget 50us --latency-percentile 101
	[ "$status" -eq 2 ]
	run "$IDLESCOPE" advise "$j" --write-ab "$BATS_TEST_TMPDIR/x.set"
	[ "$status" -eq 2 ]
}

@test "ab --set-from: the settings of a file, one per line; a bad line is a usage error" {
	printf '# a comment\n\ncpu_dma_latency=none,20\n' > "$BATS_TEST_TMPDIR/ok.set"
	run "$IDLESCOPE" ab --set-from "$BATS_TEST_TMPDIR/ok.set" --repeat 1 --format json -o "$BATS_TEST_TMPDIR/ab.json" -- true
	[ "$status" -eq 0 ]
	jq -e '.variants == ["cpu_dma_latency=none", "cpu_dma_latency=20"]' "$BATS_TEST_TMPDIR/ab.json"
	printf 'no.such.sysctl=1,2\n' > "$BATS_TEST_TMPDIR/bad.set"
	run "$IDLESCOPE" ab --set-from "$BATS_TEST_TMPDIR/bad.set" -d 1
	[ "$status" -eq 2 ]
	[[ "$output" == *"unknown --set key 'no.such.sysctl'"* ]]
	run "$IDLESCOPE" ab --set-from "$BATS_TEST_TMPDIR/missing.set" -d 1
	[ "$status" -eq 2 ]
	[[ "$output" == *"--set-from: cannot read"* ]]
}

# The proposal applied: the states left out hold no period under it (the
# kernel's own choice under the PM QoS request or the disable flags), each
# kept state's p99 timer lateness stays near the bound advise predicted from
# the first recording (1.5x + 50 us; in a TCG guest, whose lateness is the
# emulator's scheduling, milliseconds that vary 2x between runs, 3x), and
# the machine's settings are back afterwards.
# bats test_tags=oracle
@test "advise --latency-budget live: ab under the proposal empties the left-out states, p99 near the bound, settings restored" {
	require_cpuidle_driver
	local j="$BATS_TEST_TMPDIR/live.json" set="$BATS_TEST_TMPDIR/live.set" a="$BATS_TEST_TMPDIR/all.json"
	local qos_before disabled_before budget m=() name
	qos_before=$(od -An -td4 /dev/cpu_dma_latency | tr -d ' ')
	disabled_before=$(cat /sys/devices/system/cpu/cpu*/cpuidle/state*/disable | tr -d '\n')
	run "$IDLESCOPE" record --format json -o "$j" -- cyclictest --laptop -q -t 2 -a -i 3000 -D 4
	[ "$status" -eq 0 ]
	# every state's latency as the advisor sees it (a 1 s budget keeps all)
	"$IDLESCOPE" advise "$j" --latency-budget 1s --format json -o "$a"
	jq -c '.tables[0].latency_budget.states[] | [.name, .entries, .samples, .latency_ns, .source]' "$a" >&3 || true
	# the budget: just under the largest latency of a deeper state with
	# periods (the shallowest enabled one is never left out)
	budget=$(jq -r '.tables[0].latency_budget.states | map(select(.enabled)) | .[1:] |
		map(select(.entries > 0 and .latency_ns > 0)) |
		if length == 0 then "none" else "\(max_by(.latency_ns).latency_ns - 1)ns" end' "$a")
	[ "$budget" != none ] || skip "no deeper state held periods: nothing to leave out"
	run "$IDLESCOPE" advise "$j" --latency-budget "$budget" --format json -o "$BATS_TEST_TMPDIR/adv.json" --write-ab "$set"
	[ "$status" -eq 0 ]
	jq -c '.tables[0].latency_budget | {disable, pm_qos_us, predicted_ns, states: [.states[] | [.name, .entries, .latency_ns, .source]]}' "$BATS_TEST_TMPDIR/adv.json" >&3 || true
	grep -v '^#' "$set" | grep -q . # something to change
	while read -r name; do m+=(--metric "total.state[$name].entries"); done < <(jq -r '.tables[0].latency_budget.disable[].name' "$BATS_TEST_TMPDIR/adv.json")
	while read -r name; do m+=(--metric "total.lateness[$name].p99_ns"); done < <(jq -r '.tables[0].latency_budget as $b |
		$b.states[] | select(.enabled and .entries > 0) | .name as $n |
		select([$b.disable[].name] | index($n) | not) | $n' "$BATS_TEST_TMPDIR/adv.json")
	# The bound is judged only where advise measured it: where a state that
	# will hold periods had too few timer-ended ones (POLL under the haltpoll
	# governor, which halts at a 3 ms period), the bound is that state's
	# declared latency, which advise says (predicted_declared, a warning)
	# and which nothing measured can be held to.
	local declared
	declared=$(jq -r '.tables[0].latency_budget.predicted_declared // ""' "$BATS_TEST_TMPDIR/adv.json")
	if [ -z "$declared" ]; then
		[[ "${m[*]}" == *"].p99_ns"* ]] # a kept state to check
	else
		jq -e '[.tables[0].latency_budget.warnings[] | select(contains("declared exit latency, unmeasured"))] | length == 1' \
			"$BATS_TEST_TMPDIR/adv.json"
		echo "# bound from $declared's declared latency: p99 not judged, the left-out states are" >&3
	fi
	run "$IDLESCOPE" ab --set-from "$set" --repeat 2 "${m[@]}" --format json -o "$BATS_TEST_TMPDIR/ab.json" -- \
		cyclictest --laptop -q -t 2 -a -i 3000 -D 3
	[ "$status" -eq 0 ]
	local last
	last=$(jq '.variants | length - 1' "$BATS_TEST_TMPDIR/ab.json")
	jq -c '.metrics[] | [.metric, (.variants[] | .runs)]' "$BATS_TEST_TMPDIR/ab.json" >&3 || true
	# the left-out states: no period in any run of the proposal (the last variant)
	run jq -r --argjson v "$last" '.metrics[] | select(.metric | endswith("].entries")) |
		select(.variants[$v].runs | map(. // 0) | max > 0) | .metric' "$BATS_TEST_TMPDIR/ab.json"
	[ -z "$output" ]
	# restored
	[ "$(od -An -td4 /dev/cpu_dma_latency | tr -d ' ')" = "$qos_before" ]
	[ "$(cat /sys/devices/system/cpu/cpu*/cpuidle/state*/disable | tr -d '\n')" = "$disabled_before" ]
	[ -z "$declared" ] || return 0
	# Under TCG (STALL_PERIODS) one host thread runs every vCPU: where each
	# kept state polls (the core's POLL, desc "CPUIDLE CORE POLL IDLE"), an
	# idle peer spins through its whole slice instead of halting, and a
	# timer waits for it (p99 0.35-1.2 ms against a 110 us bound seen). The
	# record measured the kept state beside halting peers, so the guest
	# cannot hold the proposal to that bound. Judged in the acpi_idle guest
	# (C1 halts) and on hosts, where each vCPU or CPU has its own thread.
	local kept_polls=true st
	while read -r name; do
		for st in /sys/devices/system/cpu/cpu0/cpuidle/state*; do
			[ "$(cat "$st/name")" = "$name" ] || continue
			[ "$(cat "$st/desc")" = "CPUIDLE CORE POLL IDLE" ] || kept_polls=false
		done
	done < <(printf '%s\n' "${m[@]}" | sed -n 's/^total\.lateness\[\(.*\)\]\.p99_ns$/\1/p')
	if [ "$IDLESCOPE_TEST_STALL_PERIODS" -gt 0 ] && $kept_polls; then
		echo "# every kept state polls under TCG: peers spin through the shared thread's slices; p99 not judged" >&3
		return 0
	fi
	# the kept states: p99 within the bound (with the guest's slack), in
	# the runs that had timer-ended periods there
	run jq -r '[.metrics[] | select(.metric | endswith("].p99_ns")) | .variants[-1].runs[] | select(. != null)] | length' "$BATS_TEST_TMPDIR/ab.json"
	[ "$output" -gt 0 ]
	local slack=1.5
	[ "$IDLESCOPE_TEST_STALL_PERIODS" -eq 0 ] || slack=3
	run jq -r --argjson v "$last" --argjson slack "$slack" --slurpfile adv "$BATS_TEST_TMPDIR/adv.json" '
		($adv[0].tables[0].latency_budget.predicted_ns) as $bound |
		.metrics[] | select(.metric | endswith("].p99_ns")) |
		select(.variants[$v].runs | map(. // 0) | max > ([$bound * $slack, $bound + 50000] | max)) |
		"\(.metric): \(.variants[$v].runs) over \($bound)"' "$BATS_TEST_TMPDIR/ab.json"
	[ -z "$output" ]
}
