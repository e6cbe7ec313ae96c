#!/usr/bin/env bash
# Which tests exercise each unit of user/ (a folder/name.c), so that a newcomer
# finds a unit's tests, and a unit without one is seen. A test file is a
# tests/unit/test_*.c, tests/replay/*_test.c, tests/fuzz/fuzz_*.c or
# tests/bats/*.bats; it exercises a unit when it
#   - includes the unit's header ("folder/name.h"), itself or through a helper
#     header of its own folder (tests/replay/replay.h, tests/unit/fake_*.h);
#   - is named after it (test_NAME.c, NAME_test.c, fuzz_NAME.c, NAME.bats; for
#     cmd/cmd_NAME.c also NAME.bats and NAME_*.bats); or
#   - names its source (user/folder/name.c) in its opening comment (units that
#     share a header, such as render/render_csv.c and render/render.h).
# A unit with none fails, unless it is in the exceptions below with its reason.
# `make test-map` prints the map; `make layers` and tests/run.sh run it with -q
# (failures and the summary line only). Exits 0 when every unit is covered, 1
# otherwise.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

# Units with no test file of their own: one line each, "folder/name  reason".
# A stale line (no such unit, or the unit has a test now) fails too.
exceptions='
main                     dispatch only: every BATS file runs the binary through it
util/alloc               the aligned arrays session/snapshot.c reads the maps into: every replay test (tests/replay)
util/clock               idle_now_ns(), one clock_gettime: every live window (tests/bats/record_live.bats)
util/diag                the error line and exit codes: tests/bats/cli_errors.bats, bad_input.bats
util/json_num            JSON numbers: tests/unit/test_render_json.c parses the output of render_json, written with it
util/workload            -- COMMAND: tests/bats/record_lifecycle.bats (its exit status, 128 + signal)
util/child_run           the record child of ab and advise: tests/bats/signals.bats (signals passed on, a killed child)
web/tls_gnutls           GnuTLS, dynamic build only: tests/bats/web_config.bats (TLS, client certificates, TLS13)
web/web_guard            tests/bats/serve.bats, "slow clients" (the oldest waiting cut, the 10 s deadline)
web/web_mhd              libmicrohttpd options: tests/bats/web_config.bats (TLS, basic auth) and serve.bats
web/web_request          tests/bats/serve.bats, "malformed requests" (a NUL in the path, two Content-Lengths)
web/web_throttle         tests/bats/web_config.bats, "wrong passwords" (429 past the per-address and overall budgets)
sys/kallsyms             /proc/kallsyms: tests/bats/wakeups_live.bats (hrtimer_wakeup named), privilege.bats (cap_syslog)
session/kernel_features  the probes: tests/bats/portability.bats (against bpftool) and the kernel VMs (tests/vm)
session/live             the live session: every live BATS file (record_live, top, serve, hist)
session/live_run         start-up, window and teardown of each live command: tests/bats/signals.bats (one per command), record_lifecycle.bats
session/window           the window and -- COMMAND: tests/bats/record_lifecycle.bats
render/render_table      the default table: tests/bats/record_live.bats and nodriver.bats read it
render/render_interval   -i output: tests/bats/record_lifecycle.bats, textfile.bats
render/render_wake       wakeup tables and JSON: tests/bats/wakeups_live.bats, replay_damage.bats
render/render_exit       the exit cost table: tests/bats/exit_cost.bats
render/render_pack       packing and EAS: tests/bats/groups_live.bats
render/render_freq       frequency residency: tests/bats/record_live.bats (its JSON)
render/render_hist       hist output: tests/bats/hist.bats
render/top_screen        top on a terminal: tests/bats/top.bats drives it in tmux
report/report_blocks     the page: tests/bats/report.bats checks every number against the JSON
report/report_hist       the hist sections: tests/bats/report.bats (tests/fixtures/report/hist-*.json)
report/report_summary    the summary sections: tests/bats/report.bats
replay/trace_gaps        lost-events gaps: tests/bats/replay_damage.bats
replay/trace_idle_task   the idle task time: tests/bats/replay_damage.bats (no-cpuidle.ftrace)
replay/trace_machine     the traced machine: tests/bats/replay.bats (profiles, idlestat headers)
cmd/cli                  the shared options: tests/bats/cli_errors.bats, help_honest.bats
cmd/cmd_info             tests/bats/portability.bats ("info:" tests), parts.bats (info --costs)
cmd/info_costs           info --costs: tests/bats/parts.bats
cmd/info_wakeups         info --costs (its wakeups): tests/bats/parts.bats
cmd/info_qos             the PM QoS lines of info: tests/bats/qos.bats
cmd/pingpong_load        the load of info --costs: tests/bats/parts.bats
cmd/live_prom            a live Prometheus snapshot: tests/bats/serve.bats, textfile.bats
report/summary_file         a summary read from its file: tests/bats/compare.bats, report.bats, advise.bats
'

