#!/usr/bin/env bash
# The oracle coverage table at the end of make test (tests/vm/README.md,
# "Oracle guests"): every BATS test tagged "oracle" (tests/bats), its result
# on the host and in each oracle guest (tests/vm/oracle.sh serial logs,
# "ORACLE-TAP: " and "ORACLE-RETRY: " lines); then one row per host condition
# (no driver, haltpoll driver and governor, acpi_idle, psci, many CPUs,
# cpufreq) saying where it ran, judged from the host's sysfs and the logs.
#
# Usage: coverage.sh [OPTIONS] HOST_TAP [GUEST_LOG...]
#   --since FILE       only inputs newer than FILE count (run.sh touches it when
#                      it starts); an older log is listed as ignored
#   --vm LOG           a tests/vm/run.sh serial log (guest-test.sh: psci,
#                      many CPUs); repeatable
#   --units FILE       run.sh's cmocka outputs, each after a line
#                      "== NAME exit STATUS" (cpufreq: replay_freq)
#   --host-sysfs DIR   the host's /sys/devices/system/cpu (tests use a fake)
#   --bats DIR         the BATS suite (default tests/bats)
#
# Verdicts, per check: FAIL if it failed anywhere (in a TCG guest, failed and
# its retry did not pass: a retry that skips is no pass), NOWHERE if it ran
# (not skipped) nowhere, else ok. Per condition: ok where it ran and a check
# of its kind passed, FAIL where it ran and only failed, "replay" (cpufreq
# only), else NOWHERE. A test that needs a cpuidle driver (or none) without
# the tags that run it in a guest is an error too ("untagged").
# Prints "coverage: ..." summaries and last
#   coverage total: N to count (N ran nowhere, N FAIL rows no other step counted, N conditions ran nowhere, N untagged)
# which run.sh adds to its failures: a FAIL on the host is counted from the
# host TAP and a FAIL in a guest whose VM failed (no "VMTEST-RESULT: 0", or a
# panic: run.sh's verdict) from oracle.sh's FAIL line, so only FAIL rows with
# neither are in the total; likewise a condition that only FAILed was counted
# by the step that ran it. Exits 1 if any row or condition is not ok/replay,
# or a test is untagged.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
usage='usage: coverage.sh [--since FILE] [--vm LOG]... [--units FILE] [--host-sysfs DIR] [--bats DIR] HOST_TAP [GUEST_LOG...]'
bats_dir=$root/tests/bats
sysfs=/sys/devices/system/cpu
since='' units=''
vms=()
while [ $# -gt 0 ]; do
	case $1 in
	--since | --vm | --units | --host-sysfs | --bats)
		[ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
		case $1 in
		--since) since=$2 ;;
		--vm) vms+=("$2") ;;
		--units) units=$2 ;;
		--host-sysfs) sysfs=$2 ;;
		--bats) bats_dir=$2 ;;
		esac
		shift 2
		;;
	--) shift; break ;;
	-*) echo "$usage" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] || { echo "$usage" >&2; exit 2; }
