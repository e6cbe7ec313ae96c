#!/usr/bin/env bash
# Runs the libFuzzer targets built by `make fuzz-build` ($OUT/fuzz/fuzz_*).
#   run.sh short [TARGET...]  make test: replays tests/fuzz/regressions/<t>/ and
#                             the seed corpus, then fuzzes FUZZ_SHORT_SECONDS
#                             (default 5) per target; new inputs go to a temp dir.
#   run.sh long [TARGET...]   make fuzz: FUZZ_SECONDS (default 300) per target,
#                             growing $OUT/fuzz/corpus/<t> (not the repo).
# Prints "PASS fuzz_X: ..." or "FAIL fuzz_X: ..." per target (tests/run.sh
# counts them); a crash leaves its input under $OUT/fuzz/crashes/<t>/, to be
# checked in under tests/fuzz/regressions/<t>/ once fixed.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-build}
mode=${1:-short}
shift || true
case $mode in
short) secs=${FUZZ_SHORT_SECONDS:-5} ;;
long) secs=${FUZZ_SECONDS:-300} ;;
*) echo "usage: $0 short|long [TARGET...]" >&2; exit 2 ;;
esac
if [ $# -gt 0 ]; then
	targets=("$@")
else
	targets=()
	for f in tests/fuzz/fuzz_*.c; do targets+=("$(basename "$f" .c)"); done
fi
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:symbolize=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$(dirname "$0")/lsan.supp:print_suppressions=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0

for t in "${targets[@]}"; do
	t=${t%.c}
	bin=$out/fuzz/$t
	seeds=tests/fuzz/corpus/${t#fuzz_}
	regs=tests/fuzz/regressions/${t#fuzz_}
	crashes=$out/fuzz/crashes/${t#fuzz_}
	if [ ! -x "$bin" ]; then
		echo "FAIL $t: $bin not built (make fuzz-build)"
		failed=$((failed + 1))
		continue
	fi
	if [ ! -d "$seeds" ] || [ -z "$(ls -A "$seeds")" ]; then
		echo "FAIL $t: no seed corpus in $seeds"
		failed=$((failed + 1))
		continue
	fi
	# every checked-in input once: the regressions and the seeds
	mapfile -t inputs < <(find "$seeds" "$regs" -type f 2>/dev/null | sort)
	if ! "$bin" "${inputs[@]}" >"$tmp/log" 2>&1; then
		tail -30 "$tmp/log"
		echo "FAIL $t: a checked-in input fails (see above)"
		failed=$((failed + 1))
		continue
	fi
	if [ "$mode" = long ]; then
		work=$out/fuzz/corpus/${t#fuzz_}
	else
		work=$tmp/corpus-$t
	fi
	mkdir -p "$work" "$crashes"
	if "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$crashes/" "$work" "$seeds" >"$tmp/log" 2>&1; then
		execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$tmp/log")
		echo "PASS $t: ${#inputs[@]} checked-in inputs, ${execs:-?} execs in ${secs}s, corpus $(ls "$work" | wc -l) new"
	else
		grep -aE "ERROR|invariant failed|runtime error|SUMMARY" "$tmp/log" | head -5
		echo "FAIL $t: crash input in $crashes/ ($(ls -t "$crashes" | head -1)); fix, then copy it to $regs/"
		failed=$((failed + 1))
	fi
done
[ "$failed" -eq 0 ]
