# Shared helpers for the live BATS tests: the binary under test, JSON
# oracles against sysfs cpuidle counters, and settings that must be restored.

IDLESCOPE=${IDLESCOPE:-$BATS_TEST_DIRNAME/../../build/idlescope}
CPUIDLE=/sys/devices/system/cpu/cpuidle

# Observer bias allowed per idle period in the sysfs time checks: 1 us on a
# real host; the oracle guests (tests/vm/oracle.sh) set it from
# VMTEST_BIAS_US, since QEMU TCG stretches every probe.
IDLESCOPE_TEST_BIAS_NS=${IDLESCOPE_TEST_BIAS_NS:-1000}
# Periods per CPU and state whose time a stalled vCPU may stretch by up to the
# row's longest period: 0 on a real host; the TCG oracle guests set 2, since
# QEMU's single thread can run the other vCPU for a whole slice between
# BPF's stamp and the kernel's (seen: C2 3.02 ms against sysfs 0.99 ms under
# PM QoS 0; tests/vm/guest-test.sh allows the same for its CSV check).
IDLESCOPE_TEST_STALL_PERIODS=${IDLESCOPE_TEST_STALL_PERIODS:-0}
cpuidle_driver() {
	cat "$CPUIDLE/current_driver" 2>/dev/null || echo none
}

# Tests tagged "oracle" skip here but run in the oracle guest, which has a
# driver (tests/lib/coverage.sh fails the suite if they ran nowhere).
require_cpuidle_driver() {
	[ "$(cpuidle_driver)" != none ] ||
		skip "no cpuidle driver here: runs in the x86_64 oracle guests (acpi_idle and haltpoll, tests/vm/oracle.sh)"
}

# The no-driver path; it runs in the cpuidle.off=1 guests on every kernel.
require_no_cpuidle_driver() {
	local d
	d=$(cpuidle_driver)
	[ "$d" = none ] ||
		skip "cpuidle driver $d here: runs in the cpuidle.off=1 guests (tests/vm/oracle.sh)"
}

# The table's cross-check section is complete: it ends with the verdict, or,
# on a host without a cpuidle driver (no sysfs counters to compare), with
# the line saying so. Which one is decided by the host, not the output.
assert_cross_check_complete() { # output
	local d
	d=$(cat "$CPUIDLE/current_driver" 2>/dev/null || echo none)
	[[ "$1" == *"Kernel cross-check"* ]]
	if [ "$d" = none ]; then
		[[ "$1" == *"no sysfs cpuidle counters on this machine"* ]]
	else
		[[ "$1" == *"verdict:"* ]]
	fi
}

# The median of a cyclictest --histfile histogram (one thread, buckets of
# 1 us), in us, of the samples inside it; empty without any.
cyclictest_median_us() { # histfile
	awk '/^#/ || NF < 2 { next } { n[$1 + 0] = $2 + 0; t += $2; if ($1 + 0 > m) m = $1 + 0 }
		END { for (i = 0; i <= m && t; i++) { c += n[i]; if (c >= t / 2) { print i; exit } } }' "$1"
}

# A summary line of a cyclictest --histfile ("# Avg Latencies: 00124") as a
# number; with -h, its own stdout has no "T:" line to read them from.
cyclictest_hist_field() { # histfile name
	awk -F: -v k="# $2" '$1 == k { print $2 + 0; exit }' "$1"
}

require_idle_miss() {
	[ "$(jq -r '.events.cpu_idle_miss' "$1")" != null ] || skip "kernel lacks power:cpu_idle_miss"
}

# Steady wakeup load on every CPU that leaves PM QoS alone (--laptop). Run
# it in the background (steady_load 60 &): exec makes $! cyclictest's pid,
# so a kill ends the load.
steady_load() { # seconds
	exec cyclictest --laptop -q -t "$(nproc)" -a -i 500 -D "$1" >/dev/null 2>&1
}

