#!/bin/sh
# Runs as /test.sh in the vmtest guest (busybox only, no jq): records with idlescope
# under a periodic workload and compares its numbers with the guest's sysfs counters.
# Prints "INFO ..." and "CHECK ok|FAIL ..." lines; exits 1 if any check failed.
fails=0
ok() { echo "CHECK ok $*"; }
fail() {
	if [ -n "${first_try:-}" ]; then echo "INFO first try failed: $*"; else echo "CHECK FAIL $*"; fi
	fails=$((fails + 1))
}
# Runs a check function; under TCG, when one of its checks failed, once
# more, judging the second run alone (the first one's failures stay in the
# log as "INFO first try failed:"), as the oracle guests retry a failed
# test (tests/vm/oracle-guest.sh): QEMU's single thread can stall a vCPU
# for a whole slice where a check has no slack for it.
tcg_retry() { # function
	local before=$fails
	case ${vmtest_accel:-} in tcg*) ;; *)
		"$@"
		return
		;;
	esac
	first_try=1
	"$@"
	first_try=
	[ "$fails" != "$before" ] || return 0
	echo "INFO $1: $((fails - before)) checks failed at the first try; once more under TCG, judged"
	fails=$before
	"$@"
}
indent() { sed 's/^/  | /' "$@"; }
up() { cut -d' ' -f1 /proc/uptime; }
since() { awk -v a="$1" '{ printf "%.1fs", $1 - a }' /proc/uptime; }
# Time allowed per idle period in the sysfs time checks (BIAS): 50 us under
# TCG (vmtest_accel, from the kernel command line), where POLL rows' time is
# shown, not judged (section 2 says why); 2 us otherwise.
# STALL: the longest periods per CPU and state whose time a vCPU stalled
# between BPF's stamp and the kernel's may stretch (QEMU's one TCG thread
# runs the other vCPUs a slice meanwhile: one slice each, so as many as
# the other vCPUs, at least 2), 0 otherwise. (With 2 at 4 vCPUs, a CI
# run's 6.12 guest had CPU 1 C1 at BPF 37.2 ms over 21 periods against the
# kernel's 13.5 ms inner and 25.6 ms outer, 1.0 ms over the bound: time
# the kernel did not count at all, between the stamps.)
ncpus=$(grep -c '^processor' /proc/cpuinfo)
case ${vmtest_accel:-} in
tcg*) bias_ns=$((${vmtest_bias_us:-50} * 1000)) poll_time=0 stall_periods=$((ncpus > 3 ? ncpus - 1 : 2)) tcg=1 ;;
*) bias_ns=$((${vmtest_bias_us:-2} * 1000)) poll_time=1 stall_periods=0 tcg=0 ;;
esac

# --- arm64 guests: PSCI idle states and clusters ------------------------------

# The device tree's idle-states (run.sh adds them) must give psci_idle with WFI
# and the two DT states on every CPU. (Functions share the script's globals:
# busybox sh has local, POSIX sh does not.)
check_psci_idle() {
	bad=
	if [ "$driver" = psci_idle ]; then ok "cpuidle driver is psci_idle"; else fail "cpuidle driver is '$driver', not psci_idle"; fi
	for c in /sys/devices/system/cpu/cpu[0-9]*; do
		n=0
		for st in "$c"/cpuidle/state*; do [ -d "$st" ] && n=$((n + 1)); done
		[ "$n" -ge 3 ] && [ "$(cat "$c/cpuidle/state0/name")" = WFI ] || bad="$bad ${c##*/}:$n"
	done
	if [ -z "$bad" ]; then ok "every CPU has WFI plus the 2 device-tree idle states"; else fail "CPUs without WFI + 2 DT states:$bad"; fi
	echo "INFO kernel log on PSCI and cpuidle:"
	dmesg | grep -i -E 'psci|cpuidle' | indent
}

# CPUs of a cpulist, one per line ("0-1,4" -> 0 1 4).
cpus_of() {
	echo "$1" | awk -F, '{ for (i = 1; i <= NF; i++) { n = split($i, r, "-"); for (c = r[1]; c <= r[n]; c++) print c } }'
}

# "cpu time_us usage" per CPU from sysfs, summed over the CPU's states (read
# with the shell's own read: nothing forked per file, 256 files at 32 CPUs).
cpuidle_snapshot() {
	for c in /sys/devices/system/cpu/cpu[0-9]*; do
		t=0 u=0
		for st in "$c"/cpuidle/state*; do
			[ -d "$st" ] || continue
			read -r v <"$st/time" && t=$((t + v))
			read -r v <"$st/usage" && u=$((u + v))
		done
		echo "${c##*/cpu} $t $u"
	done
}