host=$1
shift
[ -z "$since" ] || [ -e "$since" ] || { echo "coverage.sh: no $since (--since)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
shopt -s nullglob

# Inputs of an earlier run never count: a file not newer than --since (or
# missing) is left out, and said so.
fresh() { # file
	if [ ! -r "$1" ]; then
		echo "coverage: ignored $1: not readable"
		return 1
	fi
	if [ -n "$since" ] && ! [ "$1" -nt "$since" ]; then
		echo "coverage: ignored $1: not written by this run (not newer than $since)"
		return 1
	fi
}

# Every test of the suite: "file<TAB>name<TAB>tags<TAB>class<TAB>why", class
# "driver" when it needs a cpuidle driver (calls require_cpuidle_driver, or a
# function of its file or of a *.bash helper that does, or reads a sysfs
# cpuidle counter), "nodriver" when it needs none (require_no_cpuidle_driver).
for f in "$bats_dir"/*.bats; do
	awk -v f="$(basename "$f" .bats)" '
	function word(s, w,   i, b, a) { # w in s as a whole word
		while ((i = index(s, w)) > 0) {
			b = i > 1 ? substr(s, i - 1, 1) : " "; a = substr(s, i + length(w), 1)
			if (b !~ /[A-Za-z0-9_]/ && a !~ /[A-Za-z0-9_]/) return 1
			s = substr(s, i + length(w))
		}
		return 0
	}
	function open(id, line,   rest) { # a body starts on this line
		cur = id; body[id] = ""; rest = line; sub(/^[^{]*\{/, "", rest)
		if (rest ~ /\}[ \t]*$/) { body[id] = rest; cur = "" } # one line
	}
	FNR == 1 { cur = ""; tags = ""; bats = FILENAME ~ /\.bats$/ }
	# (a line writing into a cpuidle tree builds a fake one: not a read)
	cur != "" { if (/^\}/) cur = ""; else if (!/^[ \t]*#/ && !/>[ \t]*"?[^ \t]*cpuidle\/state/) body[cur] = body[cur] "\n" $0; next }
	/^# bats test_tags=/ { tags = $0; sub(/^# bats test_tags=/, "", tags); gsub(/[ \t]/, "", tags); next }
	bats && /^@test "/ { n = $0; sub(/^@test "/, "", n); sub(/" *\{.*$/, "", n)
		nt++; name[nt] = n; ttags[nt] = tags; tags = ""; open("T" nt, $0); next }
	/^[A-Za-z_][A-Za-z0-9_]*\(\) *\{/ { fn = $0; sub(/\(.*/, "", fn); fns[fn] = 1; tags = ""; open("F" fn, $0); next }
	/^[^#]/ { tags = "" }
	END {
		cnt = "cpuidle/state[^/ \"]*/(usage|time|above|below|rejected)([^A-Za-z_]|$)"
		need["require_cpuidle_driver"] = "driver"; why["require_cpuidle_driver"] = "require_cpuidle_driver"
		need["require_no_cpuidle_driver"] = "nodriver"; why["require_no_cpuidle_driver"] = "require_no_cpuidle_driver"
		for (fn in fns) if (body["F" fn] ~ cnt && !(fn in need)) { need[fn] = "driver"; why[fn] = fn " (reads sysfs cpuidle counters)" }
		do { changed = 0
			for (fn in fns) if (!(fn in need)) for (g in need) if (word(body["F" fn], g)) {
				need[fn] = need[g]; why[fn] = fn " -> " why[g]; changed = 1; break }
		} while (changed)
		for (i = 1; i <= nt; i++) {
			b = body["T" i]; c = ""; w = ""
			if (b ~ cnt) { c = "driver"; w = "reads sysfs cpuidle counters" }
			for (g in need) if (word(b, g) && (c == "" || need[g] == "nodriver")) { c = need[g]; w = why[g] }
			print f "\t" name[i] "\t" ttags[i] "\t" c "\t" w
		}
	}' "$bats_dir"/*.bash "$f"
done >"$tmp/tests"
awk -F'\t' '("," $3 ",") ~ /,oracle,/' "$tmp/tests" >"$tmp/checks"
dups=$(cut -f2 "$tmp/checks" | sort | uniq -d)
[ -z "$dups" ] || { echo "coverage.sh: oracle test names must be unique: $dups" >&2; exit 1; }
# a check that skips where the host lacks what it needs must run in a guest,
# which runs it by its tags: "oracle" (acpi_idle, haltpoll), "nodriver"
awk -F'\t' '{ t = "," $3 "," }
	$4 == "driver" && t !~ /,oracle,/ { print "untagged: " $1 ".bats: " $2 ": needs a cpuidle driver (" $5 ") but is not tagged oracle" }
	$4 == "nodriver" && (t !~ /,oracle,/ || t !~ /,nodriver,/) { print "untagged: " $1 ".bats: " $2 ": needs no cpuidle driver (" $5 ") but is not tagged oracle,nodriver" }' \
	"$tmp/tests" >"$tmp/untagged"

# TAP -> "name<TAB>result" (ok, skip: reason, FAIL)
tap_results() {
	tr -d '\r' | sed -n 's/^ORACLE-TAP: //; /^\(not \)\{0,1\}ok [0-9]/p' | awk '
		{ ok = ($1 == "ok"); sub(/^(not )?ok [0-9]+ /, "")
		  r = ok ? "ok" : "FAIL"
		  if (ok && match($0, / # skip( .*)?$/)) {
			why = substr($0, RSTART + 8)
			r = "skip" (why != "" ? ": " why : ""); $0 = substr($0, 1, RSTART - 1) }
		  print $0 "\t" r }'
}
# run.sh's verdict on a serial log (tests/vm/run.sh verdict()): failed when it
# shows a panic or has no "VMTEST-RESULT: 0" as its last result
vm_failed() { # log
	local res
	grep -q -a -E 'Kernel panic|Oops|BUG:|general protection fault' "$1" && return 0
	res=$(tr -d '\r' <"$1" | sed -n 's/^VMTEST-RESULT: \([0-9]*\)$/\1/p' | tail -1)
	[ "$res" != 0 ]
}
# "driver governor available-governors cmdline", split by \037 (a tab is
# whitespace to read: empty fields would vanish), of a guest's
# "INFO cpuidle driver X, governors A B, cmdline ..." (oracle-guest.sh) or
# "INFO cpuidle driver X, governor G, cpus online ..." (guest-test.sh) line
guest_cpuidle() { # log
	tr -d '\r' <"$1" | awk '/^INFO cpuidle driver / { l = $0; sub(/^INFO cpuidle driver /, "", l)
		d = l; sub(/,.*/, "", d); g = ""; a = ""; c = ""
		if (match(l, /, governor [^ ,]+/)) g = substr(l, RSTART + 11, RLENGTH - 11)
		if (match(l, /, governors [^,]*/)) a = substr(l, RSTART + 12, RLENGTH - 12)
		if (match(l, /, cmdline .*/)) c = substr(l, RSTART + 10)
		print d "\037" g "\037" a "\037" c; exit }'
}

cols=(host)
srcs=(host)
if fresh "$host"; then tap_results <"$host" >"$tmp/r0"; else : >"$tmp/r0"; fi
: >"$tmp/failed_vm0" # the host's failures are run.sh's (host TAP)
i=0
for g in "$@"; do
	fresh "$g" || continue
	i=$((i + 1))
	b=$(basename "$g" .log)
	cols+=("${b%%[-+]*}/${b##*-}") # 6.12.117+deb12-amd64-oracle -> 6.12.117/oracle
	srcs+=("$g")
	tap_results <"$g" >"$tmp/first"
	# a TCG guest's second run of a failed test (oracle-guest.sh): ok/retry
	# when it passed, the first failure is in the guest's log; a retry that
	# skipped or failed leaves it FAIL
	sed -n 's/^ORACLE-RETRY: //p' "$g" | sed 's/^/ORACLE-TAP: /' | tap_results >"$tmp/retry"
	# (FILENAME, not NR == FNR: the retry file is usually empty)
	awk -F'\t' -v retry="$tmp/retry" 'FILENAME == retry { if ($2 == "ok") again[$1] = 1; else bad[$1] = 1; next }
		{ print $1 "\t" ($2 == "FAIL" && ($1 in again) && !($1 in bad) ? "ok/retry" : $2) }' \
		"$tmp/retry" "$tmp/first" >"$tmp/r$i"
	if vm_failed "$g"; then echo 1; else echo 0; fi >"$tmp/failed_vm$i"
done

# one row per check: guests first (short cells), the host last (its skip reason)
awk -F'\t' -v n="$i" -v hdr="${cols[*]}" -v dir="$tmp" '
	BEGIN { split(hdr, h, " ")
		for (k = 0; k <= n; k++) {
			while ((getline l < (dir "/r" k)) > 0) { split(l, p, "\t"); res[k, p[1]] = p[2] }
			getline vmf[k] < (dir "/failed_vm" k) } }
	{ name = $1 ": " $2; ran = 0; bad = 0; counted = 0; row = ""
	  for (k = 0; k <= n; k++) {
		c = ((k, $2) in res) ? res[k, $2] : "-"
		if (c == "ok" || c == "ok/retry") ran = 1
		# counted elsewhere: the host TAP (k 0), a guest whose VM failed
		if (c == "FAIL") { bad = 1; if (k == 0 || vmf[k] == 1) counted = 1 }
		cell[k] = c }
	  v = bad ? "FAIL" : ran ? "ok" : "NOWHERE"
	  line = sprintf("%-7s %-64.64s", v, name)
	  for (k = 1; k <= n; k++) { c = cell[k]; sub(/:.*/, "", c); line = line sprintf(" %-16s", c) }
	  rows[++nr] = line "  " cell[0]
	  checks++; if (ran && !bad) okc++; if (!ran && !bad) nowhere++; if (bad) failed++; if (bad && !counted) uncounted++ }
	END {
	  line = sprintf("%-7s %-64s", "result", "oracle check (tests/bats file: test)")
	  for (k = 1; k <= n; k++) line = line sprintf(" %-16s", h[k + 1])
	  print line "  host"
	  for (r = 1; r <= nr; r++) print rows[r]
	  printf "coverage: %d checks, %d ran, %d ran nowhere, %d failed\n", checks, okc, nowhere, failed
	  printf "%d %d %d\n", nowhere, failed, uncounted > (dir "/check_counts") }' "$tmp/checks"
read -r c_nowhere c_failed c_uncounted <"$tmp/check_counts"

# --- host conditions ---------------------------------------------------------
# Each source's checks that passed or failed, by kind ("driver": needs a
# driver; "nodriver": needs none, or is tagged nodriver; any)
class_counts() { # results-file -> "ok_driver fail_driver ok_nodriver fail_nodriver ok_any"
	awk -F'\t' 'FILENAME == ARGV[1] { cls[$2] = $4 != "" ? $4 : ("," $3 ",") ~ /,nodriver,/ ? "nodriver" : ""; next }
		($1 in cls) { c = cls[$1]; if ($2 == "ok" || $2 == "ok/retry") { ok[c]++; any++ } else if ($2 == "FAIL") bad[c]++ }
		END { printf "%d %d %d %d %d\n", ok["driver"], bad["driver"], ok["nodriver"], bad["nodriver"], any }' "$tmp/checks" "$1"
}
# a condition's cell of a source: ok (a check of its kind passed there), FAIL
# (ran there, only failed), or nothing
declare -A cond_ok cond_fail
note() { # condition cell text
	case $2 in
	ok*) cond_ok[$1]+="${cond_ok[$1]:+; }$3" ;;
	FAIL*) cond_fail[$1]+="${cond_fail[$1]:+; }$3" ;;
	esac
}
cell() { # ok-count fail-count -> ok | FAIL | ''
	if [ "$1" -gt 0 ]; then echo ok; elif [ "$2" -gt 0 ]; then echo FAIL; fi
}
# the governor a guest ran: the line's own, else the one the kernel picks:
# cpuidle.governor= on the command line, else the driver's own (haltpoll's
# is haltpoll, cpuidle_register_driver), else the best rated available
# (menu 20, teo 19)
guest_governor() { # driver governor available cmdline
	local p
	if [ -n "$2" ]; then echo "$2"; return; fi
	p=$(printf '%s\n' "$4" | tr ' ' '\n' | sed -n 's/^cpuidle\.governor=//p' | tail -1)
	if [ -n "$p" ] && [[ " $3 " == *" $p "* ]]; then echo "$p"; return; fi
	if [ "$1" = haltpoll ] && [[ " $3 " == *" haltpoll "* ]]; then echo haltpoll; return; fi
	for p in menu teo; do [[ " $3 " != *" $p "* ]] || { echo "$p"; return; }; done
	echo '?'
}
judge_driver_source() { # label driver governor nstates(or '') ok_drv fail_drv ok_nodrv fail_nodrv
	local l=$1 d=$2 gv=$3 ns=$4 c
	if [ "$d" = none ]; then
		c=$(cell "$7" "$8")
		note nodriver "$c" "$l (driver none: $7 checks ok, $8 failed)"
		return
	fi
	c=$(cell "$5" "$6")
	[ -n "$c" ] || return 0
	local what="$l (driver $d, governor $gv: $5 checks ok, $6 failed)"
	case $d in
	haltpoll)
		note haltpoll "$c" "$what"
		[ "$gv" != haltpoll ] || note haltpollgov "$c" "$what"
		;;
	acpi_idle)
		if [[ $gv == menu || $gv == teo ]] && { [ -z "$ns" ] || [ "$ns" -ge 2 ]; }; then note acpi "$c" "$what"; fi
		;;
	psci_idle) note psci "$c" "$what" ;;
	esac
}

