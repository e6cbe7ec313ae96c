# Independent oracle for `idlescope replay` on trace-cmd report / ftrace text:
# pairs power:cpu_idle events per CPU by the rules of docs/replay.md, with
# nothing shared with the C code. Prints per CPU (ascending):
#   cpu idle_ns edge_idle_ns busy_ns periods orphan_exits gap_periods idle_task_ns lost_exits
# idle_task_ns: time the idle task (pid 0) ran, from sched_switch; -1 none.
function ns(t,   a) { split(t, a, "."); return a[1] * 1000000000 + substr(a[2] "000000000", 1, 9) }
/^#/ { next }
/CPU:[0-9]+ \[/ { match($0, /CPU:[0-9]+/); g = substr($0, RSTART + 4, RLENGTH - 4) + 0; gap[g] = gapT[g] = 1; next }
match($0, /\[[0-9]+\][^:]* [0-9]+\.[0-9]+: /) {
	s = substr($0, RSTART, RLENGTH); match(s, /[0-9]+\.[0-9]+/); t = ns(substr(s, RSTART, RLENGTH))
	match($0, /\[[0-9]+\]/); c = substr($0, RSTART + 1, RLENGTH - 2) + 0
	if (!n++ || t < lo) lo = t
	if (t > hi) hi = t
	cpus[c] = 1
	if (gap[c]) { gap[c] = 0; if (c in open) { delete open[c]; gaps[c]++ } }
	if ($0 ~ /cpu_idle: +state=/) {
		match($0, /cpu_id=[0-9]+/); k = substr($0, RSTART + 7, RLENGTH - 7) + 0; cpus[k] = 1
		if ($0 ~ /state=(4294967295|-1) /) {
			if (k in open) { idle[k] += t - open[k]; periods[k]++; delete open[k] }
			else if (!(k in seen)) first[k] = t
			else orphan[k]++
		} else {
			if (k in open) lostexit[k]++ # its exit lost: not counted
			open[k] = t
		}
		seen[k] = 1
	}
	# sched_switch: the idle task (pid 0) from switch-in to switch-out; the
	# first switch's prev ran since before the window, the last next after it
	if ($0 ~ /sched_switch:/) {
		gapped = 0
		if (gapT[c]) { gapT[c] = 0; if (c in run0) { delete run0[c]; lost++; gapped = 1 } }
		p0 = $0 ~ /prev_pid=0 / || $0 ~ /: +swapper\/[0-9]+:0 /
		if (p0) {
			if (c in run0) task[c] += t - run0[c]
			else if (!(c in sw)) task[c] += t - lo
		}
		if ((c in sw) && !gapped && p0 != (c in run0)) lost++ # prev is not what ran
		delete run0[c]
		if ($0 ~ /next_pid=0 / || $0 ~ /==> swapper\/[0-9]+:0 /) run0[c] = t
		sw[c] = 1
	}
}
END {
	# idle-task runs not counted: a switch lost, or open across a gap
	if (ENVIRON["ORACLE_IDLE_TASK_DROPPED"]) { print lost + 0; exit }
	for (c = 0; c <= 4095; c++) {
		if (!(c in cpus)) continue
		e = (c in first) ? first[c] - lo : 0
		if (c in open) e += hi - open[c]
		it = (c in sw) ? task[c] + ((c in run0) ? hi - run0[c] : 0) : -1
		printf "%d %.0f %.0f %.0f %d %d %d %.0f %d\n", c, idle[c], e, hi - lo - idle[c] - e, periods[c], orphan[c], gaps[c], it, lostexit[c]
	}
}