# --- the sysfs oracle: the script's own snapshots of every CPU and state ---
# /tmp/snap.sh (written here, so that record's command can run it too)
# prints "CPU INDEX usage time_us above below rejected" per cpuN/cpuidle/stateI
# directory ("-" for a counter the kernel lacks), keyed by the directory's
# numbers, never by the state's name (names may hold spaces), read with the
# shell's own read (nothing forked per file). Around a record: PREFIX.o0
# before idlescope starts and PREFIX.o1 after it exits (outer), PREFIX.i0 and
# PREFIX.i1 taken by record's command first and last (inner: the window opens
# before the command is released and closes after it exits, so the command
# must end the window: no -d). The tool's kernel_check rows and CSV k_*
# columns are its own work, no oracle: they are only shown.
cat >/tmp/snap.sh <<'SNAP'
#!/bin/sh
for st in /sys/devices/system/cpu/cpu[0-9]*/cpuidle/state[0-9]*; do
	[ -d "$st" ] || continue
	c=${st%/cpuidle/*}
	line="${c##*/cpu} ${st##*/state}"
	for k in usage time above below rejected; do
		v=-
		[ -r "$st/$k" ] && read -r v <"$st/$k"
		line="$line $v"
	done
	echo "$line"
done
SNAP

# The BPF side of record's CSV or JSON, one line per CPU and state:
# "cpu index entries time_ns max_ns miss_above miss_below fx_entered
# fx_rejected name" ("-" for null or empty; numbers as written, name last as
# it may hold spaces). CSV columns by the header's names (a comma in a name
# shifts the later ones: counted past the name). JSON: jansson's
# indentation, CPU keys at 6 spaces, the states array at 6, state keys at 10.
bpf_rows_csv() { # csv
	awk -F, 'NR == 1 { nh = NF; for (i = 1; i <= NF; i++) col[$i] = i; next }
	$1 !~ /^[0-9]+$/ { next }
	{
		o = NF - nh; name = $3; for (i = 4; i <= 3 + o; i++) name = name "," $i; gsub(/"/, "", name)
		printf "%s %s", $1, $2
		n = split("entries time_ns max_ns miss_above miss_below fx_entered fx_rejected", k, " ")
		for (i = 1; i <= n; i++) { v = (k[i] in col) ? $(col[k[i]] + o) : ""; printf " %s", v == "" ? "-" : v }
		printf " %s\n", name
	}' "$1"
}
bpf_rows_json() { # json
	awk 'function val(   v) { v = $0; sub(/^ *"[a-z_]*": /, "", v); sub(/,$/, "", v); gsub(/"/, "", v); return v }
	/^  "cpus": \[/ { c = 1; next }
	c && /^  \]/ { c = 0 }
	c && /^      "cpu": / { cpu = val() }
	c && /^      "states": \[/ { s = 1; next }
	s && /^      \]/ { s = 0 }
	s && /^        \{/ { split("", f) }
	s && /^          "[a-z_]*": / { k = $1; gsub(/[":]/, "", k); f[k] = val() }
	s && /^        \}/ {
		printf "%s %s", cpu, f["index"]
		n = split("entries time_ns max_ns miss_above miss_below fx_entered fx_rejected", ks, " ")
		for (i = 1; i <= n; i++) { v = f[ks[i]]; printf " %s", (v == "" || v == "null") ? "-" : v }
		printf " %s\n", f["name"]
	}' "$1"
}

# Judges BPF rows (bpf_rows_*) against the snapshots PREFIX.o0 .i0 .i1 .o1:
# per CPU and state, inner delta <= BPF <= outer delta. Allowances:
# - entries (BPF counts a rejected entry too: usage + rejected), cpu_idle_miss
#   against above/below, fexit's entered/rejected against usage/rejected: 1 at
#   either bound. cpuidle_enter_state() enables IRQs between its exit
#   tracepoint and usage++ (the waking interrupt runs there), and
#   trace_cpu_idle_miss() and the fexit return come after the increments, so
#   a period can straddle an edge, one per CPU at a time; under TCG a vCPU
#   can be held in that gap while QEMU's one thread runs the others a slice.
# - time: BPF's stamps enclose the kernel's: at least 99% of the inner time -
#   2 us (whole us in sysfs) - max_ns per inner period BPF did not count, at
#   least STALL under TCG (a vCPU stalled between the exit tracepoint and
#   usage++ at the window's start puts a period in the inner delta that BPF
#   saw end before the window, one per CPU, while BPF's count still reaches
#   the inner one through the other edge: seen at 32 vCPUs, CPU 1 POLL, BPF
#   12 periods 18.26 ms, inner 10 periods 19.92 ms); at most 101% of (the
#   inner time + max_ns per period counted beyond the inner delta, +1, never
#   more than the outer time) + BIAS per period + 2 us + STALL longest
#   periods (2 under TCG: a vCPU stalled between BPF's stamp and the
#   kernel's stretches a period; 0 otherwise). Under TCG POLL rows' time is
#   shown, not judged (section 2 says why); with judge_time=0 no row's is.
# Prints "OK|BAD cpu C state I NAME: ..." per row, "FX|FXBAD ..." per row with
# fexit counts, "BAD ..." per CPU and state of the snapshots the report
# lacks, and "SUM rows bad deep fxrows fxbad fxentered fxrejected".
snap_judge() { # rows-file prefix
	awk -v p="$2" -v bias="$bias_ns" -v stall="$stall_periods" -v poll_time="$poll_time" -v judge_time="${judge_time:-1}" '
	function max0(x) { return x < 0 ? 0 : x }
	function min(a, b) { return a < b ? a : b }
	FILENAME == p ".o0" || FILENAME == p ".i0" || FILENAME == p ".i1" || FILENAME == p ".o1" {
		w = substr(FILENAME, length(p) + 2); k = $1 " " $2
		u[w, k] = $3; t[w, k] = $4; a[w, k] = $5; b[w, k] = $6; r[w, k] = $7 == "-" ? 0 : $7
		if (w == "o0") keys[k] = 1
		has[w, k] = 1
		next
	}
	{
		k = $1 " " $2; seen[k] = 1; rows++
		name = $10; for (i = 11; i <= NF; i++) name = name " " $i
		at = sprintf("cpu %s state %s %s", $1, $2, name)
		if (!has["o0", k] || !has["i0", k] || !has["i1", k] || !has["o1", k]) { print "BAD " at ": not in every snapshot"; bad++; next }
		e = $3; tn = $4; L = $5
		ie = u["i1", k] + r["i1", k] - u["i0", k] - r["i0", k]; oe = u["o1", k] + r["o1", k] - u["o0", k] - r["o0", k]
		it = (t["i1", k] - t["i0", k]) * 1000; ot = (t["o1", k] - t["o0", k]) * 1000
		why = ""
		if (ie < 0 || ie > oe || it < 0 || it > ot) why = why sprintf(" inner %d entries %.0f ns not inside outer %d %.0f;", ie, it, oe, ot)
		if (e < ie - 1 || e > oe + 1) why = why sprintf(" entries outside [%d - 1, %d + 1];", ie, oe)
		# under TCG the straddling period the kernel counted and BPF saw end
		# before the window may itself be stretched by a stall: as many
		# longest periods as the upper bound allows (5.10 guest, CPU 1 C1:
		# 39 entries both, BPF 30.3 ms against 37.7 ms in the inner delta)
		miss_in = max0(ie - e); if (stall > 0 && miss_in < stall) miss_in = stall
		lo = 0.99 * it - 2000 - miss_in * L
		hi = 1.01 * (it + min(ot - it, max0(e - ie + 1) * L)) + e * bias + 2000 + stall * L
		judged = judge_time && (poll_time || name != "POLL")
		if (judged && (tn < lo || tn > hi)) why = why " time outside the bounds;"
		miss = ""
		if ($6 != "-" && a["i1", k] != "-" && a["i0", k] != "-" && a["o0", k] != "-" && a["o1", k] != "-") {
			ia = a["i1", k] - a["i0", k]; oa = a["o1", k] - a["o0", k]; ib = b["i1", k] - b["i0", k]; ob = b["o1", k] - b["o0", k]
			miss = sprintf(", miss %s/%s sysfs above %d..%d below %d..%d", $6, $7, ia, oa, ib, ob)
			if ($6 < ia - 1 || $6 > oa + 1 || $7 < ib - 1 || $7 > ob + 1) why = why " cpu_idle_miss outside [inner - 1, outer + 1];"
		}
		if (why != "") bad++
		if ($2 > 0) deep += e
		printf "%s %s: entries %d sysfs %d..%d, time %.3fms sysfs %.3f..%.3fms (%s [%.3f, %.3f]ms, max %.3fms)%s%s\n",
			why == "" ? "OK" : "BAD", at, e, ie, oe, tn / 1e6, it / 1e6, ot / 1e6,
			judged ? "bounds" : "shown, not judged:", lo / 1e6, hi / 1e6, L / 1e6, miss, why
		if ($8 != "-") {
			iu = u["i1", k] - u["i0", k]; ou = u["o1", k] - u["o0", k]; ir = r["i1", k] - r["i0", k]; orj = r["o1", k] - r["o0", k]
			fb = $8 < iu - 1 || $8 > ou + 1 || $9 < ir - 1 || $9 > orj + 1
			fxrows++; fxbad += fb; fxent += $8; fxrej += $9
			printf "%s %s: fx_entered %d sysfs usage %d..%d, fx_rejected %d sysfs rejected %d..%d\n",
				fb ? "FXBAD" : "FX", at, $8, iu, ou, $9, ir, orj
		}
	}
	END {
		for (k in keys) if (!(k in seen)) { printf "BAD cpu/state %s: in the sysfs snapshots, not in the report\n", k; bad++ }
		printf "SUM %d %d %d %d %d %d %d\n", rows, bad, deep, fxrows, fxbad, fxent, fxrej
	}' "$2.o0" "$2.i0" "$2.i1" "$2.o1" "$1"
}

# The groups of a topology level in sysfs, one CPU list per line, by first CPU
# (the files idlescope reads for --topology LEVEL; package and die by id).
sysfs_groups() { # level
	t=/sys/devices/system/cpu/cpu0/topology
	case $1 in
	core) f=core_cpus_list && [ -e "$t/$f" ] || f=thread_siblings_list ;;
	cluster) f=cluster_cpus_list ;;
	package) f=package_cpus_list && [ -e "$t/$f" ] || f=core_siblings_list ;;
	die) f=die_cpus_list ;;
	*) return 1 ;;
	esac
	# (one cat: busybox's read gets nothing from these binary attributes)
	cat /sys/devices/system/cpu/cpu[0-9]*/topology/"$f" 2>/dev/null | sort -t- -k1,1n -u
}