# the host: its own driver and governor, its TAP
hd=$(cat "$sysfs/cpuidle/current_driver" 2>/dev/null || echo none)
hg=$(cat "$sysfs/cpuidle/current_governor_ro" 2>/dev/null || cat "$sysfs/cpuidle/current_governor" 2>/dev/null || echo '?')
hs=0
for s in "$sysfs"/cpu0/cpuidle/state[0-9]*; do [ -d "$s" ] && hs=$((hs + 1)); done
hc=$({ tr ',' '\n' <"$sysfs/online"; } 2>/dev/null | awk -F- 'NF { n += (NF == 2 ? $2 - $1 + 1 : 1) } END { print n + 0 }')
read -r od fd on fn oa <<<"$(class_counts "$tmp/r0")"
judge_driver_source host "${hd:-none}" "$hg" "$hs" "$od" "$fd" "$on" "$fn"
[ "$hc" -lt 32 ] || note many "$(cell "$oa" 0)" "host ($hc CPUs online: $oa checks ok)"

# the oracle guests: their INFO line, their TAP
for ((k = 1; k <= i; k++)); do
	IFS=$'\037' read -r gd gg ga gc <<<"$(guest_cpuidle "${srcs[k]}")" || true
	[ -n "${gd:-}" ] || continue # no INFO line: nothing known of this guest
	read -r od fd on fn oa <<<"$(class_counts "$tmp/r$k")"
	judge_driver_source "$(basename "${srcs[k]}")" "$gd" "$(guest_governor "$gd" "$gg" "$ga" "$gc")" '' \
		"$od" "$fd" "$on" "$fn"
