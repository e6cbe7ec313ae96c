#!/usr/bin/env bats
# `idlescope top` driven in a real terminal (tmux, 80x24): the screen
# appears, its numbers agree with workloads whose behaviour is known (a
# spinning task, cyclictest, sysfs counters), q / SIGTERM / SIGHUP / Ctrl-C
# give the terminal back (normal screen, cursor, termios); plain lines when
# stdout is not a terminal.

bats_require_minimum_version 1.5.0
load helpers

setup() {
	# a private tmux server: nothing shared with the user's or another test's
	TMUX_SOCK=idlescope-top-$$-$BATS_TEST_NUMBER
	TMP_DIR=$(mktemp -d)
	SPIN=
	BG=
}

teardown() {
	tmux -L "$TMUX_SOCK" kill-server 2>/dev/null || true
	[ -z "$SPIN" ] || kill "$SPIN" 2>/dev/null || true
	[ -z "$BG" ] || kill "$BG" 2>/dev/null || true
	wait 2>/dev/null || true
	# the pane's shell may still be exiting
	rm -rf "$TMP_DIR" 2>/dev/null || { sleep 1; rm -rf "$TMP_DIR"; }
}

tm() {
	tmux -L "$TMUX_SOCK" "$@"
}

# A shell in an 80x24 terminal, with a plain prompt.
start_term() {
	tm new-session -d -s t -x 80 -y 24 "env -i PATH=$PATH TERM=tmux-256color HOME=$TMP_DIR HISTFILE= PS1='PROMPT\$ ' bash --norc --noprofile"
	tm set-option -t t remain-on-exit on
	wait_screen 'PROMPT\$' 5
}

screen() {
	tm capture-pane -p -t t
}

# Waits until the screen matches the extended regex $1, at most $2 s.
wait_screen() {
	local i
	for i in $(seq $(($2 * 10))); do
		screen | grep -Eq -- "$1" && return 0
		sleep 0.1
	done
	echo "screen never matched '$1':" >&2
	screen >&2
	return 1
}

pane() { # format
	tm display-message -p -t t "$1"
}

# pid of idlescope, the shell's child in the pane.
top_pid() {
	pgrep -P "$(pane '#{pane_pid}')" -x idlescope
}

# Numbers of the table row whose label is $1 on the last screen/block:
# busy and the state shares, space-separated.
row() { # label file nstates
	awk -v l="$1" -v n="$3" '$1 "" == l && $2 ~ /^[0-9.]+$/ { s = $2; for (i = 3; i < 3 + n; i++) s = s " " $i; last = s } END { print last }' "$2"
}

nstates() { # cpu
	local n
	n=$(ls -d /sys/devices/system/cpu/cpu"$1"/cpuidle/state* 2>/dev/null | wc -l)
	[ "$n" -gt 0 ] && echo "$n" || echo 1
}

@test "top: the screen shows the header and a row per CPU in 80x24 within 10 s, q quits with 0 and restores the terminal" {
	start_term
	tm send-keys -t t "stty -g > $TMP_DIR/before; $IDLESCOPE top -i 1; echo rc=\$?; stty -g > $TMP_DIR/after" Enter
	wait_screen '^CPU +busy%' 10
	wait_screen '^all +[0-9]' 5
	screen > "$TMP_DIR/screen"
	for c in $(seq 0 $(($(nproc) - 1))); do
		grep -Eq "^$c +[0-9]+\.[0-9]" "$TMP_DIR/screen"
	done
	grep -q '^q quit' "$TMP_DIR/screen"
	[ "$(pane '#{alternate_on}')" = 1 ]
	[ "$(awk '{ if (length($0) > 80) print }' "$TMP_DIR/screen")" = "" ]
	tm send-keys -t t q
	wait_screen '^rc=0$' 5
	wait_screen '^PROMPT\$ ?$' 5
	[ "$(pane '#{alternate_on}')" = 0 ]
	[ "$(pane '#{cursor_flag}')" = 1 ]
	cmp "$TMP_DIR/before" "$TMP_DIR/after"
}

