#!/usr/bin/env bats
# `idlescope replay trace.dat`: trace-cmd's binary files read by every build
# (user/replay/dat_file.c on libtraceevent). The oracle is trace-cmd's own
# reading of the same file: `trace-cmd report -t` text (full nanosecond
# timestamps) replayed by the text parser must give the same summary, number
# by number; the file's CPU count is trace-cmd's "cpus=" line. Recorded here
# with `trace-cmd record` into private instances (-B), removed in teardown.

bats_require_minimum_version 1.5.0
load helpers

# what trace_parse consumes, and a few it skips (counted by name)
EVENTS=(-e power:cpu_idle -e power:cpu_frequency -e irq:irq_handler_entry -e irq:softirq_entry
	-e timer:hrtimer_start -e timer:hrtimer_expire_entry -e sched:sched_wakeup
	-e sched:sched_switch)
# where the kernel has them (x86 vectors, ipi_send_cpu 6.6+, the no-IPI wakeup)
for e in irq_vectors ipi:ipi_send_cpu ipi:ipi_entry sched:sched_wake_idle_without_ipi \
	power:cpu_idle_miss; do
	[ -d "/sys/kernel/tracing/events/${e/://}" ] && EVENTS+=(-e "$e")
done

INSTANCES=()
teardown() {
	local i d
	# our instances only: trace-cmd removes its -B instances, unless it failed
	for i in ${INSTANCES[@]+"${INSTANCES[@]}"}; do
		d=/sys/kernel/tracing/instances/$i
		[ -d "$d" ] || continue
		echo 0 >"$d/tracing_on" 2>/dev/null || true
		rmdir "$d" || true
	done
}

setup() {
	[ "$(id -u)" -eq 0 ] || skip "needs root (trace-cmd record)"
	command -v trace-cmd >/dev/null || skip "trace-cmd not installed"
	D=$BATS_TEST_TMPDIR
	if [ -n "${IDLESCOPE_TC_SHIM:-}" ]; then # the oracle guests have no gcc: built on the host
		cp "$IDLESCOPE_TC_SHIM" "$D/shim.so"
	else
		command -v gcc >/dev/null || skip "no gcc for the trace-cmd shim"
		gcc -shared -fPIC -O2 -o "$D/shim.so" "$BATS_TEST_DIRNAME/../lib/trace_cmd_shim.c" -ldl
	fi
}

# record OUT ARGS...: trace-cmd record with ARGS around a short load (shell
# forks, sleeps, a CPU-bound gzip); -B NAME instances get this test's suffix.
# Retried: trace-cmd fails now and then when /proc/kallsyms changes size while
# it copies it (other BPF programs loading).
record() {
	local out=$1
	shift
	local args=() a prev=
	for a in "$@"; do
		if [ "${prev:-}" = -B ]; then a=${a}_$$; INSTANCES+=("$a"); fi
		args+=("$a")
		prev=$a
	done
	for _ in 1 2 3 4 5; do
		LD_PRELOAD="$D/shim.so" trace-cmd record -q "${args[@]}" -o "$out" \
			sh -c 'for i in 1 2 3 4 5; do sleep 0.02; done; head -c 4000000 /dev/urandom | gzip -c >/dev/null' \
			>"$D/record.log" 2>&1 && return 0
		teardown
	done
	cat "$D/record.log"
	skip "trace-cmd record failed 5 times here"
}

# The summary without what names the input (its file name, format, line
# count) and the timings; arrays sorted (rows tied on a count come out of BPF
# hash maps in no fixed order, run to run).
normalized() { # json file-name
	jq -S --arg file "$2" '
		del(.replay.file, .replay.format, .replay.lines, .replay.replay_ns,
		    .replay.events_per_s, .replay.parse_ns, .replay.total_events_per_s)
		| (.. | strings) |= (if startswith($file + ": ") then "FILE" + .[($file | length):] else . end)
		| walk(if type == "array" then sort else . end)' "$1"
}

