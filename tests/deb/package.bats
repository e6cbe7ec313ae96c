#!/usr/bin/env bats
# The Debian package (make deb-test): lintian, dpkg -i, the installed binary,
# man page and completion, the unit (systemd-analyze verify and security, and
# run for real by systemd in a container booted from this machine's /usr),
# file capabilities on the packaged binary, and dpkg -r / --purge leaving
# nothing. The tests run in order and share the installed package.

bats_require_minimum_version 1.5.0
load ../bats/helpers

UNIT=/lib/systemd/system/idlescope.service
SERVICE_CAPS=000000c000000000 # CAP_BPF (39) and CAP_PERFMON (38)

setup_file() {
	[ -f "$IDLESCOPE_DEB" ] || { echo "IDLESCOPE_DEB is not a file (run make deb-test)" >&2; return 1; }
	if dpkg-query -W -f='${Status}' idlescope 2>/dev/null | grep -q 'ok installed'; then
		echo "the idlescope package is installed already: remove it first (dpkg --purge idlescope)" >&2
		return 1
	fi
	export RUN_DIRS_BEFORE
	RUN_DIRS_BEFORE=$(ls -d /run/systemd/nspawn /run/systemd/nspawn-root 2>/dev/null | paste -sd ' ')
}

teardown_file() {
	[ -z "${NSPAWN_PID:-}" ] || container_stop
	dpkg-query -W -f='${Status}' idlescope 2>/dev/null | grep -q 'ok installed' &&
		dpkg_locked --purge idlescope >/dev/null
	local d
	for d in /run/systemd/nspawn /run/systemd/nspawn-root; do
		[[ " $RUN_DIRS_BEFORE " == *" $d "* ]] || rm -rf "$d"
	done
	return 0
}

setup() {
	NSPAWN_PID=
}

teardown() {
	[ -z "$NSPAWN_PID" ] || container_stop
}

# dpkg ARGS, waiting up to 5 min for the dpkg lock (other apt runs).
dpkg_locked() {
	local out rc
	for _ in $(seq 150); do
		rc=0
		out=$(dpkg "$@" 2>&1) || rc=$?
		[ "$rc" -ne 0 ] && grep -qi 'lock' <<<"$out" && { sleep 2; continue; }
		echo "$out"
		return "$rc"
	done
	echo "dpkg lock still held after 5 min: $out" >&2
	return 1
}

@test "lintian: no errors (warnings and info listed)" {
	command -v lintian >/dev/null || { echo "lintian not installed (sudo make deps)" >&2; return 1; }
	run lintian --display-info --pedantic --display-experimental --fail-on error "$IDLESCOPE_DEB"
	echo "$output"
	[ "$status" -eq 0 ]
	! grep -q '^E: ' <<<"$output"
}

@test "dpkg -i installs it, linked against Debian's shared libraries, depending on serve's" {
	dpkg_locked -i "$IDLESCOPE_DEB"
	[ "$(dpkg-query -W -f='${Status}' idlescope)" = "install ok installed" ]
	ldd /usr/bin/idlescope | grep -q 'libbpf\.so\.1 => /'
	# serve opens libmicrohttpd and GnuTLS (for --web-config's TLS) when it
	# starts: not linked, so the package names them
	! ldd /usr/bin/idlescope | grep -E 'libmicrohttpd|libgnutls'
	dpkg-deb -f "$IDLESCOPE_DEB" Depends | grep -q 'libmicrohttpd12 (>= 0.9.75)'
	dpkg-deb -f "$IDLESCOPE_DEB" Depends | grep -q 'libgnutls30'
	[ -e "$(ldconfig -p | awk '$1 == "libmicrohttpd.so.12" { print $NF; exit }')" ]
	[ -e "$(ldconfig -p | awk '$1 == "libgnutls.so.30" { print $NF; exit }')" ]
	ldd /usr/bin/idlescope | grep -q 'libyaml-0\.so\.2 => /'
	# replay's trace.dat reader: Debian's libtraceevent and libzstd
	ldd /usr/bin/idlescope | grep -q 'libtraceevent\.so\.1 => /'
	ldd /usr/bin/idlescope | grep -q 'libzstd\.so\.1 => /'
	dpkg-deb -f "$IDLESCOPE_DEB" Depends | grep -q 'libbpf1'
}

@test "idlescope --version is the package's version" {
	[ "$(command -v idlescope)" = /usr/bin/idlescope ]
	[ "$(/usr/bin/idlescope --version)" = "idlescope $(dpkg-deb -f "$IDLESCOPE_DEB" Version)" ]
}

@test "man -w idlescope finds the packaged page, and it renders" {
	local page
	page=$(man -w idlescope)
	[ "$page" = /usr/share/man/man1/idlescope.1.gz ]
	[ "$(dpkg -S "$page" | cut -d: -f1)" = idlescope ]
	MANWIDTH=80 man idlescope 2>/dev/null | grep -q '^SYNOPSIS'
}