done

# the kernel VMs (tests/vm/run.sh, guest-test.sh): psci, many CPUs
for v in ${vms[@]+"${vms[@]}"}; do
	fresh "$v" || continue
	IFS=$'\037' read -r gd gg ga gc <<<"$(guest_cpuidle "$v")" || true
	many=$(tr -d '\r' <"$v" | sed -n 's/^INFO many CPUs: .*, \([0-9]*\) CPUs online.*/\1/p' | head -1)
	arch=$(tr -d '\r' <"$v" | sed -n 's/^INFO arch //p' | head -1)
	if vm_failed "$v"; then c=FAIL; r="VM failed"; else c=ok; r="VM passed"; fi
	b=$(basename "$v")
	[ "${gd:-}" != psci_idle ] || [ "$arch" != aarch64 ] || note psci "$c" "$b (driver psci_idle, $arch: $r)"
	[ "${many:-0}" -lt 32 ] || note many "$c" "$b ($many CPUs online: $r)"
done

# cpufreq: no live check (no cpufreq driver on either host kind or in any
# guest, and no test compares frequency residency with the kernel's
# cpufreq stats); the replay test alone, never shown as a live pass
freq=''
if [ -n "$units" ] && fresh "$units"; then
	freq=$(awk '/^== / { sec = $2; if (sec == "replay_freq") { seen = 1; rc = $4 } ; next }
		sec == "replay_freq" && /^\[  FAILED  \]/ { bad = 1 }
		sec == "replay_freq" && /^\[  PASSED  \] [1-9]/ { ok = 1 }
		END { if (seen) print (rc == "0" && ok && !bad) ? "replay" : "FAIL" }' "$units")
fi

conds=(nodriver haltpoll haltpollgov acpi psci many cpufreq)
declare -A title=(
	[nodriver]="no driver (default-idle path)"
	[haltpoll]="haltpoll driver (state name with a space)"
	[haltpollgov]="haltpoll governor (POLL under it)"
	[acpi]="acpi_idle (menu/teo, several states)"
	[psci]="psci (arm64)"
	[many]="many CPUs (32 vCPUs)"
	[cpufreq]="cpufreq (frequency residency)"
)
echo
printf '%-7s %-44s %s\n' result "host condition" "where it ran (evidence)"
n_ok=0 n_replay=0 n_nowhere=0 n_fail=0
for c in "${conds[@]}"; do
	if [ "$c" = cpufreq ]; then
		case $freq in
		replay) v=replay w="replay only: build/tests/replay_freq (tests/replay/freq_test.c) passed; no live check" ;;
		FAIL) v=FAIL w="replay_freq failed (counted with the unit tests); no live check" ;;
		*) v=NOWHERE w="- (no replay_freq result of this run; no live check)" ;;
		esac
	elif [ -n "${cond_ok[$c]:-}" ]; then
		v=ok w=${cond_ok[$c]}${cond_fail[$c]:+; FAIL in: ${cond_fail[$c]}}
	elif [ -n "${cond_fail[$c]:-}" ]; then
		v=FAIL w="FAIL in: ${cond_fail[$c]}"
	else
		v=NOWHERE w=-
	fi
	case $v in
	ok) n_ok=$((n_ok + 1)) ;; replay) n_replay=$((n_replay + 1)) ;;
	FAIL) n_fail=$((n_fail + 1)) ;; NOWHERE) n_nowhere=$((n_nowhere + 1)) ;;
	esac
	printf '%-7s %-44s %s\n' "$v" "${title[$c]}" "$w"