# One "G level id name cpus periods time_ns edge_idle_ns races idle_at_end"
# line per group of a record's JSON, "D duration_ns", "L level" per group
# block and "C ..." per CPU (jansson's 2-space indent: group keys at 8
# spaces). A group's own "level" key, where the JSON has one, wins over its
# block's.
# (jansson's 2-space indent: the groups array at 4 spaces, group keys at 8;
# the levels array beside it is skipped)
groups_of() { # json
	awk '
	function val(   v) { v = $0; sub(/^ *"[a-z_]*": /, "", v); sub(/,$/, "", v); gsub(/"/, "", v); return v }
	/^  "duration_ns": / { print "D", val() }
	/^  "groups": \{/ { g = 1; next }
	g && /^  [}]/ { g = 0 }
	g && /^    "level": / { level = val(); print "L", level }
	g && /^    "groups": \[/ { ga = 1 }
	g && /^    [\]]/ { ga = 0 }
	ga && /^      \{/ { split("", f) }
	ga && /^        "[a-z_]*": / { k = $1; gsub(/[":]/, "", k); f[k] = val() }
	ga && /^      [}]/ { print "G", ("level" in f) ? f["level"] : level, f["id"], f["name"], f["cpus"], f["periods"], f["time_ns"], f["edge_idle_ns"], f["races"], f["idle_at_end"] }
	/^  "cpus": \[/ { c = 1; next }
	c && /^  \]/ { c = 0 }
	c && /^      "[a-z_]*": / { k = $1; gsub(/[":]/, "", k); f[k] = val() }
	c && /^    [}]/ { print "C cpu", f["cpu"], "entries", f["entries"], "idle_ns", f["idle_ns"], "edge_idle_ns", f["edge_idle_ns"], "unmatched_exits", f["unmatched_exits"], "idle_at_end", f["idle_at_end"] }
	' "$1"
}

# The group sections of a record's JSON against sysfs: per level in it, the
# groups are exactly sysfs_groups LEVEL; no group's all-idle time exceeds any
# member's idle time in sysfs between the snapshots /tmp/k0 and /tmp/k1, which
# enclose the run (each CPU woken before the second, so its period in flight
# is counted), within 2% + BIAS and 2 us per period; a group holding one of
# the CPUs in BUSY (CPUs that wake often) has all-idle time > 0. One awk per
# level (under TCG, a fork per group and member took a minute at 32 vCPUs).
# Adds each level judged to $judged_levels; leaves the parsed lines in
# /tmp/g.out.
judge_groups() { # json "busy cpus"
	groups_of "$1" >/tmp/g.out
	levels=$(sed -n 's/^G \([^ ]*\) .*/\1/p' /tmp/g.out | sort -u)
	for level in $levels; do
		judged_levels="$judged_levels $level"
		sysfs_groups "$level" >/tmp/g.sysfs
		awk -v level="$level" -v busy="$2" -v bias="$bias_ns" '
		function expand(l, out,   p, r, n, m, i, c, k) {
			split("", out); n = split(l, p, ",")
			for (i = 1; i <= n; i++) { m = split(p[i], r, "-"); for (c = r[1] + 0; c <= r[m] + 0; c++) out[++k] = c }
			return k
		}
		FILENAME == "/tmp/g.sysfs" { want[$0] = 1; nwant++; wants = wants " " $0; next }
		FILENAME == "/tmp/k0" { t0[$1] = $2; u0[$1] = $3; next }
		FILENAME == "/tmp/k1" { kt[$1] = ($2 - t0[$1]) * 1000; ku[$1] = $3 - u0[$1]; next }
		$1 == "D" { dur = $2 }
		$1 != "G" || $2 != level { next }
		{
			name = level " " $4; cpus = $5; gp = $6; gt = $7; n++
			printf "INFO %s (CPUs %s): %d all-idle periods, %d ms of %d ms, edge %d ms, idle_at_end %s, races %d\n",
				name, cpus, gp, gt / 1e6, dur / 1e6, $8 / 1e6, $10, $9
			if (!(cpus in want)) printf "FAIL %s: CPUs %s is not a sysfs %s (%s)\n", name, cpus, level, wants
			nm = expand(cpus, m); least = -1; bad = ""
			for (i = 1; i <= nm; i++) {
				c = m[i]; tol = 0.02 * kt[c] + bias * gp + 2000 * (ku[c] + 1)
				if (!(c in kt)) bad = bad sprintf(" cpu %d not in the snapshots;", c)
				else if (gt > kt[c] + tol)
					bad = bad sprintf(" all-idle %.3fms > cpu %d sysfs idle %.3fms + tol %.3fms;", gt / 1e6, c, kt[c] / 1e6, tol / 1e6)
				if (least < 0 || kt[c] < kt[least]) { least = c; ltol = tol }
			}
			if (bad != "") printf "FAIL %s:%s\n", name, bad
			else printf "OK %s all-idle %.3fms <= cpu %d sysfs idle %.3fms (%d periods) + tol %.3fms (the least idle of %d CPUs)\n",
				name, gt / 1e6, least, kt[least] / 1e6, ku[least], ltol / 1e6, nm
			nb = split(busy, b, " ")
			for (j = 1; j <= nb; j++) for (i = 1; i <= nm; i++) if (m[i] == b[j])
				printf "%s %s (CPU %d waking often): %s\n", (gt > 0 ? "OK" : "FAIL"), name, b[j], (gt > 0 ? "all-idle time > 0" : "no all-idle time")
		}
		END { printf "%s %s: %d groups, sysfs has %d\n", (n == nwant ? "OK" : "FAIL"), level, n, nwant }
		' /tmp/g.sysfs /tmp/k0 /tmp/k1 /tmp/g.out >/tmp/g.chk
		while read -r kind text; do
			case $kind in
			OK) ok "$text" ;;
			FAIL) fail "$text" ;;
			*) echo "$kind $text" ;;
			esac
		done </tmp/g.chk
	done
}

# The cluster section against the guest's own topology and cpuidle counters.
# The last CPU spins for the whole run (one CPU: under TCG each spinning vCPU
# costs a host CPU), so the last cluster is never all idle although its other
# CPUs mostly are. The first cluster is idle but for its last CPU waking every
# 20 ms: without it, a quiet NOHZ guest can keep both CPUs idle through the
# whole window, one interval still going on at its end (edge_idle_ns only). Oracles: sysfs shows WANT clusters of 2+ CPUs, and
# judge_groups: idlescope's groups are exactly those, none idle longer than a
# member, the idle cluster's all-idle time > 0. --fail-if asserts the two
# shares inside idlescope too (exit 3 if either holds).
check_clusters() { # expected number of clusters
	want=$1 topo=/sys/devices/system/cpu pids=''
	for c in "$topo"/cpu[0-9]*; do
		t=$c/topology
		echo "INFO topology ${c##*/}: package $(cat "$t/physical_package_id" 2>/dev/null || echo ?)," \
			"cluster_id $(cat "$t/cluster_id" 2>/dev/null || echo ?), cluster_cpus_list $(cat "$t/cluster_cpus_list" 2>/dev/null || echo ?)"
	done
	lists=$(sysfs_groups cluster)
	n=$(echo "$lists" | grep -c '[-,]')
	ids=$(cat "$topo"/cpu[0-9]*/topology/cluster_id 2>/dev/null | sort -u | grep -c .)
	if [ "$n" = "$want" ] && [ "$(echo "$lists" | grep -c .)" = "$want" ] && [ "$ids" = "$want" ]; then
		ok "sysfs topology: $want clusters ($(echo "$lists" | paste -sd' ' -)), $ids cluster_id values"
	else
		fail "sysfs topology: want $want clusters of 2+ CPUs, have lists '$(echo "$lists" | paste -sd' ' -)', $ids cluster_id values"
		return
	fi
	idle=$(echo "$lists" | head -1)
	busy=$(echo "$lists" | tail -1)

	spin=$(cpus_of "$busy" | tail -1)
	taskset -c "$spin" sh -c 'while :; do :; done' &
	pids="$pids $!"
	tick=$(cpus_of "$idle" | tail -1)
	taskset -c "$tick" sh -c 'while :; do usleep 20000; done' &
	pids="$pids $!"
	usleep 300000
	for attempt in 1 2; do
		cpuidle_snapshot >/tmp/k0
		t0=$(up)
		idlescope record -d 3 --topology cluster --format json -o /tmp/g.json \
			--fail-if 'cluster[0].idle_share <= 0' --fail-if "cluster[$((want - 1))].idle_share > 1%" 2>/tmp/g.err
		rc=$?
		for c in $(cpus_of "$(cat "$topo/online")"); do taskset -c "$c" true; done
		cpuidle_snapshot >/tmp/k1
		# The fault section 2 retries (arm64 guests, multi-threaded TCG): a
		# record whose BPF side counted no idle period on any CPU while CPU
		# $tick woke every 20 ms. Once more, shown; its numbers are judged.
		periods=$(groups_of /tmp/g.json | awk '$1 == "C" { n += $5 + $11 } END { print n + 0 }')
		if [ "$periods" != 0 ] || [ "$poll_time" = 1 ] || [ "$attempt" = 2 ]; then
			break
		fi
		echo "INFO record --topology cluster: BPF counted no idle period on any CPU (exit $rc); attempt 2"
		indent /tmp/g.err
	done
	# shellcheck disable=SC2086 # a list of pids
	kill $pids
	wait
	echo "INFO record --topology cluster (CPU $spin spinning, CPU $tick waking every 20 ms): exit $rc in $(since "$t0"), stderr:"
	indent /tmp/g.err
	case $rc in
	0) ok "record --topology cluster exit 0 (no --fail-if held)" ;;
	3) fail "record --topology cluster: a --fail-if held: $(grep -i 'fail-if\|held' /tmp/g.err | paste -sd';' -)" ;;
	*) fail "record --topology cluster exit $rc" ;;
	esac
	judged_levels=
	judge_groups /tmp/g.json "$tick"
	echo "INFO per CPU in that run:"
	sed -n 's/^C //p' /tmp/g.out | indent
	case $judged_levels in
	" cluster") ok "groups: level cluster" ;;
	*) fail "groups: levels '$judged_levels' (want cluster)" ;;
	esac
}

# --- many CPUs (issue 13): a guest booted with -smp vmtest_many --------------
# run.sh boots SERIES@SMP guests (default 6.12@32,sockets=2,cores=8,threads=2)
# with vmtest_many=SMP; they run this section instead of the others (each of
# those would take several times longer at 32 vCPUs under TCG). Checks: sysfs
# has the packages, dies and cores -smp asked for; then, under a light load
# (the second CPU of each package waking every 2 ms), one record per
# topology level of many_levels (die and cluster only where their sysfs
# groups differ from the levels before them), each with a 3 s command as its
# window, between two cpuidle snapshots: exit 0 and the groups against sysfs
# (judge_groups); the first also the kernel cross-check (judge_verdict).
# Each record prints a "VMTEST-FIGURE:" line (docs/performance.md, "Many
# CPUs"): start-up (exec to the window's start, which the command stamps), how
# long record ran on after the window, the snapshot time, record's peak RSS
# over the run (busybox time -v), its VmRSS and VmHWM at the window's start,
# and the memlock of its BPF maps and programs (/proc/PID/fdinfo of record
# during the window). Then top's group rows against their CPUs' under the same
# load (check_many_top); with vmtest_only=top (make vmtest-top64) that alone.
# Once record shows every level in one run (a "level" per group), level_opts
# prints nothing: the first record covers every level and the loop records
# nothing more.
many_levels="core package die cluster"
# The record options that show a level's groups: the default tree has every
# level sysfs describes (the first record judges them all; a level it left
# out as equal to another is skipped below as "the same groups").
level_opts() { echo "--topology sysfs"; }