@test "bash completion: loaded on demand from the package, offers --help's commands" {
	local got want
	got=$(bash -c '
		source /usr/share/bash-completion/bash_completion
		_completion_loader idlescope
		complete -p idlescope
		COMP_WORDS=(idlescope re); COMP_CWORD=1; COMP_LINE="idlescope re"; COMP_POINT=12
		COMPREPLY=()
		_idlescope 2>/dev/null
		printf "%s\n" "${COMPREPLY[@]}" | sort
	')
	echo "$got"
	[ "$(head -1 <<<"$got")" = "complete -F _idlescope idlescope" ]
	want=$(/usr/bin/idlescope --help | sed -n 's/^  \(re[a-z]*\) .*/\1/p' | sort)
	[ "$(tail -n +2 <<<"$got")" = "$want" ]
}

@test "the unit: installed disabled and stopped, systemd-analyze verify passes, exposure at most 2.0" {
	[ "$(dpkg -S "$UNIT" | cut -d: -f1)" = idlescope ]
	run systemctl is-enabled idlescope
	[ "$output" = disabled ]
	! pgrep -f '^/usr/bin/idlescope serve' >/dev/null
	run systemd-analyze verify "$UNIT"
	echo "$output"
	[ "$status" -eq 0 ] && [ -z "$output" ]
	local score
	score=$(systemd-analyze security --offline=yes "$UNIT" 2>&1 |
		sed -n 's/^→ Overall exposure level for idlescope.service: \([0-9.]*\) .*/\1/p')
	echo "exposure $score"
	[ -n "$score" ]
	awk -v s="$score" 'BEGIN { exit !(s <= 2.0) }'
}

# Boots systemd (this machine's /usr, a fresh /etc on tmpfs, its own network
# namespace) in a container that may grant CAP_BPF/CAP_PERFMON, with the unit
# wanted at boot. Sets NSPAWN_PID and IN (a command prefix run inside).
container_start() {
	command -v systemd-nspawn >/dev/null || { echo "systemd-nspawn not installed (sudo make deps)" >&2; return 1; }
	systemd-nspawn -q -D / --volatile=yes --private-network --register=no --keep-unit \
		--machine="isdeb-$$" --capability=CAP_BPF,CAP_PERFMON --system-call-filter=bpf \
		-b systemd.unit=basic.target systemd.firstboot=off systemd.wants=idlescope.service \
		>"$BATS_TEST_TMPDIR/nspawn.log" 2>&1 3>&- &
	NSPAWN_PID=$!
	local init=
	for _ in $(seq 100); do
		init=$(pgrep -P "$NSPAWN_PID" -x systemd) && break
		sleep 0.1
	done
	[ -n "$init" ] || { cat "$BATS_TEST_TMPDIR/nspawn.log" >&2; return 1; }
	IN="nsenter -t $init -a"
}

container_stop() {
	kill -TERM "$NSPAWN_PID" 2>/dev/null || true # the container powers off
	for _ in $(seq 100); do
		kill -0 "$NSPAWN_PID" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$NSPAWN_PID" 2>/dev/null || true
	wait "$NSPAWN_PID" 2>/dev/null || true
	NSPAWN_PID=
}

# Waits (up to 30 s) for the unit's ActiveState to be $1.
unit_state_is() {
	for _ in $(seq 150); do
		[ "$($IN systemctl show -P ActiveState idlescope 2>/dev/null)" = "$1" ] && return 0
		sleep 0.2
	done
	$IN systemctl status --no-pager idlescope >&2 || true
	return 1
}

# Sum of the served idle_state_entries_total, scraped inside the container.
served_entries() {
	$IN curl -sf http://127.0.0.1:9464/metrics |
		awk '/^idlescope_idle_state_entries_total/ { s += $2 } END { print s + 0 }'
}

@test "the unit under systemd: a dynamic user with CAP_BPF+CAP_PERFMON only, sandboxed, serving, restarted on failure" {
	container_start
	$IN systemctl --version | head -1
	unit_state_is active
	local pid st mounts a b
	pid=$($IN systemctl show -P MainPID idlescope)
	# Type=exec: active once the binary is exec'd, so this is serve itself
	[ "$($IN cat /proc/"$pid"/comm)" = idlescope ]
	# serve opened its libraries (dlopen) under the unit's sandbox
	$IN grep -q '/libmicrohttpd\.so\.12' /proc/"$pid"/maps
	$IN grep -q '/libgnutls\.so\.30' /proc/"$pid"/maps
	st=$($IN cat /proc/"$pid"/status)
	echo "$st" | grep -E '^(Uid|Cap(Inh|Prm|Eff|Bnd|Amb)|NoNewPrivs|Seccomp):'
	# a dynamic user (61184-65519), not root
	[ "$(awk '/^Uid:/ { print $2 }' <<<"$st")" -ge 61184 ]
	[ "$($IN systemctl show -P User idlescope)" = idlescope ]
	for c in CapPrm CapEff CapBnd CapAmb; do
		[ "$(awk -v c="$c:" '$1 == c { print $2 }' <<<"$st")" = "$SERVICE_CAPS" ]
	done
	[ "$(awk '/^NoNewPrivs:/ { print $2 }' <<<"$st")" = 1 ]
	[ "$(awk '/^Seccomp:/ { print $2 }' <<<"$st")" = 2 ]
	# ProtectSystem=strict, ProtectHome=, ProtectKernelTunables=: read-only
	# mounts in its namespace; PrivateTmp=: a /tmp of its own
	mounts=$($IN cat /proc/"$pid"/mountinfo)
	for m in / /sys /proc/sys /home; do
		awk -v m="$m" '$5 == m { print $6 }' <<<"$mounts" | tail -1 | grep -q '^ro'
	done
	awk '$5 == "/tmp" { print $6 }' <<<"$mounts" | tail -1 | grep -q '^rw'
	[ "$($IN stat -c %d:%i /tmp)" != "$($IN stat -c %d:%i /proc/"$pid"/root/tmp)" ]
	# serving: the counts grow between two scrapes
	a=$(served_entries)
	sleep 1
	b=$(served_entries)
	echo "served entries $a then $b"
	[ "$b" -gt 0 ] && [ "$b" -ge "$a" ]
	# Restart=on-failure: a killed serve comes back (RestartSec=5s)
	$IN kill -KILL "$pid"
	for _ in $(seq 100); do
		[ "$($IN systemctl show -P NRestarts idlescope)" = 1 ] && break
		sleep 0.1
	done
	[ "$($IN systemctl show -P NRestarts idlescope)" = 1 ]
	unit_state_is active
	[ "$($IN systemctl show -P MainPID idlescope)" != "$pid" ]
}

@test "the unit under systemd: with CAP_BPF or CAP_PERFMON alone it fails in one line" {
	container_start
	unit_state_is active
	$IN mkdir -p /etc/systemd/system/idlescope.service.d
	for cap in CAP_BPF CAP_PERFMON; do
		# an empty assignment resets the set; Restart=no keeps the failure
		printf '[Service]\nCapabilityBoundingSet=\nCapabilityBoundingSet=%s\nAmbientCapabilities=\nAmbientCapabilities=%s\nRestart=no\n' \
			"$cap" "$cap" | $IN tee /etc/systemd/system/idlescope.service.d/narrow.conf >/dev/null
		$IN systemctl daemon-reload
		$IN systemctl restart idlescope || true
		unit_state_is failed
		[ "$($IN systemctl show -P ExecMainStatus idlescope)" = 1 ]
		$IN journalctl -u idlescope -o cat --no-pager | tail -4
		[ "$($IN journalctl -u idlescope -o cat --no-pager | grep '^idlescope: ' | tail -1)" = \
		  'idlescope: need CAP_BPF and CAP_PERFMON to load BPF programs (run as root)' ]
		$IN systemctl reset-failed idlescope
	done
}

@test "the packaged binary with file capabilities: record as nobody" {
	local dir
	dir=$(mktemp -d)
	chmod 0755 "$dir"
	cp /usr/bin/idlescope "$dir/idlescope"
	setcap cap_bpf,cap_perfmon+ep "$dir/idlescope"
	run --separate-stderr setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all \
		"$dir/idlescope" record -d 1 --format json
	rm -rf "$dir"
	[ "$status" -eq 0 ]
	[ "$(jq '[.cpus[].states[].entries] | add' <<<"$output")" -gt 0 ]
}

@test "dpkg -r removes every file it installed; --purge leaves no trace" {
	local files left=
	files=$(dpkg -L idlescope)
	dpkg_locked -r idlescope
	while read -r f; do
		[ -d "$f" ] && continue # shared directories (/usr/bin) stay
		[ -e "$f" ] && left+="$f "
	done <<<"$files"
	echo "left after -r: $left"
	[ -z "$left" ]
	dpkg_locked --purge idlescope
	run dpkg-query -W -f='${Status}' idlescope
	[[ $output != *"ok installed"* && $output != *config-files* ]]
	[ -z "$(find /etc/systemd /var/lib/systemd/deb-systemd-helper-enabled \
		/var/lib/systemd/deb-systemd-helper-masked /usr/share/doc/idlescope \
		-name '*idlescope*' 2>/dev/null)" ]
	! command -v idlescope
}