done
cat <<'EOF'
  (a condition ran on the host when its sysfs shows it (current_driver,
  current_governor[_ro], states, online CPUs) and a check of its kind passed
  there (needs a driver: require_cpuidle_driver; none: tag nodriver); in an
  oracle guest when its "INFO cpuidle driver" line shows it and a check of its
  kind passed (ok or ok/retry); psci and many CPUs also in a tests/vm/run.sh
  guest that passed. cpufreq has no live check anywhere here: "replay" means
  only the replay test of frequency residency passed, never a live pass.
  FAIL: ran only where it failed, counted by the step that ran it.)
EOF
printf 'coverage: %d conditions, %d ran, %d replay only, %d ran nowhere, %d failed\n' \
	"${#conds[@]}" "$n_ok" "$n_replay" "$n_nowhere" "$n_fail"
n_untagged=$(wc -l <"$tmp/untagged")
[ "$n_untagged" -eq 0 ] || { echo; sed 's/^/coverage: /' "$tmp/untagged"; }
total=$((c_nowhere + c_uncounted + n_nowhere + n_untagged))
echo "coverage total: $total to count ($c_nowhere ran nowhere, $c_uncounted FAIL rows no other step counted," \
	"$n_nowhere conditions ran nowhere, $n_untagged untagged)"
[ $((c_nowhere + c_failed + n_nowhere + n_fail + n_untagged)) -eq 0 ]