# The number of groups of a level that vmtest_many (QEMU's -smp) asks for;
# empty when it does not say.
smp_groups() { # level
	echo "$vmtest_many" | awk -F, -v l="$1" '
	{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
	END { s = v["sockets"]; d = v["dies"] ? v["dies"] : 1; c = v["cores"]
		if (l == "package" && s) print s
		if (l == "die" && s) print s * d
		if (l == "core" && s && c) print s * d * c }'
}

# A record's JSON against the script's own snapshots /tmp/NAME.o0 .i0 .i1 .o1
# (many_record takes them): every CPU and state between the inner and outer
# deltas (snap_judge), no slack beyond its allowances. (It once judged
# record's own kernel_check rows, with a deficit of up to 16 entries allowed
# under TCG for 4 of 17 records at 32 vCPUs whose cause was not found: there
# the kernel's delta came from record's own snapshots, each 143-193 ms of
# reads at 32 vCPUs, on either side of the window.) record's own verdict is
# shown. Sets verdict_msg.
judge_verdict() { # json what
	jf=$1
	v=$(sed -n '/"kernel_check": {/,/"verdict"/s/^ *"verdict": "\(.*\)",*$/\1/p' "$1")
	bpf_rows_json "$1" >/tmp/v.rows
	snap_judge /tmp/v.rows "${1%.json}" >/tmp/v.out
	# shellcheck disable=SC2046 # rows bad deep fxrows fxbad ...
	set -- "$2" $(sed -n 's/^SUM //p' /tmp/v.out)
	echo "INFO $1: per CPU and state against the script's own sysfs snapshots (record's own verdict '$v'):"
	grep -v '^SUM' /tmp/v.out | indent
	# record's own rows where its sysfs delta (its snapshots, around its
	# window) exceeds BPF's count: shown beside the script's, where the
	# deficit once allowed here came from
	echo "INFO $1: record's own kernel_check rows whose kernel count exceeds BPF's (shown, not judged):"
	awk 'function val(   v) { v = $0; sub(/^ *"[a-z_]*": /, "", v); sub(/,$/, "", v); gsub(/"/, "", v); return v }
	function key(   k) { k = $1; gsub(/[":]/, "", k); return k }
	/^  "kernel_check": \{/ { k = 1 }
	k && /^  [}]/ { k = 0 }
	k && /^      \{/ { split("", r) }
	k && /^        "[a-z_]*": \{/ { sect = key() }
	k && /^        "[a-z_]*": [^{]/ { r[key()] = val() }
	k && /^          "[a-z_]*": / { r[sect "." key()] = val() }
	k && /^      [}]/ && r["cpu"] != "all" && r["entries_diff"] < 0 {
		printf "cpu %s state %s: bpf %s, its kernel usage+rejected %d (diff %s, allowed %s, edge_exits %s), time bpf %s kernel %s\n",
			r["cpu"], r["state"], r["bpf.entries"], r["kernel.usage"] + r["kernel.rejected"], r["entries_diff"],
			r["entries_allowed"], r["edge_exits"], r["bpf.time_ns"], r["kernel.time_ns"] }' "$jf" | indent
	if [ "${2:-0}" -gt 0 ] && [ "${3:-1}" = 0 ] && [ "${6:-1}" = 0 ]; then
		verdict_msg="$1: all $2 CPU/state rows between the sysfs snapshots inside and around the window (fexit: ${5:-0} rows)"
		return 0
	fi
	verdict_msg="$1: ${3:-?} of ${2:-0} rows outside the sysfs snapshots, ${6:-?} fexit rows off (record's own verdict '$v')"
	return 1
}

# One record under the workload between two cpuidle snapshots (/tmp/k0,
# /tmp/k1), timed by busybox time, with /tmp/probe.sh as its command:
# /tmp/NAME.json, .err, and one VMTEST-FIGURE line. Sets rec_rc.
many_record() { # name seconds record-options...
	rn=$1 secs=$2
	shift 2
	rm -f "/tmp/$rn.ws" "/tmp/$rn.we" "/tmp/$rn.mem" "/tmp/$rn.i0" "/tmp/$rn.i1"
	cpuidle_snapshot >/tmp/k0
	sh /tmp/snap.sh >"/tmp/$rn.o0"
	t0=$(up)
	busybox time -v -o "/tmp/$rn.time" idlescope record "$@" --format json -o "/tmp/$rn.json" -- \
		sh /tmp/probe.sh "$rn" "$secs" 2>"/tmp/$rn.err"
	rec_rc=$?
	t1=$(up)
	sh /tmp/snap.sh >"/tmp/$rn.o1"
	for c in $(cpus_of "$(cat /sys/devices/system/cpu/online)"); do taskset -c "$c" true; done
	cpuidle_snapshot >/tmp/k1
	echo "INFO record $* ($rn): exit $rec_rc in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1fs", b - a }'), stderr:"
	indent "/tmp/$rn.err"
	if [ "$rec_rc" = 0 ] && grep -q '"schema": "idlescope/1"' "/tmp/$rn.json"; then
		ok "record $* exit 0, JSON written"
	else
		fail "record $* exit $rec_rc"
		echo '{}' >"/tmp/$rn.json"
	fi
	# window start and end from the command's stamps; memory in KiB. The
	# peak RSS of the whole run is the kernel's ru_maxrss, which busybox
	# time prints 4x too large (it converts it as pages, like GNU time 1.7).
	ws=$(cat "/tmp/$rn.ws" 2>/dev/null) we=$(cat "/tmp/$rn.we" 2>/dev/null)
	rss=$(sed -n 's/.*Maximum resident set size (kbytes): *\([0-9]*\)$/\1/p' "/tmp/$rn.time")
	snap=$(sed -n 's/^  "snapshot_ns": \([0-9]*\),*$/\1/p' "/tmp/$rn.json")
	echo "VMTEST-FIGURE: cpus=$ncpus run=$rn kernel=$kver" \
		"startup_s=$(awk -v a="$t0" -v b="${ws:-0}" 'BEGIN { printf "%.2f", b - a }')" \
		"after_window_s=$(awk -v a="${we:-0}" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')" \
		"snapshot_ms=$(awk -v s="${snap:-0}" 'BEGIN { printf "%.1f", s / 1e6 }')" \
		"peak_rss_kib=$((${rss:-0} / 4)) $(paste -sd' ' "/tmp/$rn.mem")"
}

# idlescope top's group rows against their CPUs' (issue 22): a group is busy
# only while one of its CPUs is, so each row lies between its busiest CPU's
# busy % and the sum of its CPUs' (at most 100), to the figures' rounding
# (0.05 each) plus SLACK points. $1 top's plain blocks, $2 "NAME CPULIST" per
# group. Prints one line per row outside the bounds ("(within slack)" if
# inside them with SLACK) and "SUM intervals rows outside outside-the-slack
# worst-excess".
top_group_bounds() { # top.out groups.map slack
	awk -v slack="${3:-0}" '
	function expand(name, list,   n, i, r, c, k, p) {
		n = split(list, p, ",")
		for (i = 1; i <= n; i++) {
			k = split(p[i], r, "-")
			for (c = r[1] + 0; c <= r[k] + 0; c++) member[name, c] = 1
		}
	}
	function judge(   g, c, mx, sm, m, lo, hi, x) {
		for (g in gbusy) {
			mx = 0; sm = 0; m = 0
			for (c in cbusy)
				if ((g, c) in member) { m++; sm += cbusy[c]; if (cbusy[c] > mx) mx = cbusy[c] }
			if (!m) { print "interval " n ": " g " has no CPU rows"; bad++; hard++; continue }
			rows++
			lo = mx - 0.1; hi = (sm > 100 ? 100 : sm) + 0.05 * (m + 1)
			x = gbusy[g] < lo ? lo - gbusy[g] : gbusy[g] > hi ? gbusy[g] - hi : 0
			if (x > 0) {
				bad++
				hard += (x > slack)
				if (x > worst) worst = x
				printf "interval %d: %s busy %.1f%%, its %d CPUs: busiest %.1f%%, sum %.1f%%%s\n", n, g,
					gbusy[g], m, mx, sm, (x > slack ? "" : " (within slack)")
			}
		}
		split("", gbusy); split("", cbusy)
	}
	FNR == NR { expand($1, $2); next }
	/^idlescope top: / { if (n) judge(); n++; table = 0; next }
	/^CPU / { table = 1; next }
	table && $1 ~ /^[0-9]+$/ && $2 ~ /^[0-9.]+$/ { cbusy[$1] = $2; next }
	table && $1 ~ /^[a-z-]+[0-9]+$/ && $2 ~ /^[0-9.]+$/ { gbusy[$1] = $2 }
	END { if (n) judge(); printf "SUM %d %d %d %d %.1f\n", n, rows, bad, hard, worst }' "$2" "$1"
}

# top under the light load, 6 one-second intervals: every group row of every
# interval within its CPUs' bounds (top_group_bounds), named as idlescope
# names them (a level's Nth distinct sysfs list in CPU order). Under TCG a
# slack of 0.5 points: a vCPU can stall inside an idle handler between its
# clock read and its first store, across top's cut, where no read sees it
# (at 64 vCPUs 0-2 of 272 rows per run, by up to 0.4 points beyond the
# rounding). One VMTEST-FIGURE line: intervals, rows judged, rows outside
# the rounding, outside the slack, worst excess.
check_many_top() {
	case ${vmtest_accel:-} in tcg*) slack=0.5 ;; *) slack=0 ;; esac
	for level in core cluster die package; do
		sysfs_groups "$level" | awk -v l="$level" 'NF { print l (n++) " " $1 }'
	done >/tmp/top.map
	t0=$(up)
	idlescope top -i 1 -d 6 </dev/null >/tmp/top.out 2>/tmp/top.err
	rc=$?
	echo "INFO top -i 1 -d 6: exit $rc in $(since "$t0"), stderr:"
	indent /tmp/top.err
	top_group_bounds /tmp/top.out /tmp/top.map "$slack" >/tmp/top.chk
	grep -v '^SUM' /tmp/top.chk | indent
	# shellcheck disable=SC2046 # intervals rows outside hard worst
	set -- $(sed -n 's/^SUM //p' /tmp/top.chk)
	echo "VMTEST-FIGURE: cpus=$ncpus run=top kernel=$kver intervals=${1:-0} group_rows=${2:-0}" \
		"outside=${3:-0} outside_slack=${4:-0} worst_pct=${5:-0}"
	if [ "$rc" = 0 ] && [ "${1:-0}" -ge 3 ] && [ "${2:-0}" -gt 0 ] && [ "${4:-1}" = 0 ]; then
		ok "top: all ${2} group rows of ${1} intervals between their busiest CPU and their CPUs' sum" \
			"(${3} by at most ${5} points, slack $slack)"
	else
		fail "top: exit $rc, ${4:-?} of ${2:-0} group rows of ${1:-0} intervals outside their CPUs' bounds by more than $slack points (worst ${5:-?})"
		sed -n '/^idlescope top/,$p' /tmp/top.out | head -120 | indent
	fi
}

check_many() {
	ncpus=0
	for c in /sys/devices/system/cpu/cpu[0-9]*; do [ -d "$c" ] && ncpus=$((ncpus + 1)); done
	echo "INFO many CPUs: -smp $vmtest_many, $ncpus CPUs online $(cat /sys/devices/system/cpu/online)"
	for level in $many_levels; do
		g=$(sysfs_groups "$level")
		want=$(smp_groups "$level")
		echo "INFO sysfs $level: $(echo "$g" | grep -c .) groups: $(echo "$g" | paste -sd' ' -)"
		[ -n "$want" ] || continue
		if [ "$(echo "$g" | grep -c .)" = "$want" ]; then
			ok "sysfs: $want ${level}s, as -smp $vmtest_many asked"
		else
			fail "sysfs: $(echo "$g" | grep -c .) ${level}s, -smp $vmtest_many asked for $want"
		fi
	done
	# The command of every record: stamps the window's start, reads record's
	# VmRSS and VmHWM and the memlock of its BPF map and program descriptors,
	# sleeps, stamps the window's end.
	cat >/tmp/probe.sh <<'EOF'
#!/bin/sh
# many_record's command: $1 the record's name, $2 seconds; the inner sysfs
# snapshots first and last
sh /tmp/snap.sh >"/tmp/$1.i0"
read -r t _ </proc/uptime
echo "$t" >"/tmp/$1.ws"
sed -n 's/^VmRSS:[^0-9]*\([0-9]*\) kB$/vmrss_window_kib=\1/p; s/^VmHWM:[^0-9]*\([0-9]*\) kB$/vmhwm_window_kib=\1/p' \
	"/proc/$PPID/status" >"/tmp/$1.mem"
awk 'FNR == 1 { kind = "" } /^map_type:/ { kind = "map" } /^prog_type:/ { kind = "prog" }
	/^memlock:/ && kind != "" { n[kind]++; kb[kind] += $2 / 1024 }
	END { printf "maps=%d map_memlock_kib=%d progs=%d prog_memlock_kib=%d\n", n["map"], kb["map"], n["prog"], kb["prog"] }' \
	"/proc/$PPID"/fdinfo/* >>"/tmp/$1.mem" </dev/null
sleep "$2"
read -r t _ </proc/uptime
echo "$t" >"/tmp/$1.we"
sh /tmp/snap.sh >"/tmp/$1.i1"
EOF
	# The light load: the second CPU of each package (the first where it is
	# alone) waits 2 ms at a time in read -t on a FIFO nobody writes, a shell
	# builtin: usleep forks, and under TCG at 32 vCPUs a fork took ~30 ms,
	# which made the load a heavy one (sysfs: CPU 1 idle 25% of the time).
	mkfifo /tmp/never
	busy='' pids=''
	for l in $(sysfs_groups package); do
		c=$(cpus_of "$l" | head -2 | tail -1)
		busy="$busy $c"
		taskset -c "$c" sh -c 'exec 3<>/tmp/never; while :; do read -t 0.002 -r _ <&3; done' &
		pids="$pids $!"
	done
	echo "INFO light load: CPUs$busy each waking every 2 ms"
	usleep 300000
	judged_levels='' seen='' first=1
	# vmtest_only=top (make vmtest-top64): the top check alone
	[ "${vmtest_only:-}" != top ] || many_levels=''
	for level in $many_levels; do
		g=$(sysfs_groups "$level" | paste -sd' ' -)
		case $level in
		die | cluster)
			case "$seen" in
			*"|$g|"*)
				echo "INFO $level: the same groups as a level before it ($g); not recorded on its own"
				continue
				;;
			esac
			;;
		esac
		seen="$seen|$g|"
		case " $judged_levels " in *" $level "*) continue ;; esac
		# shellcheck disable=SC2046 # the options, split
		many_record "$level" 3 $(level_opts "$level")
		if [ "$first" = 1 ]; then
			# one attempt: no retry absorbs a disagreement
			if judge_verdict "/tmp/$level.json" "record $(level_opts "$level")"; then
				ok "$verdict_msg"
			else
				fail "$verdict_msg"
			fi
			echo "INFO missing_events \"$(sed -n 's/^ *"missing_events": "\(.*\)",*$/\1/p' "/tmp/$level.json")\""
			first=0
		else
			echo "INFO record $(level_opts "$level"): kernel_check verdict" \
				"$(sed -n '/"kernel_check": {/,/"verdict"/s/^ *"verdict": "\(.*\)",*$/\1/p' "/tmp/$level.json")"
		fi
		judge_groups "/tmp/$level.json" "$busy"
		case " $judged_levels " in
		*" $level "*) ;;
		*) fail "record $(level_opts "$level"): no $level groups in its JSON" ;;
		esac
	done
	# (under TCG a failed run gets one more, tcg_retry: a CI run's 64-vCPU
	# guest failed this once where every local run had 0 rows outside)
	tcg_retry check_many_top
	# shellcheck disable=SC2086 # a list of pids
	kill $pids
	wait
}