# --- The sysfs oracle: the tests' own snapshots around and inside a window ---
#
# The tool's kernel_check rows are the tool's own work (its snapshots, its
# window, its allowances), so they are no oracle. The tests read the kernel's
# counters themselves with tests/lib/cpuidle-snap (one line per CPU and state
# index: usage, time in us, above, below, rejected; independent of user/):
#
#   PREFIX.o0  outer, before idlescope starts   PREFIX.o1  outer, after it exits
#   PREFIX.i0  inner, by record's command first PREFIX.i1  inner, by it last
#
# record's window opens before its command is released and closes after the
# command exits (user/cmd/cmd_record.c: start, window_release, ..., stop), so
# o0 < start < i0 < i1 < stop < o1. Every period BPF counts ends inside the
# window, and the kernel counts a period (usage++ or rejected++, time, above
# or below) just after its exit tracepoint; so per CPU and state
#   inner delta <= BPF <= outer delta
# for entries (BPF counts a rejected entry too: usage + rejected), for
# cpu_idle_miss against above/below, and for time up to the clocks.
CPUIDLE_SNAP=${BASH_SOURCE[0]%/*}/../lib/cpuidle-snap # (helpers.bash is also sourced outside bats: tests/robust)

# Sets SNAPPED to record's command ("-- ${SNAPPED[@]}"): snapshot PREFIX.i0,
# the sh WORKLOAD, snapshot PREFIX.i1; exits with the workload's status (98 if
# a snapshot could not be written). Never give record -d with it: a -d window
# that closed before the workload would leave i1 outside the window.
snapped_cmd() { # prefix workload
	# shellcheck disable=SC2016 # expanded by the command's sh
	SNAPPED=(sh -c '"$0" >"$1.i0" || exit 98; eval "$2"; rc=$?; "$0" >"$1.i1" || exit 98; exit $rc'
		"$CPUIDLE_SNAP" "$1" "$2")
}

# record OPTIONS -- WORKLOAD between the outer snapshots, with the inner ones
# taken by its command (snapped_cmd). Returns record's status.
record_snapped() { # prefix workload record-options...
	local p=$1 w=$2 rc=0
	shift 2
	snapped_cmd "$p" "$w"
	"$CPUIDLE_SNAP" >"$p.o0" || return 97
	"$IDLESCOPE" record "$@" -- "${SNAPPED[@]}" || rc=$?
	"$CPUIDLE_SNAP" >"$p.o1" || return 97
	return "$rc"
}

# jq (with --rawfile o0 i0 i1 o1): {"CPU INDEX": {cpu, state, in, out}} with
# in and out each {entries (usage + rejected), time_ns, above, below} (above
# and below null where sysfs lacks them). Fields by position: no names.
# shellcheck disable=SC2016 # jq's own variables
JQ_SNAP_DELTAS='def snap: split("\n") | map(select(length > 0) | split(" ") |
		map(if . == "-" then null else tonumber end) |
		{key: "\(.[0]) \(.[1])", value: {cpu: .[0], state: .[1], usage: .[2], time: .[3],
		 above: .[4], below: .[5], rejected: (.[6] // 0)}}) | from_entries;
	def delta($a; $b): {entries: ($b.usage + $b.rejected - $a.usage - $a.rejected),
		time_ns: (($b.time - $a.time) * 1000),
		above: (if $a.above == null or $b.above == null then null else $b.above - $a.above end),
		below: (if $a.below == null or $b.below == null then null else $b.below - $a.below end)};
	($o0 | snap) as $O0 | ($i0 | snap) as $I0 | ($i1 | snap) as $I1 | ($o1 | snap) as $O1 |
	$O0 | with_entries(.key as $k | .value |= (. as $a |
		if $I0[$k] == null or $I1[$k] == null or $O1[$k] == null then {cpu, state, missing: true}
		else {cpu, state, in: delta($I0[$k]; $I1[$k]), out: delta($a; $O1[$k])} end))'

# The deltas of PREFIX's four snapshots as one JSON object (JQ_SNAP_DELTAS).
snap_deltas() { # prefix
	jq -n --rawfile o0 "$1.o0" --rawfile i0 "$1.i0" --rawfile i1 "$1.i1" --rawfile o1 "$1.o1" "$JQ_SNAP_DELTAS"
}

# Asserts that every CPU and state of record's JSON report lies between the
# inner and outer sysfs deltas of PREFIX's snapshots (record_snapped), and
# that the report has exactly the snapshots' CPUs and states. Allowances, per
# CPU and state:
# - entries, cpu_idle_miss: 1 at either bound. The kernel's exit tracepoint
#   and its usage++ are not one instant: cpuidle_enter_state() enables IRQs
#   between them (the waking interrupt and its softirqs run there), and
#   trace_cpu_idle_miss() follows above++/below++. A period whose two ends
#   straddle an edge counts on one side only; one CPU has one period in that
#   gap at a time. On a host the gap is microseconds against the milliseconds
#   of fork and exec between start and i0 (so 0 in practice); a TCG vCPU can
#   be held there while QEMU's single thread runs the other one for a slice.
# - time: BPF's stamps lie outside the kernel's local_clock() reads of the
#   same period, so BPF's time is at least the kernel's for its periods, at
#   most TIME_SHARE (1%: CLOCK_MONOTONIC against sched_clock, both slewed)
#   plus BIAS_NS per period (IDLESCOPE_TEST_BIAS_NS: the observer's own
#   stamps, 1 us on a host) more, plus 2 us (sysfs time is in whole us, each
#   delta off by under 1 us), plus IDLESCOPE_TEST_STALL_PERIODS (0 on a host,
#   2 in TCG guests) of the row's longest period (max_ns: a vCPU stalled
#   between BPF's stamp and the kernel's). Lower bound: 99% of the inner time
#   less 2 us and the time of inner periods BPF missed at the edges (as many
#   as BPF counted fewer than the inner delta, each at most max_ns), at
#   least one under TCG (IDLESCOPE_TEST_STALL_PERIODS > 0): there a period
#   whose exit BPF saw before start can be counted by the kernel after i0
#   (the straddle above; one per CPU, at the start edge only) while BPF's
#   count still reaches the inner delta through periods at the end (seen:
#   a 32-vCPU guest's CPU 1 POLL, BPF 12 periods 18.26 ms, inner 10 periods
#   19.92 ms, longest 5.5 ms); a host keeps 0. Upper:
#   the kernel time of BPF's periods is at most the inner time plus that of
#   the periods it counted beyond the inner delta (+1, the straddle), each
#   at most max_ns, and never more than the outer time: 101% of that + the
#   bias and stall terms. (max_ns is the tool's; a too large one only widens
#   the upper bound up to the outer time, a too small one fails.)
assert_within_snapshots() { # json prefix [time_share [bias_ns]]
	local f=$1 p=$2 bad
	bad=$(jq -r --argjson snap "$(snap_deltas "$p")" --argjson share "${3:-0.01}" \
		--argjson bias "${4:-$IDLESCOPE_TEST_BIAS_NS}" --argjson stall "$IDLESCOPE_TEST_STALL_PERIODS" '
	  def max0: if . < 0 then 0 else . end;
	  . as $d | ($snap | [.[].cpu] | unique) as $scpus | ([$d.cpus[].cpu] | unique) as $jcpus |
	  (if ($snap | length) == 0 then "no cpuidle states in the snapshots" else empty end),
	  (if $scpus != $jcpus then "CPUs: sysfs \($scpus), report \($jcpus)" else empty end),
	  ($d.cpus[] | .cpu as $c | .states[] | select(.entries > 0 and $snap["\($c) \(.index)"] == null) |
	   "cpu \($c) state \(.index) \(.name): \(.entries) entries, no such sysfs state"),
	  ($snap[] | . as $r |
	   ([$d.cpus[] | select(.cpu == $r.cpu) | .states[] | select(.index == $r.state)] | first) as $s |
	   "cpu \($r.cpu) state \($r.state)" as $at |
	   if $r.missing then "\($at): missing from a snapshot"
	   elif ($r.in | .entries < 0 or .time_ns < 0) or $r.in.entries > $r.out.entries or
	        $r.in.time_ns > $r.out.time_ns then "\($at): inner deltas \($r.in) not inside outer \($r.out)"
	   elif $s == null then "\($at): not in the report (sysfs inner \($r.in.entries) entries)"
	   else
	    ($s.max_ns) as $L | ($s.entries) as $e |
	    ($r.in.time_ns * (1 - $share) - 2000 -
	     ([$r.in.entries - $e, (if $stall > 0 then 1 else 0 end)] | max | max0) * $L) as $tlo |
	    ((1 + $share) * ($r.in.time_ns + ([$r.out.time_ns - $r.in.time_ns, (($e - $r.in.entries + 1) | max0) * $L] | min))
	     + $e * $bias + 2000 + $stall * $L) as $thi |
	    "\($at) \($s.name): entries \($e), sysfs inner \($r.in.entries) outer \($r.out.entries)" as $ent |
	    (if $e < $r.in.entries - 1 or $e > $r.out.entries + 1 then "\($ent): outside [inner - 1, outer + 1]" else empty end),
	    (if $s.time_ns < $tlo or $s.time_ns > $thi then
	       "\($at) \($s.name): time \($s.time_ns) ns outside [\($tlo | floor), \($thi | ceil)] (sysfs inner \($r.in.time_ns) outer \($r.out.time_ns), \($e) entries, longest \($L))"
	     else empty end),
	    ([["above", $s.miss_above, $r.in.above, $r.out.above], ["below", $s.miss_below, $r.in.below, $r.out.below]][] |
	     select(.[1] != null and .[2] != null) |
	     select(.[1] < .[2] - 1 or .[1] > .[3] + 1) |
	     "\($at) \($s.name): cpu_idle_miss \(.[0]) \(.[1]) outside sysfs \(.[0]) inner \(.[2]) - 1, outer \(.[3]) + 1")
	   end)' "$f")
	# every row, on failure and with IDLESCOPE_TEST_SNAP_SHOW=1 (bats prints
	# fd 3: how close each row came, e.g. in a guest's log)
	if [ -n "$bad" ] || [ -n "${IDLESCOPE_TEST_SNAP_SHOW:-}" ]; then
		local rows
		rows=$(jq -r --argjson snap "$(snap_deltas "$p")" '.cpus[] | .cpu as $c | .states[] |
			$snap["\($c) \(.index)"] as $k | select($k != null and $k.missing != true) |
			"cpu \($c) state \(.index) \(.name): entries \(.entries) sysfs \($k.in.entries)..\($k.out.entries)," +
			" time \(.time_ns) sysfs \($k.in.time_ns)..\($k.out.time_ns) (max \(.max_ns))," +
			" miss \(.miss_above)/\(.miss_below) sysfs above \($k.in.above)..\($k.out.above) below \($k.in.below)..\($k.out.below)"' "$f")
		[ -z "${IDLESCOPE_TEST_SNAP_SHOW:-}" ] ||
			printf '%s (%s)\n%s\n' "${BATS_TEST_DESCRIPTION:-}" "$f" "$rows" | sed 's/^/# snap: /' >&3
	fi
	if [ -n "$bad" ]; then
		echo "disagreement with the test's own sysfs snapshots ($p.*):" >&2
		echo "$bad" >&2
		echo "every row (BPF, sysfs inner..outer):" >&2
		echo "$rows" >&2
		return 1
	fi
}

# The tool's own verdict is ok: a check of the tool, in addition to the
# oracle (assert_within_snapshots), never instead of it. On failure the rows it
# judged wrong go to the test's output. The verdict judges with the host's
# allowances (1 us per period, no stall); in a TCG guest
# (IDLESCOPE_TEST_BIAS_NS or _STALL_PERIODS above the host's) a mismatch is
# shown, not failed (seen: the --packing instance of "two instances" judged
# mismatch twice in a row in a CI run's oracle guest); the test's own
# snapshots judge there as everywhere.
assert_verdict_ok() {
	local f=$1
	[ "$(jq -r .kernel_check.verdict "$f")" = ok ] && return 0
	echo "kernel_check verdict $(jq -r .kernel_check.verdict "$f") in $f; rows not ok:" >&2
	jq -c '.kernel_check.rows[] | select(.ok == false) |
		{cpu, name, bpf, kernel, miss, fexit, entries_diff, entries_allowed, time_diff_ns,
		 bias_ns_per_period}' "$f" >&2
	if [ "$IDLESCOPE_TEST_BIAS_NS" -gt 1000 ] || [ "$IDLESCOPE_TEST_STALL_PERIODS" -gt 0 ]; then
		echo "(a TCG guest: shown, not failed; the test's snapshots judge)" >&2
		return 0
	fi
	return 1
}

# Governor switching with restore; tests call restore_governor in teardown.
save_governor() {
	SAVED_GOVERNOR=$(cat "$CPUIDLE/current_governor" 2>/dev/null || true)
}

restore_governor() {
	if [ -n "${SAVED_GOVERNOR:-}" ]; then
		echo "$SAVED_GOVERNOR" > "$CPUIDLE/current_governor"
		[ "$(cat "$CPUIDLE/current_governor")" = "$SAVED_GOVERNOR" ]
	fi
}

# IDs of loaded BPF programs with our names, one per line.
our_bpf_prog_ids() {
	bpftool -j prog show 2>/dev/null |
		jq -r '.[] | select(.name | test("^(tp_btf|raw_tp)_|^replay_idle")) | .id'
}

# Highest program ID now; programs created later have larger IDs.
bpf_prog_id_mark() {
	bpftool -j prog show 2>/dev/null | jq '[.[].id] | max // 0'
}

# Our programs created after mark that are still loaded (leaks). The kernel
# frees a program after an RCU grace period, so give it up to 3 s.
our_bpf_progs_since() { # mark
	local id n try
	for try in $(seq 30); do
		n=0
		for id in $(our_bpf_prog_ids); do
			[ "$id" -gt "$1" ] && n=$((n + 1))
		done
		[ "$n" -eq 0 ] && break
		sleep 0.1
	done
	echo "$n"
}

# BPF objects a live process holds, from its fdinfo (a link's fd names its
# program too): "prog_id 12", "link_id 3", "map_id 40", one per line. Exact
# even while other idlescope instances run on the machine.
bpf_ids_of_pid() { # pid
	grep -hE '^(prog_id|link_id|map_id):' /proc/"$1"/fdinfo/* 2>/dev/null |
		tr -d ':' | LC_ALL=C sort -u
}

# Those of the ids (bpf_ids_of_pid lines on stdin) that still exist; the
# kernel frees objects after an RCU grace period, so this waits up to 3 s.
bpf_ids_still_loaded() {
	local ids left kind id try
	ids=$(cat)
	for try in $(seq 30); do
		left=
		while read -r kind id; do
			[ -n "$id" ] || continue
			case $kind in
			prog_id) bpftool prog show id "$id" >/dev/null 2>&1 && left+="$kind $id " ;;
			link_id) bpftool link show id "$id" >/dev/null 2>&1 && left+="$kind $id " ;;
			map_id) bpftool map show id "$id" >/dev/null 2>&1 && left+="$kind $id " ;;
			esac
		done <<<"$ids"
		[ -z "$left" ] && return 0
		sleep 0.1
	done
	echo "$left"
}

# Bytes of BPF map memory (memlock) a live process holds.
bpf_map_memlock_of_pid() { # pid
	awk '/^memlock:/ { s += $2 } END { print s + 0 }' /proc/"$1"/fdinfo/* 2>/dev/null
}

# VmRSS of a live process in kB.
rss_kb_of_pid() { # pid
	awk '/^VmRSS:/ { print $2 }' /proc/"$1"/status
}

# Waits until pid has exec'd idlescope (its comm), up to 2 s.
wait_exec_idlescope() { # pid
	local try
	for try in $(seq 200); do
		[ "$(cat /proc/"$1"/comm 2>/dev/null)" = idlescope ] && return 0
		sleep 0.01
	done
	return 1
}

# Waits until a live command's -v stderr ($1) says its window opened and
# the poke is over (its count of CPUs of unknown state), then
# 0.3 s more; 60 s at most, and fails if it never did or its process ($2,
# optional) ended: a fixed sleep was shorter than the start-up of a TCG
# guest that attaches fentry programs, and serve makes its threads late in
# it (a fixed 1.5 s counted those: 3 switches).
window_open() { # errfile [pid]
	local _
	for _ in $(seq 600); do
		if grep -q 'CPUs of unknown state' "$1"; then
			sleep 0.3
			return 0
		fi
		[ -z "${2:-}" ] || kill -0 "$2" || return 1
		sleep 0.1
	done
	return 1
}

# Until process $1 or a child of it (advise's record) holds BPF links (or
# perf events) and their count has not changed for 1 s, 60 s at most:
# attached, so a signal from then on ends the window normally (before, it
# is a start-up error, exit 1). A TCG guest's start-up takes seconds: a
# fixed sleep after the exec signalled it mid-load. One `ls` per process
# and sample, times from the shell's clock: a readlink per descriptor (80
# of them, a fork each) took seconds per sample in the guest, longer than
# the command's window.
bpf_attached() { # pid
	local n prev=-1 since=0 now end p
	now=${EPOCHREALTIME//[!0-9]/}
	end=$((now + 60000000))
	while [ "$now" -lt "$end" ]; do
		n=0
		for p in "$1" $(pgrep -P "$1" || true); do
			n=$((n + $(ls -l /proc/"$p"/fd 2>/dev/null | grep -c -e bpf_link -e perf_event || true)))
		done
		now=${EPOCHREALTIME//[!0-9]/}
		if [ "$n" -ne "$prev" ]; then
			prev=$n
			since=$now
		elif [ "$n" -gt 0 ] && [ $((now - since)) -ge 1000000 ]; then
			return 0
		fi
		kill -0 "$1" 2>/dev/null || return 1
		sleep 0.1
		now=${EPOCHREALTIME//[!0-9]/}
	done
	return 1
}

# A TCP port nothing listens on now (random, so parallel runs do not collide).
free_port() {
	local p
	for _ in $(seq 50); do
		p=$((20000 + RANDOM % 40000))
		[ -z "$(ss -Htln "sport = :$p")" ] && { echo "$p"; return 0; }
	done
	return 1
}

# The real Prometheus on config $1 and loopback port $2, its data and log in
# the test's directory; waits until it is ready. Sets PROM_PID and PROM (its
# URL); the caller's teardown kills PROM_PID.
run_prometheus() { # config port
	local d=$BATS_TEST_TMPDIR
	prometheus --config.file="$1" --storage.tsdb.path="$d/tsdb" \
		--web.listen-address="127.0.0.1:$2" --log.level=warn >"$d/prom.log" 2>&1 3>&- &
	PROM_PID=$!
	PROM=http://127.0.0.1:$2
	for _ in $(seq 100); do
		curl -sf -o /dev/null "$PROM/-/ready" && return 0
		kill -0 "$PROM_PID" 2>/dev/null || break
		sleep 0.2
	done
	echo "prometheus did not start: $(cat "$d/prom.log")" >&2
	return 1
}

# The ID of the BPF program named $2 that live process $1 holds.
bpf_prog_of_pid() { # pid name
	local id
	for id in $(grep -h '^prog_id:' /proc/"$1"/fdinfo/* | awk '{ print $2 }' | sort -un); do
		[ "$(bpftool -j prog show id "$id" | jq -r .name)" = "$2" ] && { echo "$id"; return 0; }
	done
	return 1
}

# Runs of BPF program $1 as the kernel counts them (bpftool; 0 before any).
bpf_prog_runs() { # id
	bpftool -j prog show id "$1" | jq '.run_cnt // 0'
}

# bpftool's memlock of the BPF maps live process $1 holds, summed.
bpftool_map_memlock_of_pid() { # pid
	local maps
	maps=$(grep -h '^map_id:' /proc/"$1"/fdinfo/* | awk '{ print $2 }' | sort -un | jq -sc .)
	bpftool -j map show | jq --argjson ids "$maps" '[.[] | select(.id as $i | $ids | index($i)) | .bytes_memlock] | add'
}

# Waits for serve's "idlescope serve: URL" line in outfile (up to 10 s,
# while pid lives) and prints the URL.
serve_url() { # outfile pid
	local url
	for _ in $(seq 100); do
		url=$(sed -n 's/^idlescope serve: \(http:.*\)$/\1/p' "$1")
		[ -n "$url" ] && { echo "$url"; return 0; }
		kill -0 "$2" 2>/dev/null || break
		sleep 0.1
	done
	echo "serve did not start: $(cat "$1" "$1.err" 2>/dev/null)" >&2
	return 1
}

host_profile() { # the replay profile of this machine, from its sysfs (cpu0's table for all)
	local C=/sys/devices/system/cpu s sep=
	printf '{"schema":"idlescope-profile/1","cpus":%d,"states":[' "$(ls -d $C/cpu[0-9]* | wc -l)"
	for s in $C/cpu0/cpuidle/state[0-9]*; do
		printf '%s{"name":"%s","exit_latency_us":%s,"target_residency_us":%s}' "$sep" \
			"$(cat $s/name)" "$(cat $s/latency)" "$(cat $s/residency)"
		sep=,
	done
	printf ']}\n'
}

# compare's table from the JSON alone (compare.bats, report.bats): per
# (entity, state) of a summary, tab-separated: entity, state, time_ns,
# share, entries, above, below; a group's share is its time over the window,
# its above and below the sums over its CPUs (a list "a-b,c" expanded).
compare_expected_rows() { # json
	jq -r '
	def cpus_of($l): [$l | split(",")[] |
		if test("-") then (split("-") | map(tonumber)) as [$a, $b] | range($a; $b + 1)
		else tonumber end];
	. as $d |
	((.totals.states[] | ["all CPUs", .name, .time_ns, .share, .entries, .above, .below]),
	 ((.groups.groups // [])[] | . as $g | cpus_of($g.cpus) as $cs | .states[] | . as $s |
	  [$g.name, .name, .time_ns, (.time_ns / $d.duration_ns), .periods,
	   ([$d.cpus[] | select(.cpu as $c | $cs | index($c)) | .states[] |
	     select(.name == $s.name) | .above] | add),
	   ([$d.cpus[] | select(.cpu as $c | $cs | index($c)) | .states[] |
	     select(.name == $s.name) | .below] | add)])) | @tsv' "$1"
}