# same_as_report DAT [REPLAY-ARGS...]: the replay of DAT equals the replay of
# its `trace-cmd report -t` text
same_as_report() {
	local dat=$1 base
	shift
	base=${dat%.dat}
	trace-cmd report -t -i "$dat" >"$base.txt" 2>"$D/report.log"
	"$IDLESCOPE" replay "$@" --format json -o "$base.dat.json" "$dat"
	"$IDLESCOPE" replay "$@" --format json -o "$base.txt.json" "$base.txt"
	jq -e '.replay.format == "trace-cmd trace.dat" and .replay.garbled_lines == 0' "$base.dat.json"
	diff <(normalized "$base.txt.json" "$base.txt") <(normalized "$base.dat.json" "$dat")
}

# event lines of a report text: "comm-pid [cpu] ts: name:"
text_events() { awk '/ \[[0-9]+\] +[0-9]+\.[0-9]+: /' "$1" | wc -l; }

# With a cpuidle driver (the acpi_idle oracle guest) the states get this
# machine's table, so above/below are compared too.
# bats test_tags=oracle
@test "replay trace.dat: equal to the replay of trace-cmd report's text, the CPU count from the file" {
	local profile=()
	if [ -d /sys/devices/system/cpu/cpu0/cpuidle/state0 ]; then
		host_profile >"$D/host.json"
		profile=(--profile "$D/host.json")
	fi
	record "$D/a.dat" -B idlescope_dat "${EVENTS[@]}"
	same_as_report "$D/a.dat" ${profile[@]+"${profile[@]}"}
	jq -r '"# \(.replay.lines) records, \(.replay.events) replayed; entries/above/below per state: " +
		([.cpus[] | "cpu\(.cpu) " + ([.states[] | "\(.name) \(.entries)/\(.above)/\(.below)"] | join(", "))]
		| join("; "))' "$D/a.dat.json" >&3
	local n cpus
	n=$(text_events "$D/a.txt")
	echo "records: $(jq .replay.lines "$D/a.dat.json"), report's event lines: $n"
	[ "$n" -gt 0 ]
	# every record read, as trace-cmd itself reads the file
	[ "$(jq .replay.lines "$D/a.dat.json")" -eq "$n" ]
	jq -e '.replay.events > 0 and .replay.skipped_events.sched_switch > 0' "$D/a.dat.json"
	cpus=$(sed -n 's/^cpus=//p' "$D/a.txt" | head -1)
	[ "$(jq '.cpus | length' "$D/a.dat.json")" -eq "$cpus" ]
	# a loaded host (other tests, CI neighbours) may not idle at all: then
	# the replay has no idle period either, and the test has not checked
	# idle periods, so it skips (the coverage table shows where it ran)
	if grep -q 'cpu_idle:' "$D/a.txt"; then
		jq -e '[.cpus[].states[].entries] | add > 0' "$D/a.dat.json"
	else
		jq -e '[.cpus[].states[].entries] | add // 0 | . == 0' "$D/a.dat.json"
		skip "no cpu_idle event in the capture: the CPUs never idled"
	fi
}

@test "replay trace.dat: several -B buffers merged as report shows them; --instance picks one" {
	record "$D/m.dat" -e sched:sched_wakeup -e power:cpu_idle \
		-B idlescope_dat_a -e power:cpu_idle -e irq:softirq_entry -B idlescope_dat_b -e sched:sched_wakeup
	same_as_report "$D/m.dat"
	local a=idlescope_dat_a_$$ b=idlescope_dat_b_$$
	# one buffer: report's lines of that buffer ("NAME: comm-pid [cpu] ...")
	grep "^ *$a: " "$D/m.txt" >"$D/a_only.txt"
	[ -s "$D/a_only.txt" ]
	"$IDLESCOPE" replay --instance "$a" --format json -o "$D/a_only.dat.json" "$D/m.dat"
	"$IDLESCOPE" replay --format json -o "$D/a_only.txt.json" "$D/a_only.txt"
	diff <(normalized "$D/a_only.txt.json" "$D/a_only.txt") <(normalized "$D/a_only.dat.json" "$D/m.dat")
	[ "$(jq .replay.lines "$D/a_only.dat.json")" -eq "$(wc -l <"$D/a_only.txt")" ]
	# the top buffer: the lines without a buffer name
	run "$IDLESCOPE" replay --instance top --format json -o "$D/top.json" "$D/m.dat"
	[ "$status" -eq 0 ]
	[ "$(jq .replay.lines "$D/top.json")" -eq "$(grep -Evc "^ *($a|$b): |^cpus=|^version = " "$D/m.txt")" ]
	run "$IDLESCOPE" replay --instance nope "$D/m.dat"
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "idlescope: "*"no buffer 'nope'"*"$a"* ]]
	run "$IDLESCOPE" replay --instance "$a" "$D/m.txt"
	[ "$status" -eq 2 ]
}