kver=$(uname -r)
echo "INFO kernel $kver, $(idlescope --version 2>&1 | head -1)"
echo "INFO arch $(uname -m)"
cpuidle=/sys/devices/system/cpu/cpuidle
driver=$(cat $cpuidle/current_driver 2>/dev/null)
gov=$(cat $cpuidle/current_governor_ro 2>/dev/null || cat $cpuidle/current_governor 2>/dev/null)
echo "INFO cpuidle driver ${driver:-?}, governor ${gov:-?}, cpus online $(cat /sys/devices/system/cpu/online)"
# The kernel's idle time comes from local_clock(), BPF's from ktime: with an
# unstable sched_clock the two part by up to a tick per period.
echo "INFO clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null); kernel log on the clocks:"
dmesg 2>/dev/null | grep -i -E 'sched_clock|tsc|clocksource' | head -20 | indent
states=""
for s in /sys/devices/system/cpu/cpu0/cpuidle/state*; do
	[ -d "$s" ] || continue
	states="$states${states:+, }$(cat "$s/name") $(cat "$s/latency")/$(cat "$s/residency")us"
done
echo "INFO idle states ${states:-none} (name latency/residency)"

# vmtest_capture=SECONDS (tests/vm/capture-trace.sh): the guest's own ftrace
# text of the idle and wakeup events for that long, under a light load on
# one CPU of each cluster (one waking every 3 ms, one every 20 ms), gzipped
# and base64'd between markers with the state table and the clusters, then
# nothing else: a real trace for replay's fixtures.
if [ -n "${vmtest_capture:-}" ]; then
	tr=/sys/kernel/tracing
	[ -d $tr/events ] || tr=/sys/kernel/debug/tracing
	echo 0 >$tr/tracing_on
	echo 8192 >$tr/buffer_size_kb
	: >$tr/trace
	for e in power/cpu_idle sched/sched_wakeup irq/irq_handler_entry irq/softirq_entry \
		timer/hrtimer_expire_entry; do
		[ -e "$tr/events/$e/enable" ] && echo 1 >"$tr/events/$e/enable"
	done
	taskset -c 1 sh -c 'while :; do usleep 3000; done' &
	w1=$!
	taskset -c "$((ncpus - 1))" sh -c 'while :; do usleep 20000; done' &
	w2=$!
	usleep 300000
	echo 1 >$tr/tracing_on
	sleep "$vmtest_capture"
	echo 0 >$tr/tracing_on
	kill $w1 $w2
	echo "CAPTURE-CPUIDLE: $driver $gov"
	for s in /sys/devices/system/cpu/cpu0/cpuidle/state*; do
		echo "CAPTURE-STATE: $(cat "$s/name") $(cat "$s/latency") $(cat "$s/residency")"
	done
	for c in $(cpus_of "$(cat /sys/devices/system/cpu/online)"); do
		echo "CAPTURE-CLUSTER: $c $(cat /sys/devices/system/cpu/cpu$c/topology/cluster_cpus_list)"
	done
	echo "CAPTURE-BEGIN"
	grep -v '^#' $tr/trace | gzip -c | base64
	echo "CAPTURE-END"
	exit 0
fi
if [ -n "$driver" ] && [ "$driver" != none ] && [ -n "$states" ]; then
	ok "cpuidle driver $driver with states"
elif [ "$(uname -m)" = aarch64 ]; then
	fail "no cpuidle driver or states (did the device tree have idle-states?)"
else
	fail "no cpuidle driver or states (was the _CST SSDT installed?)"
fi
[ "$(uname -m)" != aarch64 ] || check_psci_idle
if [ -n "${vmtest_many:-}" ]; then
	check_many
	echo "INFO $fails failed checks"
	[ "$fails" = 0 ]
	exit
fi

# The workload: CPUs 1 and 2 each sleep 2 ms at a time, N rounds (600 are
# about 3.5 s under TCG, a little more than the -d 3 window).
cat >/tmp/wl.sh <<'EOF'
#!/bin/sh
for c in 1 2; do
	taskset -c "$c" sh -c 'i=0; while [ $i -lt "$1" ]; do usleep 2000; i=$((i + 1)); done' sh "$1" &
done
wait
EOF

t0=$(up)
sh /tmp/wl.sh 100
echo "INFO workload: 100 rounds in $(since "$t0") without idlescope"

# Kernel version as a number, 6.1 -> 601, for the events each kernel has.
kmaj=${kver%%.*}
kmin=${kver#*.}
kmin=${kmin%%[!0-9]*}
kv=$((kmaj * 100 + kmin))

# 1. record, JSON: exit status, events used and missing.
t0=$(up)
idlescope record -d 3 --format json -o /tmp/r.json -- sh /tmp/wl.sh 600 2>/tmp/r.err
rc=$?
echo "INFO record json: exit $rc in $(since "$t0"), stderr:"
indent /tmp/r.err
if [ "$rc" = 0 ]; then
	ok "record --format json exit 0"
else
	fail "record --format json exit $rc"
	# Show why: libbpf's log ends with the verifier's verdict on the failing program.
	idlescope record -v -d 1 --format json -o /dev/null 2>/tmp/v.err
	echo "INFO record -v -d 1: exit $?, $(wc -l </tmp/v.err) lines of libbpf log; the lines naming errors and the last 40:"
	grep -n -E '^(libbpf: .*(fail|error|-[0-9]+$)|idlescope:)' /tmp/v.err | head -40 | indent
	echo "  ..."
	tail -n 40 /tmp/v.err | indent
fi
if grep -q '"schema": "idlescope/1"' /tmp/r.json 2>/dev/null; then
	ok "record JSON written"
else
	fail "record JSON missing or without schema"
	echo '{}' >/tmp/r.json
	# Without a report there is nothing to say about the events.
	skip_events=1
fi
events=$(sed -n '/^  "events": {/,/^  }/p' /tmp/r.json | sed -n 's/^ *"\([a-z_]*\)": "\(.*\)",*$/\1 via \2/p' |
	paste -sd, - | sed 's/,/, /g')
missing=$(sed -n 's/^ *"missing_events": "\(.*\)",*$/\1/p' /tmp/r.json)
verdict=$(sed -n '/"kernel_check": {/,/"verdict"/s/^ *"verdict": "\(.*\)",*$/\1/p' /tmp/r.json)
echo "INFO events: $events"
if [ -n "${skip_events:-}" ]; then
	echo "INFO missing_events unknown (no report)"
else
	echo "INFO missing_events \"$missing\""
fi
echo "INFO kernel_check verdict: $verdict"
echo "INFO warnings:"
sed -n '/^  "warnings": \[/,/^  \]/s/^    "\(.*\)",*$/\1/p' /tmp/r.json | indent
# cpu_idle_miss came in 6.0 (Debian's 5.10 lacks it); ipi_send_cpu came in 6.4, and
# before that a warning and the fallback are expected, not an error.
check_events() {
	case ", $missing, " in
	*", cpu_idle_miss, "*) have_miss=0 ;;
	*) have_miss=1 ;;
	esac
	if [ "$kv" -lt 600 ]; then
		if [ "$have_miss" = 0 ]; then ok "cpu_idle_miss missing on $kver (6.0+)"; else fail "cpu_idle_miss attached on $kver"; fi
	elif [ "$have_miss" = 1 ]; then
		ok "cpu_idle_miss attached"
	else
		fail "cpu_idle_miss missing"
	fi
	case ", $missing, " in
	*", ipi_send_cpu, "*) have_ipi=0 ;;
	*) have_ipi=1 ;;
	esac
	if [ "$kv" -ge 604 ]; then
		if [ "$have_ipi" = 1 ]; then ok "ipi_send_cpu attached"; else fail "ipi_send_cpu missing"; fi
	elif [ "$have_ipi" = 0 ] && grep -q 'not on this kernel (skipped):.*ipi_send_cpu' /tmp/r.json; then
		ok "ipi_send_cpu reported missing on $kver, with a warning"
	else
		fail "ipi_send_cpu not reported missing on $kver"
	fi
}
[ -n "${skip_events:-}" ] || check_events