@test "top: the object without atomic fetch ops (kernels before 5.12) shows no group rows, as record degrades" {
	# plain lines (no terminal); the default object has the package row
	run --separate-stderr "$IDLESCOPE" top -i 0.2 -d 0.5 --topology package </dev/null
	[ "$status" -eq 0 ]
	printf '%s\n' "${lines[@]}" | grep -q '^package0 '
	run --separate-stderr env IDLESCOPE_NO_ATOMIC_FETCH=1 "$IDLESCOPE" top -i 0.2 -d 0.5 --topology package </dev/null
	[ "$status" -eq 0 ]
	printf '%s\n' "${lines[@]}" | grep -q '^all '
	[ "$(printf '%s\n' "${lines[@]}" | grep -c '^package0 ')" -eq 0 ]
	[ "$stderr" = "idlescope: no group rows: they need BPF atomic fetch ops (kernel 5.12+)" ]
}

@test "top: a CPU kept busy by a pinned loop shows busy > 90%; busy + state shares = 100% on every CPU" {
	[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"
	taskset -c 1 sh -c 'while :; do :; done' &
	SPIN=$!
	start_term
	tm send-keys -t t "$IDLESCOPE top -i 1 -C 0,1" Enter
	wait_screen '^all +[0-9]' 10
	sleep 2.2 # two more intervals, the spinner's whole
	screen > "$TMP_DIR/screen"
	cat "$TMP_DIR/screen"
	local r busy
	r=$(row 1 "$TMP_DIR/screen" "$(nstates 1)")
	busy=${r%% *}
	echo "cpu1: $r"
	awk -v b="$busy" 'BEGIN { exit !(b > 90) }'
	# (states hidden for want of width cannot be summed)
	grep -q 'hidden: narrow terminal' "$TMP_DIR/screen" && skip "more idle states than 80 columns hold"
	for c in 0 1; do
		r=$(row "$c" "$TMP_DIR/screen" "$(nstates "$c")")
		# each figure is rounded to 0.1: the sum within 0.05 per figure
		echo "$r" | awk '{ s = 0; for (i = 1; i <= NF; i++) s += $i; d = s - 100; if (d < 0) d = -d; exit !(d <= 0.05 * NF + 0.01) }'
	done
	tm send-keys -t t q
	wait_screen '^PROMPT\$ ?$' 5
}

@test "top: SIGTERM, SIGHUP and Ctrl-C end it with 0 and restore the terminal" {
	local sig pid
	start_term
	for sig in TERM HUP INT; do
		tm send-keys -t t "clear; stty -g > $TMP_DIR/before; $IDLESCOPE top -i 1; echo rc=\$?; stty -g > $TMP_DIR/after" Enter
		wait_screen '^CPU +busy%' 10
		pid=$(top_pid)
		[ -n "$pid" ]
		if [ "$sig" = INT ]; then
			tm send-keys -t t C-c
		else
			kill -"$sig" "$pid"
		fi
		wait_screen '^rc=0$' 5
		[ "$(pane '#{alternate_on}')" = 0 ]
		[ "$(pane '#{cursor_flag}')" = 1 ]
		wait_screen '^PROMPT\$ ?$' 5
		cmp "$TMP_DIR/before" "$TMP_DIR/after"
		# every iteration's top has ended (a negated last command of the
		# loop body would be checked on the last iteration only)
		[ ! -e "/proc/$pid" ]
	done
}

@test "top: a crash (SIGSEGV) still gives the terminal back" {
	local pid
	start_term
	tm send-keys -t t "stty -g > $TMP_DIR/before; $IDLESCOPE top -i 1; echo rc=\$?; stty -g > $TMP_DIR/after" Enter
	wait_screen '^CPU +busy%' 10
	pid=$(top_pid)
	[ -n "$pid" ]
	kill -SEGV "$pid"
	wait_screen '^rc=139$' 5
	[ "$(pane '#{alternate_on}')" = 0 ]
	[ "$(pane '#{cursor_flag}')" = 1 ]
	wait_screen '^PROMPT\$ ?$' 5
	cmp "$TMP_DIR/before" "$TMP_DIR/after"
}

@test "top: a smaller terminal (60x12) and a resize keep every line inside the screen" {
	start_term
	tm send-keys -t t "$IDLESCOPE top -i 0.5" Enter
	wait_screen '^CPU +busy%' 10
	tm resize-window -t t -x 60 -y 12
	sleep 1.2
	screen > "$TMP_DIR/screen"
	cat "$TMP_DIR/screen"
	[ "$(wc -l < "$TMP_DIR/screen")" -le 12 ]
	[ "$(awk '{ if (length($0) > 60) print }' "$TMP_DIR/screen")" = "" ]
	grep -Eq '^CPU +busy%' "$TMP_DIR/screen"
	grep -q '^q quit' "$TMP_DIR/screen"
	tm send-keys -t t q
	wait_screen '^PROMPT\$ ?$' 5
	[ "$(pane '#{alternate_on}')" = 0 ]
}

@test "top: rows that do not fit scroll with j, k, End and Home; the footer says which" {
	[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"
	start_term
	tm resize-window -t t -x 80 -y 8
	# 2 CPUs + 2 one-CPU groups = 4 rows, more than 8 lines leave room for
	tm send-keys -t t "$IDLESCOPE top -i 0.5 --topology custom:0,1" Enter
	wait_screen 'rows 1-[0-9]+ of 4' 10
	[ "$(screen | grep -cE '^(0|1|custom0|custom1) ')" -lt 4 ]
	screen | grep -qE '^0 '
	tm send-keys -t t End
	wait_screen 'rows [0-9]+-4 of 4' 5
	screen | grep -qE '^custom1 '
	[ "$(screen | grep -cE '^0 ')" -eq 0 ]
	tm send-keys -t t k
	tm send-keys -t t Home
	wait_screen 'rows 1-[0-9]+ of 4' 5
	screen | grep -qE '^0 '
	tm send-keys -t t j
	wait_screen 'rows 2-[0-9]+ of 4' 5
	[ "$(screen | grep -cE '^0 ')" -eq 0 ]
	tm send-keys -t t q
	wait_screen '^PROMPT\$ ?$' 5
}

@test "top: a terminal without terminfo gets plain lines as wide as the terminal, and a warning" {
	start_term
	tm send-keys -t t "TERM=no-such-term $IDLESCOPE top -i 0.5 -d 1.2; echo rc=\$?" Enter
	wait_screen '^rc=0$' 10
	tm capture-pane -p -S -200 -t t > "$TMP_DIR/screen" # with what scrolled off
	cat "$TMP_DIR/screen"
	grep -q "^idlescope: no terminfo entry for TERM 'no-such-term'; plain lines instead" "$TMP_DIR/screen"
	[ "$(grep -c '^CPU ' "$TMP_DIR/screen")" -eq 2 ]
	[ "$(awk '{ if (length($0) > 80) print }' "$TMP_DIR/screen")" = "" ]
	[ "$(pane '#{alternate_on}')" = 0 ]
}

@test "top: not a terminal: one plain block per interval, no escape sequences" {
	run "$IDLESCOPE" top -i 0.5 -d 1.7
	[ "$status" -eq 0 ]
	[ "$(grep -c '^idlescope top: ' <<< "$output")" -eq 3 ]
	[ "$(grep -c '^all ' <<< "$output")" -eq 3 ]
	[ "$(grep -c $'\e' <<< "$output")" -eq 0 ]
	[ "$(grep -c '^CPU ' <<< "$output")" -eq 3 ]
}

# A group is busy when one of its CPUs is: in every interval its busy % lies
# between its busiest CPU's and the sum of its CPUs' (each figure rounded to
# 0.1). A CPU idle when the programs attached but with no entry seen would
# count as busy in its group (the contradiction the poke removes: a group
# 100% busy over two idle CPUs on a quiet machine).
@test "top: a group's busy % lies between its busiest CPU's and the sum of its CPUs' in every interval" {
	[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"
	run --separate-stderr "$IDLESCOPE" top -i 0.3 -d 1.6 --topology custom:0-1 </dev/null
	[ "$status" -eq 0 ]
	printf '%s\n' "${lines[@]}" | awk '
		/^idlescope top: / { n++ }
		$1 == "0" || $1 == "1" { b[$1] = $2 }
		$1 == "custom0" {
			g = $2; lo = (b[0] > b[1] ? b[0] : b[1]) - 0.2; hi = b[0] + b[1] + 0.2
			printf "interval %d: cpu0 %s cpu1 %s group %s\n", n, b[0], b[1], g
			if (g < lo || (hi < 100 && g > hi)) bad++
		}
		END { if (n < 4) { print "only " n " intervals"; exit 1 } exit bad > 0 }'
}

# bats test_tags=oracle
@test "top: timer wakeups/s of a 1 ms cyclictest on CPU 1 near 1000, hrtimer_wakeup and cyclictest on top" {
	[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"
	# The oracle of cyclictest's rate is its thread's voluntary context
	# switches (one per loop that slept: a loop that overran sleeps not and
	# ends no idle period) read the moment each block's title arrives (top
	# writes a block right after reading its maps), so the last block's rate
	# is over the same window as top's row. (Loops / cyclictest's run, the
	# oracle before, included top's start-up: under TCG a 6 s run once ended
	# before top's last block, 1.5 timer wakes/s of "975 loops/s", and with
	# the run spanning top its start-up pulled the mean to 755 of 970/s.)
	cyclictest --laptop -q -t1 -a 1 -i 1000 -D 60 >/dev/null 2>&1 3>&- &
	BG=$!
	sleep 0.5
	local tid st out=$TMP_DIR/top.out rcs rate
	tid=$(ls "/proc/$BG/task" | grep -vx "$BG" | head -1)
	st=/proc/$BG/task/$tid/status
	[ -n "$tid" ] && [ -r "$st" ]
	"$IDLESCOPE" top -i 2 -d 4.5 -C 1 2>&1 | mawk -W interactive -v st="$st" -v out="$out" '
		function sample(   l, v) {
			while ((getline l <st) > 0) if (l ~ /^voluntary_ctxt_switches:/) { split(l, v, " "); n = v[2] }
			close(st)
			getline l <"/proc/uptime"; close("/proc/uptime"); split(l, v, " ")
			pt = t; pn = c; t = v[1]; c = n
		}
		{ print >out }
		/^idlescope top: / { k++; sample() }
		END { if (k >= 2 && t > pt) printf "%d\n", (c - pn) / (t - pt) }' >"$TMP_DIR/rate"
	rcs="${PIPESTATUS[*]}"
	kill -INT "$BG"
	wait "$BG" || true
	BG=
	output=$(cat "$out")
	[ "$rcs" = "0 0" ] || { echo "top, awk: $rcs"; echo "$output"; false; }
	# the last block: the cpu1 row's timer column (the 5th from the end is timer)
	echo "$output" | tail -n 20
	local timer wakes busy tick cyc hz
	timer=$(echo "$output" | awk '$1 "" == "1" && $2 ~ /^[0-9.]+$/ { t = $(NF - 4) } END { print t }')
	wakes=$(echo "$output" | awk '$1 "" == "1" && $2 ~ /^[0-9.]+$/ { w = $(NF - 5) } END { print w }')
	busy=$(echo "$output" | awk '$1 "" == "1" && $2 ~ /^[0-9.]+$/ { b = $2 } END { print b }')
	# The oracles are cyclictest's sleeps per second in the last block
	# (above) and CPU 1's wakes, the row's wake/s (below).
	rate=$(cat "$TMP_DIR/rate")
	[ -n "$rate" ]
	# The timer column also counts the tick, which stays on while the next
	# timer is less than a tick away (tick_nohz_next_event); how often it
	# still ends an idle period depends on the idle loop: without a cpuidle
	# driver (default_idle_call) 248/s of 250 Hz were measured on top of
	# cyclictest. So the tick's row is bounded by CONFIG_HZ on its own, and
	# the rest must be near cyclictest's rate on every host.
	hz=$({ cat "/boot/config-$(uname -r)" || zcat /proc/config.gz; } 2>/dev/null |
		sed -n 's/^CONFIG_HZ=\([0-9]*\)$/\1/p')
	hz=${hz:-1000} # unknown: the highest CONFIG_HZ there is
	local wakers
	wakers=$(echo "$output" | awk '/TOP WAKERS/ { n = 0; delete r } { r[++n] = $0 } END { for (i = 1; i <= n; i++) print r[i] }')
	tick=$(echo "$wakers" | awk '$3 == "timer" && $4 ~ /^tick_(nohz_handler|nohz_highres_handler|sched_timer)$/ { print $1; exit }')
	tick=${tick:-0}
	# cyclictest's thread as the first task woken in a wake (the busiest
	# cyclictest[tid] wakee row; the main thread has its own)
	cyc=$(echo "$wakers" | awk '{ for (i = 3; i <= NF; i++) if ($i ~ /^cyclictest\[[0-9]+\]$/ && $(i - 2) + 0 > m) m = $(i - 2) + 0 } END { print m + 0 }')
	# (to the TAP stream too: a guest's failure shows its figures in CI)
	echo "# timer/s $timer of $wakes wakes/s (tick $tick/s, CONFIG_HZ $hz), cyclictest wakee $cyc/s, cyclictest $rate sleeps/s, busy $busy%" | tee /dev/fd/3
	# the oracle needs CPU 1 idle between the timers (not so while other
	# jobs share the machine)
	awk -v b="$busy" 'BEGIN { exit !(b < 30) }' || skip "CPU 1 busy $busy% with other work"
	# and cyclictest keeping its 1 kHz, so that each loop sleeps (a TCG
	# guest's CPU 1 made 880 loops/s at times: then loops overran and ended
	# no idle period, and nothing here is the tool's to judge)
	awk -v r="$rate" 'BEGIN { exit !(r > 900) }' || skip "cyclictest slept $rate times/s of 1000 (an emulated CPU)"
	# (the reader's instants may lag top's reads by a few ms each)
	[ "$rate" -le 1030 ]
	awk -v t="$tick" -v hz="$hz" 'BEGIN { exit !(t <= hz * 1.05) }'
	# Each loop ends an idle period only where the CPU reached idle before
	# the next 1 ms timer: under TCG's slow idle exits and entries (exit
	# cost 6-11% here) 626 and 960 timer wakes/s were seen for 984 loops,
	# and with CONFIG_HZ 1000 the kept tick can end the period just before
	# cyclictest's timer. So the lower bounds are cyclictest's loops or,
	# where fewer, the CPU's own wakes: timers end 80% of them, and
	# cyclictest is the wakee of 80% of the timer wakes the tick did not end
	# (seen: 719 of 780, 571 of 480 + the tick's shared ones); the upper
	# bounds are cyclictest's loops.
	awk -v t="$timer" -v w="$wakes" -v k="$tick" -v r="$rate" \
		'BEGIN { m = r < w ? r : w; exit !(t >= m * 0.8 && t - k <= r * 1.3) }'
	awk -v c="$cyc" -v t="$timer" -v k="$tick" -v r="$rate" \
		'BEGIN { m = r < t - k ? r : t - k; exit !(c >= m * 0.8 && c <= r * 1.05) }'
	echo "$wakers" | grep -q 'timer hrtimer_wakeup'
}

# bats test_tags=oracle
@test "top: below/s of all CPUs agrees with the kernel's below counters under a steady load" {
	require_cpuidle_driver
	[ -r /sys/devices/system/cpu/cpu0/cpuidle/state0/below ] || skip "no below counters"
	# (-D covers top's start-up, seconds under QEMU TCG; teardown ends it)
	cyclictest -q -t "$(nproc)" -a -i 1000 -D 60 >/dev/null 2>&1 &
	BG=$!
	sleep 1
	local out=$TMP_DIR/top.out ours= kernel= rcs
	# Blocks 2-5 against the kernel's counters read the moment block 1's and
	# block 5's titles arrive (top writes a block right after reading its
	# maps), so top's start-up is outside and the two windows are the same.
	# The reader is one awk reading the pipe as blocks come (-W interactive:
	# else mawk waits for a full buffer): late in a TCG guest's suite, shell
	# loops polling the output or reading it line by line fell seconds
	# behind top, and the load is far from steady there (seen: 43% apart;
	# 1 kHz per CPU, not 5 kHz, keeps it steadier: 2% apart in two runs).
	# Counts, not rates, are compared: a block's below/s x its interval
	# ("1.01s", "577ms"; under TCG they run 0.5-1.5 s).
	"$IDLESCOPE" top -i 1 -d 8.2 2>&1 | mawk -W interactive \
		-v files="$(echo /sys/devices/system/cpu/cpu[0-9]*/cpuidle/state*/below)" \
		-v n="$(nstates 0)" -v out="$out" '
		function kernel(  i, m, f, v, s) {
			m = split(files, f, " ")
			for (i = 1; i <= m; i++) { v = 0; getline v <f[i]; close(f[i]); s += v }
			return s
		}
		function secs(d) { if (d ~ /ms$/) return d / 1e3; if (d ~ /us$/) return d / 1e6; return d + 0 }
		function num(r) { if (r ~ /k$/) return r * 1e3; if (r ~ /M$/) return r * 1e6; return r + 0 }
		{ print >out }
		/^idlescope top: / {
			k++
			if (k == 1) b0 = kernel()
			if (k == 5) b1 = kernel()
			dur = $3
		}
		$1 == "all" && k >= 2 && k <= 5 { ours += num($(n + 4)) * secs(dur); m++ }
		END { if (m == 4 && b1 != "") printf "%.0f %d\n", ours, b1 - b0 }' >"$TMP_DIR/res"
	rcs="${PIPESTATUS[*]}"
	[ "$rcs" = "0 0" ] || { echo "top, awk: $rcs"; cat "$out"; false; }
	read -r ours kernel <"$TMP_DIR/res" || { cat "$out"; false; }
	echo "below in blocks 2-5: top $ours, sysfs $kernel"
	[ "$kernel" -gt 200 ] || skip "too few misses ($kernel) to compare: CPUs busy with other work"
	# within 20% on a host; IDLESCOPE_TEST_RATE_TOLERANCE widens it in the
	# TCG oracle guest, where a block reaches the reader later after top's read
	awk -v a="$ours" -v k="$kernel" -v tol="${IDLESCOPE_TEST_RATE_TOLERANCE:-0.2}" \
		'BEGIN { d = a - k; if (d < 0) d = -d; exit !(d <= tol * k) }'
}

@test "top: an error before the screen (not root) is one line on the normal screen, exit 1" {
	local bin=$TMP_DIR/idlescope
	cp "$IDLESCOPE" "$bin"
	chmod 0755 "$TMP_DIR" "$bin"
	start_term
	tm send-keys -t t "setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all $bin top; echo rc=\$?" Enter
	wait_screen '^rc=1$' 10
	screen | grep -q '^idlescope: need CAP_BPF and CAP_PERFMON'
	[ "$(pane '#{alternate_on}')" = 0 ]
}

@test "top: usage errors exit 2" {
	run "$IDLESCOPE" top -i 10ms
	[ "$status" -eq 2 ]
	[[ "$output" == *"invalid interval"* ]]
	run "$IDLESCOPE" top extra
	[ "$status" -eq 2 ]
	run "$IDLESCOPE" top -C 4000
	[ "$status" -eq 2 ]
	[[ "$output" == "idlescope: CPU 4000 does not exist"* ]]
	run "$IDLESCOPE" top --topology bogus
	[ "$status" -eq 2 ]
}
