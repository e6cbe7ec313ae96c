#!/usr/bin/env bash
# The oracle coverage table at the end of make test: every BATS test tagged
# "oracle" (tests/bats), its result on the host and in each oracle guest
# (tests/vm/oracle.sh serial logs, "ORACLE-TAP: " lines). A check that ran
# nowhere (skipped or absent on the host and in every guest) fails; so does
# one that failed anywhere.
# Usage: coverage.sh HOST_TAP [GUEST_LOG...]
# Prints the table, then "coverage: N checks, N ran, N ran nowhere, N failed";
# exits 1 if any check ran nowhere or failed.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
host=${1:?usage: coverage.sh HOST_TAP [GUEST_LOG...]}
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# "file<TAB>name" of each oracle test: the tag comment, then its @test line
for f in "$root"/tests/bats/*.bats; do
	awk -v f="$(basename "$f" .bats)" '
		/^# bats test_tags=/ { t = ($0 ~ /[=,]oracle(,|$)/); next }
		/^@test "/ { if (t) { n = $0; sub(/^@test "/, "", n); sub(/" *\{ *$/, "", n); print f "\t" n }; t = 0 }
		/^[^#]/ { t = 0 }' "$f"
done >"$tmp/checks"
dups=$(cut -f2 "$tmp/checks" | sort | uniq -d)
[ -z "$dups" ] || { echo "coverage.sh: oracle test names must be unique: $dups" >&2; exit 1; }

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
cols=(host)
tap_results <"$host" >"$tmp/r0"
i=0
for g in "$@"; do
	i=$((i + 1))
	b=$(basename "$g" .log)
	cols+=("${b%%[-+]*}/${b##*-}") # 6.12.117+deb12-amd64-oracle -> 6.12.117/oracle
	tap_results <"$g" >"$tmp/first"
	# a TCG guest's second run of a failed test (oracle-guest.sh): ok/retry
	# when it passed, the first failure is in the guest's log
	sed -n 's/^ORACLE-RETRY: //p' "$g" | sed 's/^/ORACLE-TAP: /' | tap_results >"$tmp/retry"
	# (FILENAME, not NR == FNR: the retry file is usually empty)
	awk -F'\t' -v retry="$tmp/retry" 'FILENAME == retry { if ($2 == "ok") again[$1] = 1; next }
		{ print $1 "\t" ($2 == "FAIL" && ($1 in again) ? "ok/retry" : $2) }' \
		"$tmp/retry" "$tmp/first" >"$tmp/r$i"
done

# one row per check: guests first (short cells), the host last (its skip reason)
awk -F'\t' -v n="$i" -v hdr="${cols[*]}" -v dir="$tmp" '
	BEGIN { split(hdr, h, " ")
		for (k = 0; k <= n; k++) while ((getline l < (dir "/r" k)) > 0) {
			split(l, p, "\t"); res[k, p[1]] = p[2] } }
	{ name = $1 ": " $2; ran = 0; bad = 0; row = ""
	  for (k = 0; k <= n; k++) {
		c = ((k, $2) in res) ? res[k, $2] : "-"
		if (c == "ok" || c == "ok/retry") ran = 1
		if (c == "FAIL") bad = 1
		cell[k] = c }
	  v = bad ? "FAIL" : ran ? "ok" : "NOWHERE"
	  line = sprintf("%-7s %-64.64s", v, name)
	  for (k = 1; k <= n; k++) { c = cell[k]; sub(/:.*/, "", c); line = line sprintf(" %-16s", c) }
	  rows[++nr] = line "  " cell[0]
	  checks++; if (ran && !bad) okc++; if (!ran && !bad) nowhere++; if (bad) failed++ }
	END {
	  line = sprintf("%-7s %-64s", "result", "oracle check (tests/bats file: test)")
	  for (k = 1; k <= n; k++) line = line sprintf(" %-16s", h[k + 1])
	  print line "  host"
	  for (r = 1; r <= nr; r++) print rows[r]
	  printf "coverage: %d checks, %d ran, %d ran nowhere, %d failed\n", checks, okc, nowhere, failed
	  exit (nowhere + failed > 0) }' "$tmp/checks"
