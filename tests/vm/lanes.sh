#!/usr/bin/env bash
# Runs jobs side by side: JOBFILE holds one shell command a line, LANES
# lanes each take the next line when their last job ends (so list the
# longest first), and every job's output goes to a file of its own, printed
# in the file's order once all have ended: no two jobs' lines interleave.
# Exits 1 if any job did. Used by oracle.sh and all.sh: under thread=single
# TCG a guest keeps one host CPU busy, hence LANES "" (the default) is 2 on
# a host with two CPUs or more, else 1.
#
# Usage: lanes.sh LANES JOBFILE
set -euo pipefail
if [ $# -ne 2 ] || ! [[ $1 =~ ^([1-9][0-9]*)?$ ]] || ! [ -r "$2" ]; then
	echo "usage: lanes.sh LANES JOBFILE" >&2
	exit 2
fi
mapfile -t jobs <"$2"
lanes=${1:-$(($(nproc) >= 2 ? 2 : 1))}
[ "$lanes" -le "${#jobs[@]}" ] || lanes=${#jobs[@]}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo 0 >"$out/next"
lane() {
	local i r=0
	while :; do
		# the next job's index, taken under a lock
		# shellcheck disable=SC2016 # expanded by the sh under the lock
		i=$(flock "$out/next" sh -c 'i=$(cat "$1"); echo $((i + 1)) >"$1"; echo "$i"' sh "$out/next")
		[ "$i" -lt "${#jobs[@]}" ] || break
		bash -c "${jobs[i]}" >"$out/job.$i" 2>&1 || r=1
	done
	return "$r"
}
rc=0
pids=()
for ((l = 0; l < lanes; l++)); do
	lane &
	pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || rc=1; done
for ((i = 0; i < ${#jobs[@]}; i++)); do cat "$out/job.$i"; done
exit "$rc"