mode=${1:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# the quoted includes of a file, with those of its own folder's helper headers
includes() {
	local f=$1 dir inc
	dir=$(dirname "$f")
	sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f" | while IFS= read -r inc; do
		echo "$inc"
		if [ -e "$dir/$inc" ] && [ "${inc%/*}" = "$inc" ]; then
			sed -n 's/^#include "\([^"]*\)".*/\1/p' "$dir/$inc"
		fi
	done
}

# the name a test file is named after
test_name() {
	local b
	b=$(basename "$1")
	b=${b%.c}
	b=${b%.bats}
	b=${b#test_}
	b=${b#fuzz_}
	echo "${b%_test}"
}

shopt -s nullglob
tests=(tests/unit/test_*.c tests/replay/*_test.c tests/fuzz/fuzz_*.c tests/bats/*.bats)
# one "key test" line per way a test names a unit: its name, its includes, the
# sources its opening comment (the lines before the first #include or code) names
for t in "${tests[@]}"; do
	tn=$(test_name "$t")
	echo "name:$tn $t"
	case $t in
	*.bats)
		echo "name:cmd_$tn $t"
		echo "name:cmd_${tn%%_*} $t"
		;;
	*) includes "$t" | sed "s|^|inc:|; s|\$| $t|" ;;
	esac
	awk '/^#include|^(static|int|void|@test|load|setup)/ { exit } { print }' "$t" |
		grep -oE 'user/([a-z0-9_]+/)?[a-z0-9_]+\.c' | sed "s|^|src:|; s|\$| $t|" || true
done | sort -u >"$tmp/keys"

bad=0 covered=0 excused=0
declare -A excuse=() tested=()
while read -r u reason; do
	[ -n "$u" ] || continue
	excuse[$u]=$reason
done <<<"$exceptions"
# unit -> its tests, in the order of the tests array
while read -r unit list; do
	tested[$unit]=$list
done < <(for src in user/main.c user/*/*.c; do
	unit=${src#user/}
	unit=${unit%.c}
	echo "$unit name:${unit##*/} inc:$unit.h src:$src"
done | awk -v order="${tests[*]}" '
	NR == FNR { k[$1] = k[$1] " " $2; next }
	BEGIN { n = split(order, o, " "); for (i = 1; i <= n; i++) rank[o[i]] = i }
	{
		delete seen; out = ""
		for (i = 2; i <= NF; i++) {
			m = split(k[$i], ts, " ")
			for (j = 1; j <= m; j++) seen[ts[j]] = 1
		}
		for (i = 1; i <= n; i++) if (o[i] in seen) out = out " " o[i]
		if (out != "") print $1 out
	}' "$tmp/keys" -)

for src in user/main.c user/*/*.c; do
	unit=${src#user/}
	unit=${unit%.c}
	if [ -n "${tested[$unit]+x}" ]; then
		covered=$((covered + 1))
		if [ -n "${excuse[$unit]+x}" ]; then
			echo "test-map: $unit is tested (${tested[$unit]}): drop its exception in tests/lib/test_map.sh"
			bad=1
		fi
		[ "$mode" = -q ] || printf '%-24s %s\n' "$unit" "${tested[$unit]}"
	elif [ -n "${excuse[$unit]+x}" ]; then
		excused=$((excused + 1))
		[ "$mode" = -q ] || printf '%-24s no test file: %s\n' "$unit" "${excuse[$unit]}"
	else
		echo "test-map: $unit ($src) has no test: add tests/unit/test_${unit##*/}.c (or a replay, fuzz or BATS test that includes $unit.h or is named after it), or an exception with its reason in tests/lib/test_map.sh"
		bad=1
	fi
	unset "excuse[$unit]"
done
for u in "${!excuse[@]}"; do
	echo "test-map: exception for $u, which is no unit under user/: drop it from tests/lib/test_map.sh"
	bad=1
done
[ "$bad" = 1 ] || echo "test-map: ok ($covered units with tests, $excused excepted with a reason)"
exit "$bad"