# 2. record, CSV: per CPU and state, BPF entries, time and cpu_idle_miss
# counts between the deltas of the script's own sysfs snapshots inside the
# window (taken by record's command) and around the process (snap_judge: the
# allowances and why). The window is the command's run (no -d: the inner
# snapshot at its end must lie inside the window). Under TCG (vmtest_accel,
# from the kernel command line) the time of POLL rows is shown, not judged:
# the single QEMU thread runs the other vCPUs whenever a host timer fires, and
# POLL is chosen just before a timer, so BPF's enter stamp, taken before its
# handler runs, is often a whole round of the other vCPUs earlier than the
# kernel's (measured: +0.1 to +0.6 ms per POLL period with wakeups and groups
# on, +3 us with --no-wakeups --topology none). (bias_ns, stall_periods and
# poll_time are set at the top.)
# Where fexit traces the cpuidle entry (section 5 says which), its counts in
# /tmp/r.csv: fexit counts at the end of each entry, where the kernel counts
# usage (the entered state) and rejected (the requested one): per CPU and
# state between the same snapshots' usage and rejected deltas (snap_judge's
# FX lines). Sets fx_good (1 also where no fexit is expected) and fx_summary.
fx_func=
for f in cpuidle_enter_state cpuidle_enter; do
	if grep -q "^$f\$" /sys/kernel/tracing/available_filter_functions 2>/dev/null; then
		fx_func=$f
		break
	fi
done
if [ "$(uname -m)" = x86_64 ] || [ "$kv" -ge 604 ]; then want_fx=1; else want_fx=0; fi
path_src=$(sed -n '/"idle_path": {/,/}/s/^ *"source": "\(.*\)",*$/\1/p' /tmp/r.json)
path_fn=$(sed -n '/"idle_path": {/,/}/s/^ *"function": "\(.*\)",*$/\1/p' /tmp/r.json)
judge_fexit() {
	fx_good=1 fx_summary=''
	[ "$want_fx" = 1 ] && [ -n "$fx_func" ] || return 0
	if [ "$fxrows" -gt 0 ] && [ "$fxbad" = 0 ] && [ "$fxent" -gt 0 ]; then
		fx_summary="$fxrows rows between the sysfs snapshots ($fxent entered, $fxrej rejected)"
	else
		fx_good=0 fx_summary="$fxbad of $fxrows rows outside the sysfs snapshots ($fxent entered)"
	fi
}

# One record between the snapshots /tmp/PREFIX.o0 .i0 .i1 .o1 (the inner two
# taken by its command) into /tmp/PREFIX.csv, judged: /tmp/PREFIX.out and
# the shell's rows nbad deep fxrows fxbad fxent fxrej csv_rc. judge_time=0
# leaves every row's time shown, not judged.
csv_record() { # prefix record-options...
	cp_=$1
	shift
	sh /tmp/snap.sh >"/tmp/$cp_.o0"
	t0=$(up)
	# shellcheck disable=SC2016 # the command's own $1
	idlescope record "$@" --format csv -o "/tmp/$cp_.csv" -- \
		sh -c 'sh /tmp/snap.sh >"$1.i0"; sh /tmp/wl.sh 600; sh /tmp/snap.sh >"$1.i1"' sh "/tmp/$cp_" 2>"/tmp/$cp_.err"
	csv_rc=$?
	sh /tmp/snap.sh >"/tmp/$cp_.o1"
	echo "INFO record ${*:+$* }csv: exit $csv_rc in $(since "$t0"), stderr:"
	indent "/tmp/$cp_.err"
	bpf_rows_csv "/tmp/$cp_.csv" >"/tmp/$cp_.rows"
	snap_judge "/tmp/$cp_.rows" "/tmp/$cp_" >"/tmp/$cp_.out"
	grep -v '^SUM' "/tmp/$cp_.out" | indent
	# shellcheck disable=SC2046 # rows bad deep fxrows fxbad fxent fxrej
	set -- $(sed -n 's/^SUM //p' "/tmp/$cp_.out")
	rows=${1:-0} nbad=${2:-1} deep=${3:-0} fxrows=${4:-0} fxbad=${5:-0} fxent=${6:-0} fxrej=${7:-0}
}

# One record, judged twice: this section's entries, time and misses, and
# section 5's fexit counts (both from /tmp/r.csv against /tmp/c.*). One
# attempt: a retry once absorbed the failure "BPF counted no deep period while
# sysfs counted hundreds" (one CI run in many; its cause not found); the
# inner snapshot now holds BPF to at least the kernel's own count inside the
# window, so such a run fails, with every row in the log.
# Under TCG its time is shown, not judged, and a second record with
# --no-wakeups is judged in full: what the default's enter handler runs
# after its stamp (the wake bookkeeping) happens before the kernel's own
# stamp, and under TCG that stretch is long and uneven (the vCPU emulated
# slowly, or held while QEMU's one thread runs the others).
# Measured in the 6.12 guest, C1 rows (the states the workload's CPUs enter
# between its forks), BPF beyond the kernel's inner time per period: default
# 129-444 us (4 records, 2 of them past the bound), --no-wakeups 3-5 us (4).
judge_time=$((1 - tcg))
csv_record c
judge_time=1
cp /tmp/c.csv /tmp/r.csv
echo "INFO record csv: record's own k_* columns (shown, not judged):"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next } $1 ~ /^[0-9]+$/ {
	printf "cpu %s state %s: entries %s k_usage+k_rejected %s, time_ns %s k_time_ns %s\n", $1, $2,
		$col["entries"], $col["k_usage"] + $col["k_rejected"], $col["time_ns"], $col["k_time_ns"] }' /tmp/r.csv | indent
judge_fexit
if [ "$csv_rc" = 0 ]; then ok "record --format csv exit 0"; else fail "record --format csv exit $csv_rc"; fi
if [ "$tcg" = 1 ]; then
	judged_what="entries and misses +-1; time judged in the --no-wakeups record"
else
	judged_what="entries and misses +-1, time 1% + ${bias_ns}ns/period"
fi
if [ "$rows" -gt 0 ] && [ "$nbad" = 0 ]; then
	ok "csv cross-check: $rows cpu/state rows between the sysfs snapshots inside and around the window ($judged_what)"
else
	fail "csv cross-check: $nbad of $rows rows outside the sysfs snapshots"
fi
deep_default=$deep
if [ "$tcg" = 1 ]; then
	csv_record cn --no-wakeups
	if [ "$csv_rc" = 0 ] && [ "$rows" -gt 0 ] && [ "$nbad" = 0 ]; then
		ok "csv cross-check --no-wakeups: $rows cpu/state rows, time too (1% + ${bias_ns}ns/period + $stall_periods longest; POLL shown)"
	else
		fail "csv cross-check --no-wakeups: exit $csv_rc, $nbad of $rows rows outside the sysfs snapshots"
	fi
fi
deep=$deep_default
if [ "$deep" -gt 0 ]; then ok "$deep idle periods in states above state 0"; else fail "no idle periods in states above state 0"; fi

# 3. hist residency, JSON.
t0=$(up)
idlescope hist residency -d 1 --format json >/tmp/h.json 2>/tmp/h.err
rc=$?
echo "INFO hist: exit $rc in $(since "$t0")"
if [ "$rc" = 0 ] && grep -q '"schema":"idlescope-hist/1"' /tmp/h.json && grep -q '"count":[1-9]' /tmp/h.json; then
	ok "hist residency --format json: $(grep -o '"count":[0-9]*' /tmp/h.json | head -1)"
else
	fail "hist residency --format json (exit $rc)"
	indent /tmp/h.err
fi

[ -z "${vmtest_clusters:-}" ] || check_clusters "$vmtest_clusters"
# --- portability (issue 5): info, the idle path, path-latency ---------------
# 4. info: what this kernel supports, as one line of JSON for the host's
# docs/compat.md generator (tests/vm/compat.sh).
if idlescope info --format json >/tmp/i.json 2>/tmp/i.err && grep -q '"schema": "idlescope-info/1"' /tmp/i.json; then
	ok "info --format json"
	echo "VMTEST-INFO: $(tr -d '\n' </tmp/i.json)"
else
	fail "info --format json"
	indent /tmp/i.err
fi
idlescope info | indent