@test "replay trace.dat: a compressed file (trace-cmd record --compression)" {
	trace-cmd list -c 2>/dev/null | grep -q zstd || skip "this trace-cmd has no zstd compression"
	record "$D/z.dat" --compression zstd -B idlescope_dat "${EVENTS[@]}"
	# file version 7 with the compression named in its header
	head -c 30 "$D/z.dat" | grep -aq 'tracing7' && head -c 30 "$D/z.dat" | grep -aq zstd
	same_as_report "$D/z.dat"
	[ "$(jq .replay.lines "$D/z.dat.json")" -eq "$(text_events "$D/z.txt")" ]
}

# Cut points inside the data and the metadata. Not the last few hundred bytes
# of a version 7 file: they hold only the table of section names, which
# trace-cmd report (and idlescope) read as optional; every event is there.
# A cut version 6 file with a -B buffer crashes libtracecmd 3.1's reader
# (trace-cmd report); idlescope's checks every offset against the file.
@test "replay trace.dat: version 6, and version 7 uncompressed, equal to trace-cmd report" {
	record "$D/v6.dat" --file-version 6 -B idlescope_dat "${EVENTS[@]}"
	head -c 12 "$D/v6.dat" | grep -aq 'tracing6'
	same_as_report "$D/v6.dat"
	[ "$(jq .replay.lines "$D/v6.dat.json")" -eq "$(text_events "$D/v6.txt")" ]
	record "$D/n.dat" --compression none -B idlescope_dat "${EVENTS[@]}"
	head -c 30 "$D/n.dat" | grep -aq 'tracing7' && head -c 30 "$D/n.dat" | grep -aq none
	same_as_report "$D/n.dat"
	[ "$(jq .replay.lines "$D/n.dat.json")" -eq "$(text_events "$D/n.txt")" ]
	# a top buffer only, version 6 (no -B: the file's own flyrecord section)
	record "$D/t6.dat" --file-version 6 -e power:cpu_idle -e sched:sched_switch
	same_as_report "$D/t6.dat"
}

# Debian's trace-cmd writes zstd only: tests/lib/dat_zlib.py rewrites an
# uncompressed file with zlib blocks and chunks (metadata, options, CPU data),
# whose truth is the uncompressed original's report.
@test "replay trace.dat: a zlib-compressed file equals the report of its uncompressed original" {
	command -v python3 >/dev/null || skip "no python3 for tests/lib/dat_zlib.py"
	record "$D/n.dat" --compression none -B idlescope_dat "${EVENTS[@]}"
	python3 "$BATS_TEST_DIRNAME/../lib/dat_zlib.py" "$D/n.dat" "$D/z.dat"
	head -c 30 "$D/z.dat" | grep -aq zlib
	trace-cmd report -t -i "$D/n.dat" >"$D/n.txt" 2>/dev/null
	"$IDLESCOPE" replay --format json -o "$D/z.json" "$D/z.dat"
	"$IDLESCOPE" replay --format json -o "$D/n.json" "$D/n.txt"
	jq -e '.replay.format == "trace-cmd trace.dat" and .replay.garbled_lines == 0' "$D/z.json"
	[ "$(jq .replay.lines "$D/z.json")" -eq "$(text_events "$D/n.txt")" ]
	diff <(normalized "$D/n.json" "$D/n.txt") <(normalized "$D/z.json" "$D/z.dat")
}

