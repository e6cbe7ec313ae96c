# Starting `idlescope serve` on a loopback port for the BATS tests that scrape it
# (serve.bats, prometheus.bats), a Prometheus server scraping it, the load
# they run, slow clients held against it (tests/lib/http_hold.py), and their
# teardown: every process they start ends with the test,
# and a changed kernel.bpf_stats_enabled (STATS_OLD, its old value) is restored.

setup() {
	SERVE_PID=
	SERVE2_PID=
	PROM_PID=
	LOAD_PID=
	HOLD_PID=
	STATS_OLD=
}

teardown() {
	local p
	for p in "$HOLD_PID" "$LOAD_PID" "$PROM_PID" "$SERVE_PID" "$SERVE2_PID"; do
		[ -n "$p" ] || continue
		kill "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	[ -z "$STATS_OLD" ] || sysctl -qw kernel.bpf_stats_enabled="$STATS_OLD"
}

# Starts serve in the background (port 0 unless args say otherwise); waits
# for its "http://HOST:PORT/metrics" line and sets URL and SERVE_PID.
start_serve() {
	local out=$BATS_TEST_TMPDIR/serve.out
	"$IDLESCOPE" serve "$@" >"$out" 2>"$out.err" 3>&- &
	SERVE_PID=$!
	URL=$(serve_url "$out" "$SERVE_PID")
}

# The HOST:PORT of a serve URL.
serve_target() { # url
	local t=${1#http://}
	echo "${t%/metrics}"
}

# Starts a Prometheus server on a free loopback port, scraping in job
# idlescope every second the serve of URL (or the HOST:PORT targets in
# PROM_TARGETS), with the rule files given (evaluated every second), its data
# in the test's temporary directory; waits until it is ready and sets PROM
# (http://127.0.0.1:PORT) and PROM_PID.
start_prometheus() { # rule files...
	local d=$BATS_TEST_TMPDIR targets port f t
	targets=${PROM_TARGETS:-$(serve_target "$URL")}
	port=$(free_port)
	{
		printf 'global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n'
		[ $# -eq 0 ] || printf 'rule_files:\n'
		for f in "$@"; do printf '  - %s\n' "$f"; done
		printf 'scrape_configs:\n  - job_name: idlescope\n'
		printf '    static_configs:\n      - targets:\n'
		for t in $targets; do printf "          - '%s'\n" "$t"; done
	} >"$d/prometheus.yml"
	run_prometheus "$d/prometheus.yml" "$port"
}

# The JSON answer of Prometheus' instant query API to the PromQL $1.
prom_query() {
	curl -sS --get "$PROM/api/v1/query" --data-urlencode "query=$1"
}

# Holds N unfinished requests to serve at URL from SOURCE (a loopback
# address), trickling a header byte every TRICKLE seconds (0: none), in the
# background (HOLD_PID); returns once they are connected (or 5 s passed).
hold_connections() { # n source trickle
	HOLD_STATUS=$BATS_TEST_TMPDIR/hold.status
	rm -f "$HOLD_STATUS"
	python3 "$BATS_TEST_DIRNAME/../lib/http_hold.py" --target "$(serve_target "$URL")" -n "$1" \
		--source "$2" --trickle "$3" --seconds 60 --status "$HOLD_STATUS" 3>&- &
	HOLD_PID=$!
	for _ in $(seq 50); do
		[ -s "$HOLD_STATUS" ] && return 0
		sleep 0.1
	done
}

# A field of the held connections' status: opened, closed or first_closed.
hold_field() { # name
	awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }' "$HOLD_STATUS"
}

# Waits up to SECONDS for at least N of the held connections to be closed by serve.
hold_wait_closed() { # n seconds
	for _ in $(seq $(($2 * 10))); do
		[ "$(hold_field closed)" -ge "$1" ] && return 0
		sleep 0.1
	done
	return 1
}