# 5. The idle path record used: fexit where BPF may trace the cpuidle entry
# (x86_64; arm64 from 6.4, with ftrace direct calls), on the first of
# cpuidle_enter_state (noinstr since 6.3) and cpuidle_enter that ftrace lists;
# the tracepoints otherwise, with the reason in the JSON. The fexit counts
# were judged with section 2's record (judge_fexit).
echo "INFO idle path: ${path_src:-?} ${path_fn}; ftrace lists ${fx_func:-neither}"
if [ "$want_fx" = 1 ] && [ -n "$fx_func" ]; then
	if [ "$path_src" = fexit ] && [ "$path_fn" = "$fx_func" ]; then
		ok "record idle path: fexit on $fx_func"
	else
		fail "record idle path: ${path_src:-?} ${path_fn}, expected fexit on $fx_func"
	fi
	if [ "$fx_good" = 1 ]; then
		ok "fexit entered/rejected vs sysfs usage/rejected: $fx_summary"
	else
		fail "fexit entered/rejected vs sysfs usage/rejected: $fx_summary"
	fi
elif [ "$path_src" = tracepoint ]; then
	ok "record idle path: tracepoints where fexit cannot trace the cpuidle entry"
else
	fail "record idle path ${path_src:-?}: no fexit expected here"
fi
# The fallback on demand: the same record on the tracepoints, and why.
IDLESCOPE_NO_FEXIT=1 idlescope record -d 0.5 --no-wakeups --topology none --format json -o /tmp/nf.json 2>/dev/null
if grep -q '"source": "tracepoint"' /tmp/nf.json && grep -q '"fallback_reason": "IDLESCOPE_NO_FEXIT set"' /tmp/nf.json &&
	grep -q '"fx_entered": null' /tmp/nf.json; then
	ok "IDLESCOPE_NO_FEXIT: tracepoint path, reason in the JSON, no fx counts"
else
	fail "IDLESCOPE_NO_FEXIT fallback not reported"
fi

# 6. hist path-latency: the pairs it times are cpuidle entries. The command
# reads the sysfs counters inside the window, so pairs >= their delta; the
# rest are entries between the window's edges and the reads. In the 6.12 idle
# loop every cpuidle_enter() reaches cpuidle_enter_state(), which counts usage
# or rejected (its only other return, a failed tick_broadcast_enter() with no
# state free of CPUIDLE_FLAG_TIMER_STOP, needs local-timer-stop states, which
# no guest has), and a cpuidle_select() whose call_cpuidle() bails out on
# need_resched has no cpuidle_enter() and so no pair: pairs above the delta
# are edge entries only. The arm64 6.12 guest had 1143 pairs for 1035 entries
# while the reads forked cat and awk at each edge (a fork and exec wakes the
# other CPUs, and under TCG takes long): the counters are now read with shell
# builtins in the command's own shell, nothing forked at either edge.
# shellcheck disable=SC2016 # the script's own $1, $f, $v, $s
printf '%s\n' '#!/bin/sh' \
	'psum() {' \
	'	s=0' \
	'	for f in /sys/devices/system/cpu/cpu[0-9]*/cpuidle/state$1/usage /sys/devices/system/cpu/cpu[0-9]*/cpuidle/state$1/rejected; do' \
	'		read -r v <"$f" && s=$((s + v))' \
	'	done' \
	'	echo "$s" >"$2"' \
	'}' \
	'psum "$1" /tmp/p0' \
	'sh /tmp/wl.sh 150' \
	'psum "$1" /tmp/p1' >/tmp/pwin.sh
path_check() { # from to state-glob what
	rm -f /tmp/p0 /tmp/p1
	idlescope hist path-latency --from "$1" --to "$2" --format json -o /tmp/p.json -- \
		sh /tmp/pwin.sh "$3" 2>/tmp/p.err
	rc=$?
	n=$(grep -o '"count":[0-9]*' /tmp/p.json | head -1 | cut -d: -f2)
	d=$(($(cat /tmp/p1 2>/dev/null || echo 0) - $(cat /tmp/p0 2>/dev/null || echo 0)))
	slack=$((d / 20 + 40))
	echo "INFO path-latency $1 -> $2: exit $rc, ${n:-no} pairs, sysfs $4 delta $d; $(grep -o '"path":{[^}]*}' /tmp/p.json)"
	if [ "$rc" = 0 ] && [ -n "$n" ] && [ "$d" -gt 0 ] && [ "$n" -ge "$d" ] && [ "$n" -le $((d + slack)) ]; then
		ok "path-latency $1 -> $2: $n pairs, sysfs $4 $d (+$slack allowed for the edges)"
	else
		fail "path-latency $1 -> $2: ${n:-no} pairs vs sysfs $4 $d (exit $rc)"
		indent /tmp/p.err
		idlescope hist path-latency -v --from "$1" --to "$2" -d 0.5 -o /dev/null 2>&1 |
			grep -B 12 -E 'END PROG LOAD LOG|^idlescope:' | head -40 | indent
	fi
}
if [ "$want_fx" = 1 ]; then
	path_check cpuidle_select cpuidle_enter '[0-9]' "usage+rejected"
	# nested: acpi_idle_enter runs inside cpuidle_enter_state (states above POLL)
	if grep -q '^cpuidle_enter_state$' /sys/kernel/tracing/available_filter_functions &&
		grep -q '^acpi_idle_enter$' /sys/kernel/tracing/available_filter_functions; then
		path_check cpuidle_enter_state acpi_idle_enter '[1-9]' "usage+rejected above POLL"
	fi
else
	idlescope hist path-latency --from cpuidle_select --to cpuidle_enter -d 1 2>/tmp/p.err
	rc=$?
	if [ "$rc" = 1 ] && [ "$(wc -l </tmp/p.err)" = 1 ] && grep -q 'needs fentry' /tmp/p.err; then
		ok "path-latency refused in one line without fentry"
	else
		fail "path-latency without fentry: exit $rc, $(cat /tmp/p.err)"
	fi
fi
# --- end of portability ------------------------------------------------------

# --- descriptors (issue 11): record's files do not grow with CPUs x states --
# A 64-vCPU guest ran out of its 1024 descriptors while the cross-check kept 5
# sysfs counter files open per CPU and state. Oracle: /proc/PID/fd of record
# while its command runs (the command's parent), with every CPU and with -C 0:
# the difference stays under one per further CPU and state (the old files were
# 5 each). Then record under a soft limit of 64 below a higher hard one (it
# raises the soft limit to the hard one, as the libbpf tools do) and under a
# hard limit of the -C 0 count + 16 (nothing to raise: the other CPUs' states
# must need no descriptors), each with the cross-check's counters read (a
# verdict other than "unavailable": agreement is judged in section 2).
# shellcheck disable=SC2016 # the command's own $PPID
record_fds() { # record options...
	rm -f /tmp/fd.n
	idlescope record "$@" --format json -o /tmp/fd.json -- \
		sh -c 'ls /proc/$PPID/fd | wc -l >/tmp/fd.n' 2>/tmp/fd.err
	cat /tmp/fd.n 2>/dev/null || echo 0
}
check_fds() {
	ncpu=0 nst=0
	for c in /sys/devices/system/cpu/cpu[0-9]*; do [ -d "$c" ] && ncpu=$((ncpu + 1)); done
	for st in /sys/devices/system/cpu/cpu0/cpuidle/state[0-9]*; do [ -d "$st" ] && nst=$((nst + 1)); done
	all=$(record_fds)
	one=$(record_fds -C 0)
	echo "INFO descriptors of a running record: $all with $ncpu CPUs, $one with -C 0 ($nst states per CPU)"
	if [ "$one" -gt 0 ] && [ "$nst" -gt 0 ] && [ $((all - one)) -lt $((nst * (ncpu - 1))) ]; then
		ok "record's descriptors do not grow with CPUs x states ($all vs $one with -C 0)"
	else
		fail "record's descriptors: $all with $ncpu CPUs vs $one with -C 0, $nst states per CPU"
		indent /tmp/fd.err
	fi
	for lim in "-S -n 64" "-S -n $((one + 16)) -H -n $((one + 16))"; do
		# shellcheck disable=SC2086 # the ulimit options
		(ulimit $lim && idlescope record -d 1 --format json -o /tmp/fl.json) 2>/tmp/fl.err
		rc=$?
		v=$(sed -n '/"kernel_check": {/,/"verdict"/s/^ *"verdict": "\(.*\)",*$/\1/p' /tmp/fl.json 2>/dev/null)
		if [ "$rc" = 0 ] && [ -n "$v" ] && [ "$v" != unavailable ]; then
			ok "record under ulimit $lim: exit 0, cross-check verdict $v"
		else
			fail "record under ulimit $lim: exit $rc, cross-check verdict '${v:-none}'"
			indent /tmp/fl.err
		fi
		rm -f /tmp/fl.json
	done
}
check_fds
# --- end of descriptors ------------------------------------------------------