# The quick start's build (dynamic) and the test VMs' (static) read the same
# file to the same numbers.
@test "replay trace.dat: the static build reads it as the default build does" {
	local st=${IDLESCOPE_STATIC:-$BATS_TEST_DIRNAME/../../build/static/idlescope}
	[ -x "$st" ] || skip "no static build at $st (make static)"
	[ "$st" != "$IDLESCOPE" ] || skip "the build under test is the static one"
	record "$D/s.dat" -B idlescope_dat "${EVENTS[@]}"
	"$IDLESCOPE" replay --format json -o "$D/d.json" "$D/s.dat"
	"$st" replay --format json -o "$D/st.json" "$D/s.dat"
	jq -e '.replay.lines > 0' "$D/st.json"
	diff <(normalized "$D/d.json" "$D/s.dat") <(normalized "$D/st.json" "$D/s.dat")
}

@test "replay trace.dat: truncated or foreign binary files get a one-line error" {
	record "$D/t.dat" -B idlescope_dat -e power:cpu_idle -e sched:sched_wakeup
	record "$D/t6.dat" --file-version 6 -B idlescope_dat -e power:cpu_idle -e sched:sched_wakeup
	local f size n
	for f in t t6; do
		size=$(stat -c %s "$D/$f.dat")
		for n in 10 100 1000 5000 $((size / 3)) $((size / 2)) $((size - 4096)) $((size - 1024)) \
			$([ "$f" = t6 ] && echo $((size - 1))); do
			head -c "$n" "$D/$f.dat" >"$D/cut.dat"
			run "$IDLESCOPE" replay "$D/cut.dat"
			echo "$f.dat cut at $n of $size: $status $output"
			[ "$status" -eq 1 ]
			[ "${#lines[@]}" -eq 1 ]
			[[ "$output" == "idlescope: "*"not a readable trace-cmd trace.dat"* ]]
		done
	done
	# the magic, then another file's bytes
	{ printf '\027\010\104tracing6'; head -c 200000 "$(command -v trace-cmd)"; } >"$D/foreign.dat"
	run "$IDLESCOPE" replay "$D/foreign.dat"
	echo "foreign: $status $output"
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "idlescope: "*"not a readable trace-cmd trace.dat"* ]]
	# a foreign binary without the magic: not a trace either
	run "$IDLESCOPE" replay "$(command -v trace-cmd)"
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 1 ]
}

# Bytes changed anywhere (a fixed seed: the same 24 copies every run): each
# copy is read or refused in one line, never a crash or a hang; a changed
# byte in the ring-buffer pages is a garbled record or page, counted.
@test "replay trace.dat: bit-flipped copies are read or refused in one line, never a crash" {
	command -v python3 >/dev/null || skip "no python3 to flip the bits"
	record "$D/f.dat" --file-version 6 -B idlescope_dat -e power:cpu_idle -e sched:sched_wakeup \
		-e sched:sched_switch
	record "$D/g.dat" -B idlescope_dat -e power:cpu_idle -e sched:sched_switch
	local f i st read=0 refused=0 garbled=0
	for f in f g; do
		for i in $(seq 1 12); do
			python3 - "$D/$f.dat" "$D/flip.dat" "$i" <<'PY'
import random, sys
data = bytearray(open(sys.argv[1], "rb").read())
rnd = random.Random(int(sys.argv[3]))
for _ in range(rnd.choice((1, 4, 32))):
    at = rnd.randrange(len(data))
    data[at] ^= 1 << rnd.randrange(8)
open(sys.argv[2], "wb").write(data)
PY
			st=0
			timeout 60 "$IDLESCOPE" replay --format json -o "$D/flip.json" "$D/flip.dat" \
				2>"$D/flip.err" || st=$?
			echo "$f.dat copy $i: exit $st $(cat "$D/flip.err")"
			[ "$st" -le 1 ]
			if [ "$st" -eq 1 ]; then
				[ "$(wc -l <"$D/flip.err")" -eq 1 ]
				refused=$((refused + 1))
			else
				read=$((read + 1))
				garbled=$((garbled + $(jq .replay.garbled_lines "$D/flip.json")))
			fi
		done
	done
	echo "# 24 flipped copies: $read read ($garbled garbled records or pages), $refused refused" >&3
}