# --- hotplug (issue 7): CPU 3 offline for 1 s inside a record window -------
# The command reads CPU 3's sysfs usage+rejected per state, takes the CPU down,
# sleeps 1 s, brings it back and reads them again, all inside the window (the
# -- COMMAND form: the guest's BPF load takes seconds under TCG, so a -d window
# would start at an unknown time). Oracles: the shell's own clock around the
# two writes (the gap lies between the inner and the outer stamps; idlescope
# reads the online mask at each cpuhp_exit step, or where that event is
# missing polls it every 0.2 s, and places each edge halfway: within 0.2 s), the fixed 0.8..1.3 s of issue 7, 2 transitions, CPU 3's
# idle + edge + busy + offline = the window, no gap on the other CPUs, and
# CPU 3's BPF entries against the sysfs delta within 4 per state (the CSV
# check's allowance). x86_64 only (arm64 guests: PSCI CPU_OFF not exercised).
# shellcheck disable=SC2016 # the script written for the guest expands its own
check_hotplug() {
	printf '%s\n' '#!/bin/sh' 'c3=/sys/devices/system/cpu/cpu3' \
		'snap() {' \
		'	for st in $c3/cpuidle/state*; do' \
		'		echo "${st##*state} $(($(cat "$st/usage") + $(cat "$st/rejected" 2>/dev/null || echo 0)))"' \
		'	done' \
		'}' \
		'snap >/tmp/hp0' \
		'usleep 500000' \
		'a=$(cut -d" " -f1 /proc/uptime)' \
		'echo 0 >$c3/online || exit 10' \
		'b=$(cut -d" " -f1 /proc/uptime)' \
		'sleep 1' \
		'c=$(cut -d" " -f1 /proc/uptime)' \
		'echo 1 >$c3/online || exit 11' \
		'd=$(cut -d" " -f1 /proc/uptime)' \
		'echo "$a $b $c $d" >/tmp/hpt' \
		'usleep 500000' \
		'snap >/tmp/hp1' >/tmp/hp.sh
	rm -f /tmp/hp0 /tmp/hp1 /tmp/hpt
	idlescope record --format json -o /tmp/hp.json -- sh /tmp/hp.sh 2>/tmp/hp.err
	rc=$?
	[ "$(cat /sys/devices/system/cpu/cpu3/online)" = 1 ] || echo 1 >/sys/devices/system/cpu/cpu3/online
	echo "INFO hotplug record: exit $rc, stderr:"
	indent /tmp/hp.err
	if [ "$rc" = 0 ]; then ok "hotplug: record exit 0"; else fail "hotplug: record exit $rc"; return; fi
	# shellcheck disable=SC2046 # a b c d
	set -- $(cat /tmp/hpt)
	inner=$(awk -v b="$2" -v c="$3" 'BEGIN { printf "%d", (c - b) * 1e9 }')
	outer=$(awk -v a="$1" -v d="$4" 'BEGIN { printf "%d", (d - a) * 1e9 }')
	echo "INFO hotplug: shell stamps down $1..$2, up $3..$4: gap between $((inner / 1000000)) and $((outer / 1000000)) ms"
	# per CPU: cpu offline_ns hotplug_events idle edge busy, and CPU 3's
	# per-state entries (jansson's indentation: CPU fields 6 spaces, states' 10)
	awk '
	function out() { if (cpu != "") print "CPU", cpu, v["offline_ns"], v["hotplug_events"], v["idle_ns"], v["edge_idle_ns"], v["busy_ns"] }
	/^  "duration_ns": / { n = $2; gsub(/[^0-9]/, "", n); print "DUR", n }
	/^  "cpus": \[/ { in_cpus = 1; next }
	in_cpus && /^  \]/ { in_cpus = 0; out() }
	in_cpus && /^      "cpu": / { out(); cpu = $2; gsub(/[^0-9]/, "", cpu) }
	in_cpus && /^      "[a-z_]+": [0-9]/ { k = $1; gsub(/[":]/, "", k); n = $2; gsub(/[^0-9]/, "", n); v[k] = n }
	in_cpus && cpu == 3 && /^          "index": / { idx = $2; gsub(/[^0-9]/, "", idx) }
	in_cpus && cpu == 3 && /^          "entries": / { n = $2; gsub(/[^0-9]/, "", n); print "ST", idx, n }
	' /tmp/hp.json >/tmp/hp.vals
	indent /tmp/hp.vals
	dur=$(sed -n 's/^DUR //p' /tmp/hp.vals)
	# shellcheck disable=SC2046 # cpu offline events idle edge busy
	set -- $(grep '^CPU 3 ' /tmp/hp.vals)
	off=${3:-0} ev=${4:-0}
	echo "INFO hotplug: CPU 3 offline_ns $off, hotplug_events $ev, idle $5 + edge $6 + busy $7 + offline $off of $dur"
	# the oracle is the shell's own stamps around the 1 s sleep (under a
	# loaded TCG host the sleep itself ran 1.06-1.21 s and offline 1.31 s)
	if [ "$off" -ge $((inner - 200000000)) ] && [ "$off" -le $((outer + 200000000)) ]; then
		ok "hotplug: CPU 3 offline $((off / 1000000)) ms (shell: $((inner / 1000000))..$((outer / 1000000)) ms, poll 0.2 s)"
	else
		fail "hotplug: CPU 3 offline_ns $off outside the shell's $inner..$outer +-0.2 s"
	fi
	if [ "$ev" = 2 ]; then ok "hotplug: CPU 3 hotplug_events 2"; else fail "hotplug: CPU 3 hotplug_events $ev, want 2"; fi
	sum=$((${5:-0} + ${6:-0} + ${7:-0} + off))
	# busy may be 0 only where the polled offline estimate gave way to
	# measured idle time (metrics.md, CPU hotplug): the sum still equals the window
	if [ "$sum" = "$dur" ]; then
		ok "hotplug: CPU 3 idle + edge + busy + offline = the window ($dur ns)"
	else
		fail "hotplug: CPU 3 idle + edge + busy + offline $sum != window $dur (busy ${7:-?})"
	fi
	# a period that began before the window counts whole at its exit, like
	# the kernel's usage (metrics.md): idle may then pass the window, busy 0
	others=$(awk -v d="$dur" '$1 == "CPU" && $2 != 3 && ($3 != 0 || $4 != 0 ||
		($5 + $6 + $7 != d && !($7 == 0 && $5 + $6 > d))) { print $2 }' /tmp/hp.vals | paste -sd' ' -)
	if [ -z "$others" ] && [ "$(grep -c '^CPU ' /tmp/hp.vals)" = 4 ]; then
		ok "hotplug: CPUs 0-2 no offline time, idle + edge + busy = the window"
	else
		fail "hotplug: other CPUs affected: ${others:-wrong CPU count}"
	fi
	if grep -q '"CPU 3 was offline for [0-9.]* s (1 time) during the window"' /tmp/hp.json; then
		ok "hotplug: warning in the report"
	else
		fail "hotplug: no 'CPU 3 was offline' warning"
	fi
	echo "INFO hotplug: warnings:"
	sed -n '/^  "warnings": \[/,/^  \]/s/^    "\(.*\)",*$/\1/p' /tmp/hp.json | indent
	echo "INFO hotplug: sysfs cpu3 usage+rejected before: $(paste -sd' ' /tmp/hp0 2>/dev/null), after: $(paste -sd' ' /tmp/hp1 2>/dev/null)"
	# The shell's reads lie inside the window: BPF counted at least their
	# delta (less a period ending right at a read).
	bad=$(awk 'FILENAME == "/tmp/hp0" { a[$1] = $2; next } FILENAME == "/tmp/hp1" { b[$1] = $2; next }
		$1 == "ST" { n++; d = b[$2] - a[$2]
			printf "state %s: bpf %d sysfs %d; ", $2, $3, d > "/dev/stderr"; if (!($2 in b) || $3 < d - 2) print $2 }
		END { if (!n) print "none" }' /tmp/hp0 /tmp/hp1 /tmp/hp.vals 2>/tmp/hp.cmp | paste -sd' ' -)
	echo "INFO hotplug: CPU 3 entries vs the shell's sysfs delta inside the window: $(cat /tmp/hp.cmp)"
	if [ -z "$bad" ]; then ok "hotplug: CPU 3 entries >= the shell's sysfs delta per state"; else fail "hotplug: CPU 3 states below sysfs: $bad"; fi
	# The cross-check at the window's edges (idlescope's reads of the same
	# sysfs files, as in the CSV check): CPU 3's counters survived (acpi_idle
	# re-enables the same device) and every row agrees; state 1 only from
	# below (cpuidle paused while CPU 3 came up: default-idle periods).
	# (every field of the row, the nested ones as bpf.time_ns and so on: a
	# row that was not ok once showed only its entries, which were)
	awk '/^  "kernel_check": \{/ { k = 1 } k && /^      \{/ { c = "all" } k && /^        "cpu": / { c = $2 ~ /null|all/ ? "all" : $2 + 0 }
		k && /^        "state": / { st = $2 + 0 }
		k && /^        "[a-z_]*": \{/ { sect = $1; gsub(/[":]/, "", sect) }
		k && /^        "(entries_diff|entries_allowed|edge_exits|lower_bound_only|time_diff_ns|ok)": / {
			x = $1; gsub(/[":]/, "", x); v = $2; gsub(/,/, "", v); r[c " state " st] = r[c " state " st] " " x " " v }
		k && /^          "[a-z_]*": / {
			x = $1; gsub(/[":]/, "", x); v = $2; gsub(/,/, "", v); r[c " state " st] = r[c " state " st] " " sect "." x " " v }
		k && /^  }/ { k = 0 } END { for (s in r) print "KC cpu " s ":" r[s] }' /tmp/hp.json | sort >/tmp/hp.kc
	indent /tmp/hp.kc
	# (the verdict also weighs the fexit counts, judged in section 5)
	echo "INFO hotplug: kernel_check verdict $(sed -n '/"kernel_check": {/,/"verdict"/s/^ *"verdict": "\(.*\)",*$/\1/p' /tmp/hp.json)"
	n3=$(grep -c '^KC cpu 3 state' /tmp/hp.kc)
	if [ "$n3" -gt 0 ] && [ "$(grep '^KC cpu 3 state' /tmp/hp.kc | grep -c 'ok true')" = "$n3" ]; then
		ok "hotplug: CPU 3's $n3 kernel_check rows agree with its sysfs counters (entries and time)"
	else
		fail "hotplug: CPU 3 kernel_check rows: $(grep '^KC cpu 3 state' /tmp/hp.kc | paste -sd';' -)"
	fi
}
if [ "$(uname -m)" = x86_64 ] && [ -w /sys/devices/system/cpu/cpu3/online ]; then
	# (a 6.1 guest's CPU 3 once had a kernel_check row not ok whose
	# entries agreed; its other fields were not shown then)
	tcg_retry check_hotplug
else
	echo "INFO hotplug: skipped ($(uname -m), cpu3/online $([ -w /sys/devices/system/cpu/cpu3/online ] && echo writable || echo absent))"
fi
# --- end of hotplug ----------------------------------------------------------

echo "INFO $fails failed checks"
[ "$fails" = 0 ]
