#!/usr/bin/env python3
"""Turns tests/bench/run.sh's measurements (build/bench-results.tsv) into
docs/performance.md: ratios to the un-observed runs (per pair for the paired
observers, tests/bench/estimate.py) with percentile bootstrap 95% intervals,
targets with verdicts, the marginal cost of each part
of idlescope, resources and replay speed; then, given a second argument, the
exporter's size table that `IDLESCOPE_PROM_SIZES=1 build/tests/test_prom`
printed into that file. Python's standard library only; the bootstrap's
generator is seeded per statistic, so the doc is reproducible from the TSV:
  python3 tests/bench/report.py build/bench-results.tsv [PROM_SIZES.md]"""
import csv
import statistics
import sys

from estimate import (BOOT, MIN_N, boot, needed, paired_added, paired_ratio, per_rep,
                      reps_needed, unpaired_added, unpaired_ratio, verdict)

FULL = "idlescope-default"  # every default feature on
REPLAY = ("replay-handlers", "replay-end-to-end")
PIPES = ("pipe-pinned", "pipe-free", "pingpong-cross")
MP3 = "mp3-wakeup-latency-us"
MAIN = ["floor", FULL, "idlescope-packing", "trace-cmd", "idlestat", "bpftrace",
        "libbpf-tools", "idlescope-idle"]

meta, skips, lines = {}, [], []
with open(sys.argv[1]) as f:
    for line in f:
        if not line.startswith("#"):
            lines.append(line)
            continue
        key, _, value = line[1:].strip().partition("\t")
        if key == "skip":
            skips.append(value)
        else:
            meta[key] = value
rows = list(csv.DictReader(lines, delimiter="\t"))
workloads = [w for w in dict.fromkeys(r["workload"] for r in rows) if w not in REPLAY]
observers = [o for o in dict.fromkeys(r["observer"] for r in rows
                                      if r["workload"] not in REPLAY) if o != "none"]
main_obs = [o for o in MAIN if o in observers] + \
    [o for o in observers if o not in MAIN and not o.startswith("idlescope-no-")]
parts = [o[len("idlescope-no-"):] for o in observers if o.startswith("idlescope-no-")]


def latency(w):
    return w.endswith("latency-us")


def vals(w, o, key="value"):
    # the workload values of the bpf_stats repetitions ("sN") are not used:
    # the stats' clock reads would be a cost the ftrace observers do not pay
    return [float(r[key]) for r in rows
            if r["workload"] == w and r["observer"] == o and r["prog"] == "-"
            and r.get(key) not in (None, "", "-") and not (key == "value" and r["rep"].startswith("s"))]


def ns(o, prog, w):
    return [float(r["ns_per_event"]) for r in rows
            if r["workload"] == w and r["observer"] == o and r["prog"] == prog]


def progs(o):
    return sorted({r["prog"] for r in rows if r["observer"] == o and r["prog"] != "-"})


def ran(o):
    return [w for w in workloads if vals(w, o)]


med = statistics.median


def pairs(w, o):
    """{rep: (observed, un-observed, side of the un-observed run)} of o's
    paired runs on w (a TSV written before the bench paired runs has none)"""
    got = {}
    for r in rows:
        if (r["workload"] == w and r["prog"] == "-" and r.get("pair") not in (None, "", "-")
                and r["value"] not in ("", "-") and not r["rep"].startswith("s")):
            got.setdefault(r["pair"], {})[r["observer"]] = (r["rep"], float(r["value"]),
                                                            r.get("none_at", "-"))
    return {d[o][0]: (d[o][1], d["none"][1], d[o][2])
            for d in got.values() if o in d and "none" in d}


def pair_ratios(w, o):
    return {rep: a / b for rep, (a, b, _) in pairs(w, o).items()}


def ratio_unpaired(w, o):  # observed median over the median of all un-observed runs
    return unpaired_ratio("ratio %s %s" % (w, o), vals(w, o), vals(w, "none"))


def ratio(w, o):  # per pair where o is paired (lower is better for latency)
    p = pairs(w, o)
    if p:
        return paired_ratio("pratio %s %s" % (w, o), list(p.values()))
    return ratio_unpaired(w, o)


def added(w, o):  # added latency, us
    p = pairs(w, o)
    if p:
        return paired_added("padded %s %s" % (w, o), list(p.values()))
    return unpaired_added("added %s %s" % (w, o), vals(w, o), vals(w, "none"))


def strata(o, prog, ws):
    return [ns(o, prog, w) for w in ws]


def pooled(gs):
    return med([v for g in gs for v in g])


def ns_ci(o, prog, ws):
    """ns/event over the runs of workloads ws, resampled within each workload"""
    gs = [g for g in strata(o, prog, ws) if g]
    return boot("ns %s %s %s" % (o, prog, ws), gs, pooled) if gs else None


def ns_diff(a, b, prog, ws):
    """ns/event of a minus that of b (0 where b has no such program), same workloads"""
    ga, gb = strata(a, prog, ws), strata(b, prog, ws)
    keep = [i for i, g in enumerate(ga) if g]
    ga = [ga[i] for i in keep]
    gb = [gb[i] for i in keep if gb[i]]
    if not ga:
        return None
    n = len(ga)
    return boot("nsdiff %s %s %s %s" % (a, b, prog, ws), ga + gb,
                lambda g: pooled(g[:n]) - (pooled(g[n:]) if g[n:] else 0))


def fmt(ci, f="%.3f", unit=""):
    if ci is None:
        return "n/a"
    return (f + unit + " [" + f + ", " + f + "]") % ci


def cell(w, o):
    mark = " (p)" if pairs(w, o) else ""
    if latency(w):
        return fmt(added(w, o), "%+.1f", " us") + mark
    return fmt(ratio(w, o)) + mark


out = []
out.append("# idlescope performance\n")
idle = meta.get("cpuidle", "unknown")
out.append("Measured by `make bench` (tests/bench/run.sh) on %s: host `%s`, kernel %s (%s), "
           "%s CPUs, cpuidle driver %s, clocksource %s; %s interleaved repetitions per "
           "workload and observer. Every figure below comes from the raw rows "
           "(`build/bench-results.tsv`); `python3 tests/bench/report.py build/bench-results.tsv` "
           "rewrites it.\n"
           % (meta.get("date", "?"), meta.get("host", "?"), meta.get("kernel", "?"),
              meta.get("arch", "?"), meta.get("cpus", "?"),
              "none (no idle states: `cpu_idle` comes from the default idle loop)"
              if idle in ("none", "absent") else "`%s`" % idle,
              "`%s`" % meta.get("clocksource", "?"), meta.get("reps", "?")))
paired = [o for o in observers if any(pairs(w, o) for w in workloads)]


def order_effect():
    """how the pair ratios differ with the observer first (un-observed run
    after it) and second, over every paired observer and workload"""
    by = {"before": [], "after": []}
    for w in workloads:
        if latency(w):
            continue
        for o in paired:
            for a, b, side in pairs(w, o).values():
                if side in by:
                    by[side].append(a / b)
    if not (by["before"] and by["after"]):
        return ""
    d = med(by["after"]) / med(by["before"]) - 1
    return (" (here the throughput pairs with the observer first have a median ratio %.1f%% "
            "%s those with it second, %d and %d pairs)"
            % (abs(100 * d), "below" if d < 0 else "above", len(by["after"]), len(by["before"])))


if paired:
    how = ("How ratios are formed: in each repetition every workload runs under each observer "
           "in turn, the observers' order rotated by one per repetition. Every run of %s (the "
           "observers the targets compare) has its own un-observed (\"none\") run of the same "
           "workload right before it (odd repetitions) or right after it (even ones), and its "
           "ratio is formed per pair: whatever drifts over the minutes of the bench divides "
           "out of each pair. Their figure, marked (p), "
           "is the median of the pair ratios (added latency: of the pair differences) of the "
           "pairs whose un-observed run came first and that of those where it came second, "
           "combined (geometric mean; for latency the mean), so that an effect of running "
           "first or second cancels even with 4 pairs on one side and 3 on the other, which "
           "one median of all pairs would not do%s; the interval a 95%% percentile "
           "bootstrap over the pairs, within each side (%d resamples, a fixed seed "
           "per figure); medians rather than the geometric mean because one run that another "
           "process hit moves a 7-pair mean by a seventh of its log ratio (3.5%% at a 25%% "
           "hit) but a median by one order statistic, and without such a hit the two are "
           "about as narrow. A difference between two paired observers (against idlestat, "
           "`--packing` against the default) is formed per repetition from their pairs on the "
           "same workload, which have their un-observed runs on the same side, so the order's "
           "effect leaves the difference; its median and bootstrap are over the repetitions. "
           "The other observers' ratio is the median of their runs over the median of all un-observed runs of the "
           "workload, the two resampled independently. "
           % (", ".join("`%s`" % o for o in paired), order_effect(), BOOT))
else:
    how = ("How ratios are formed: in each repetition every workload runs under each observer "
           "in turn, the observers' order rotated by one per repetition, with an un-observed "
           "(\"none\") run before the %s observer run of the workload. An observer's "
           "ratio is the median of its runs divided by the median of all un-observed runs of "
           "the same workload (so the un-observed runs are spread over the same minutes as the "
           "observed ones); the interval is a 95%% percentile bootstrap (%d resamples) that "
           "resamples the observed and the un-observed runs independently, with a fixed seed "
           "per figure. "
           % (", ".join("%dth" % (1 + k * int(meta.get("none_every", 4))) for k in range(1, 3))
              .join(("1st, ", ", ...")), BOOT))
out.append(how +
           "Throughput rows: ops/s ratio (1 = no cost). Latency rows: median added "
           "latency in us (cyclictest's average latency; the mean wakeup latency of rt-app's "
           "mp3 AudioTick thread). The marginal observers (`idlescope-no-*`, and `idlescope-idle` "
           "when BENCH_OBSERVERS names it) run on %s only, to keep a full run under 20 "
           "minutes. Every run here has `kernel.bpf_stats_enabled` off: its two clock reads "
           "per BPF program run would be a cost of the BPF observers that the ftrace ones do "
           "not pay (a user's observer does not pay it either). The BPF figures below come "
           "from %s further repetitions of the BPF observers with it on, whose workload "
           "values are left out of the ratios.\n"
           % (" and ".join(meta.get("marginal_workloads", "pipe-pinned pipe-free").split()),
              meta.get("ns_reps", "?")))
if skips:
    out.append("Not measured here: " + "; ".join(skips) + ".\n")
base = []
for w in workloads:
    b = vals(w, "none")
    base.append("%s %s (%d runs)" % (w, ("%.1f us" if latency(w) else "%.0f ops/s")
                                     % med(b), len(b)) if b else w)
out.append("Un-observed medians: " + ", ".join(base) + ".\n")
out.append("| observer | " + " | ".join(workloads) + " |")
out.append("|---|" + "---|" * len(workloads))
for o in observers:
    out.append("| %s | %s |" % (o, " | ".join(cell(w, o) if vals(w, o) else "-"
                                                for w in workloads)))
out.append("")
if paired:
    out.append("What pairing buys, on these same runs: each paired observer's ratio per pair "
               "(p) and, unpaired, its runs' median over the median of all un-observed runs of "
               "the workload (the estimator of the bench before it paired runs); the interval's "
               "width (high - low) after each.\n")
    out.append("| observer | workload | pairs | paired (p) | width | unpaired | width |")
    out.append("|---|---|---|---|---|---|---|")
    for o in paired:
        for w in workloads:
            if not pairs(w, o):
                continue
            a, b = ratio(w, o), ratio_unpaired(w, o)
            out.append("| %s | %s | %d | %s | %.3f | %s | %.3f |" % (
                o, w, len(pairs(w, o)), fmt(a), a[2] - a[1], fmt(b), b[2] - b[1]))
    out.append("")

out.append("BPF CPU time per event (the repetitions with `kernel.bpf_stats_enabled` on: run "
           "time over run count of each program in each run; median over all runs of all "
           "workloads with the bootstrap interval, resampled within each workload; the stats' "
           "own clock reads are included, which is part of why even the floor costs 50-300 ns "
           "here):\n")
out.append("| observer | program | ns/event | runs |")
out.append("|---|---|---|---|")
for o in main_obs:
    for p in progs(o):
        n = sum(len(g) for g in strata(o, p, workloads))
        out.append("| %s | %s | %s | %d |" % (o, p, fmt(ns_ci(o, p, workloads), "%.0f"), n))
out.append("")

# Each program against the floor's program of the same event: what the
# handler's own work costs over merely being called there.
def ns_pairs(a, pa, b, pb, key="ns_per_event"):
    """{(workload, rep): (a's ns/event, b's)} over the bpf_stats repetitions both ran;
    with key="bpf_share" and prog "-", the two observers' BPF shares"""
    got = {}
    for r in rows:
        if r["prog"] in (pa, pb) and r["observer"] in (a, b) and r.get(key) not in (None, "", "-"):
            got.setdefault((r["workload"], r["rep"]), {})[(r["observer"], r["prog"])] = \
                float(r[key])
    return {k: (d[(a, pa)], d[(b, pb)]) for k, d in got.items() if (a, pa) in d and (b, pb) in d}


def ns_ratio(a, pa, b, pb):
    """a's program over b's: per repetition and workload where both ran (the
    two observers run one after the other on the same workload), median and
    bootstrap over those pairs"""
    p = ns_pairs(a, pa, b, pb)
    return paired_ratio("nsratio %s %s %s %s" % (a, pa, b, pb), list(p.values())) if p else None


def own_floor(p):  # tp_btf_cpu_idle -> floor_cpu_idle
    return "floor_" + p.split("_", 2)[2] if p.startswith(("tp_btf_", "raw_tp_")) else None


if "floor" in observers:
    fpairs = [(p, own_floor(p)) for p in progs(FULL) if own_floor(p) in progs("floor")]
    if fpairs:
        out.append("Each program of `%s` against the floor's program of the same event (the "
                   "floor bumps one per-CPU counter there; an interrupt-path event runs on a CPU "
                   "just out of idle, with cold caches, so its floor is several times the "
                   "floor's `sched_wakeup`): ns/event ratio [95%% interval], per repetition and "
                   "workload where both ran (the floor and idlescope run one after the other on "
                   "it), median and bootstrap over those pairs.\n" % FULL)
        out.append("| program | floor's ns/event | ratio to it |")
        out.append("|---|---|---|")
        for p, fp in fpairs:
            ws = [w for w in workloads if ns(FULL, p, w) and ns("floor", fp, w)]
            r = ns_ratio(FULL, p, "floor", fp)
            out.append("| %s | %s | %s |" % (p, fmt(ns_ci("floor", fp, ws), "%.0f"),
                                             fmt(r, "%.2f", "x")))
        out.append("")

# BENCH_BASELINE: each program beside the same program of another build,
# in the same repetitions and workloads.
BASE = "idlescope-baseline"
if BASE in observers:
    bp = [p for p in progs(FULL) if p in progs(BASE)]
    if bp:
        out.append("Each program of `%s` against the same program of `%s` (BENCH_BASELINE: "
                   "`%s`), measured in the same repetitions: ns/event ratio [95%% interval] per "
                   "repetition and workload where both ran, median and bootstrap over those "
                   "pairs; below 1 the default build is cheaper.\n"
                   % (FULL, BASE, meta.get("baseline", "?")))
        out.append("| program | baseline ns/event | default ns/event | default / baseline |")
        out.append("|---|---|---|---|")
        for p in bp:
            ws = [w for w in workloads if ns(FULL, p, w) and ns(BASE, p, w)]
            out.append("| %s | %s | %s | %s |" % (
                p, fmt(ns_ci(BASE, p, ws), "%.0f"), fmt(ns_ci(FULL, p, ws), "%.0f"),
                fmt(ns_ratio(FULL, p, BASE, p), "%.2f", "x")))
        out.append("")
    # a cost that moves from one program to another (a line the next one
    # would have missed) shows here, not in the rows above
    share = ns_pairs(FULL, "-", BASE, "-", "bpf_share")
    sw = [w for w in workloads if any(k[0] == w for k in share)]
    if sw:
        out.append("All of each build's programs together: its BPF share (run time of every "
                   "program over the workload's wall time times the CPUs), default over "
                   "baseline per repetition, median and bootstrap.\n")
        out.append("| workload | baseline BPF share | default BPF share | default / baseline |")
        out.append("|---|---|---|---|")
        for w in sw:
            ps = [v for k, v in share.items() if k[0] == w]
            out.append("| %s | %.4f | %.4f | %s |" % (
                w, med(b for _, b in ps), med(a for a, _ in ps),
                fmt(paired_ratio("share %s" % w, ps), "%.2f", "x")))
        out.append("")

# Marginal cost: default minus default-without-PART, on the workloads both ran.
if parts or "idlescope-packing" in observers:
    cols = [(p, "idlescope-no-" + p, -1) for p in parts]
    if "idlescope-packing" in observers:
        cols.append(("+packing", "idlescope-packing", 1))
    mw = [w for w in workloads
          if all(w in ran(o) for _, o, _ in cols) and w in ran(FULL)]
    out.append("## Marginal cost\n")
    out.append("What each part of `%s` costs: the default minus `record --without=PART` "
               "(`idlescope-no-PART`), and `--packing` as a part added to the default "
               "(`idlescope-packing` minus the default), on %s. BPF ns/event per program "
               "(a program the part's removal detaches shows its whole cost, marked *off*; "
               "one the part adds, *new*):\n" % (FULL, ", ".join(mw) or "no common workload"))
    out.append("| program | default ns/event | " +
               " | ".join(("without " + p) if s < 0 else p for p, _, s in cols) + " |")
    out.append("|---|---|" + "---|" * len(cols))
    allp = sorted(set(progs(FULL)).union(*[progs(o) for _, o, _ in cols]))
    for p in allp:
        cells = []
        for _, o, s in cols:
            a, b = (FULL, o) if s < 0 else (o, FULL)
            d = ns_diff(a, b, p, mw)
            mark = ""
            if d and not any(strata(b, p, mw)):
                mark = " *off*" if s < 0 else " *new*"
            cells.append(fmt(d, "%+.0f") + mark if d else "-")
        out.append("| %s | %s | %s |" % (p, fmt(ns_ci(FULL, p, mw), "%.0f"), " | ".join(cells)))
    out.append("")
    out.append("Throughput cost of each part (cost = 1 - ratio; the part's cost is the "
               "default's cost minus the cost without it, i.e. ratio without it minus the "
               "default's ratio; the un-observed runs are resampled once for both):\n")
    tws = [w for w in mw if not latency(w)]
    out.append("| part | " + " | ".join(tws) + " |")
    out.append("|---|" + "---|" * len(tws))
    for p, o, s in cols:
        cells = []
        for w in tws:
            a, b = (o, FULL) if s < 0 else (FULL, o)
            cells.append(fmt(boot("partcost %s %s" % (w, o),
                                  [vals(w, a), vals(w, b), vals(w, "none")],
                                  lambda g: (med(g[0]) - med(g[1])) / med(g[2])), "%+.3f"))
        out.append("| %s | %s |" % (("without " + p) if s < 0 else p, " | ".join(cells)))
    out.append("")

out.append("## Resources\n")
out.append("Per observer, medians over all runs. Memory and loader CPU time sum every process of "
           "the observer (trace-cmd forks a recorder per CPU); BPF share is the observer's BPF "
           "run time over the workload's wall time times the CPU count; trace bytes/s is the "
           "file-based tools' output per second observed.\n")
out.append("Memory is read three ways during the workload. RSS is `VmRSS` (`/proc/PID/status`), "
           "of it anonymous `RssAnon`; it counts every resident page the process maps whole, "
           "shared libraries' too, and libc's pages (about 1.5 MB of a dynamic binary's RSS) "
           "are mapped by every process on the machine. Pss (`/proc/PID/smaps_rollup`) "
           "divides each shared page among the processes mapping it: what the observer adds "
           "to the machine, its own code, heap and the libraries only it maps charged whole, "
           "libc's pages a share. Private (`Private_Clean` + `Private_Dirty`) is what no other "
           "process maps. The 3 MB target is checked on Pss: VmRSS would charge libc to the "
           "observer, Private would charge it none of the libraries it shares; a static "
           "binary's three figures are about equal, as it shares nothing. idlescope reports "
           "the same three about itself (`idlescope_memory_pss_bytes`, "
           "`idlescope_memory_private_bytes`, `process_resident_memory_bytes`).\n")
out.append("| observer | RSS (MB) | of it anonymous (MB) | Pss (MB) | Private (MB) "
           "| BPF map memory (KB) | start-up to attached (ms) "
           "| BPF CPU share | loader CPU (s per run) | trace bytes/s |")
out.append("|---|---|---|---|---|---|---|---|---|---|")


def col(o, key, pos=True):
    return [v for w in workloads for v in vals(w, o, key) if (v > 0 or not pos)]


def mfmt(xs, f):
    return f(med(xs)) if xs else "n/a"


for o in main_obs:
    out.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
        o, mfmt(col(o, "rss_kb"), lambda m: "%.1f" % (m / 1024)),
        mfmt(col(o, "rss_anon_kb"), lambda m: "%.1f" % (m / 1024)),
        mfmt(col(o, "pss_kb"), lambda m: "%.1f" % (m / 1024)),
        mfmt(col(o, "private_kb"), lambda m: "%.1f" % (m / 1024)),
        mfmt(col(o, "map_bytes"), lambda m: ("%.1f" if m < 10240 else "%.0f") % (m / 1024)),
        mfmt(col(o, "startup_ms"), lambda m: "%.0f" % m),
        mfmt(col(o, "bpf_share"), lambda m: "%.2f%%" % (100 * m)),
        mfmt(col(o, "loader_cpu_s", False), lambda m: "%.2f" % m),
        mfmt(col(o, "trace_bytes_s"), lambda m: "%.0f KB/s" % (m / 1e3))))
out.append("")

rates = {w: vals(w, "idlescope") for w in REPLAY}
if rates["replay-end-to-end"]:
    out.append("Replay speed (tests/bench/replay_rate.sh: a generated 3-million-event ftrace "
               "text trace of 8 CPUs in 2 clusters through `idlescope replay`; median events/s "
               "[95%% interval]): through the BPF handlers alone %s; with reading and parsing "
               "the file %s.\n"
               % tuple(fmt(boot("replay " + w, [[v / 1e6 for v in rates[w]]],
                                lambda g: med(g[0])), "%.2f", " M") for w in REPLAY))

# Targets (issue 23), for idlescope-default unless said.
checks = []  # (target, measured, verdict)
NODRIVER = meta.get("cpuidle", "unknown") in ("none", "absent")


def spread(xs):  # max over min - 1
    return max(xs) / min(xs) - 1 if xs and min(xs) > 0 else float("nan")


def noise_why(w):
    """why a driver-less host cannot resolve a ratio on w: its runs' own spread"""
    if not (NODRIVER and vals(w, "none")):
        return ""
    pr = [r for o in paired for r in pair_ratios(w, o).values()]
    return ("; no cpuidle driver (below): the un-observed runs of %s span %.0f%%%s"
            % (w, 100 * spread(vals(w, "none")),
               ", its pair ratios %.0f%%" % (100 * spread(pr)) if pr else ""))


def check(name, ci, target, higher=True, f="%.3f", unit="", n=None, why="", shown=None,
          of="repetitions"):
    """a target's row: the verdict, and where not resolved the half-width that
    would resolve it (and, given n, about how many repetitions, or what of,
    that takes)"""
    v = verdict(ci, target, higher, n)
    if v.startswith("not resolved") and n is not None and n < MIN_N:
        v += ": %d pairs or runs, a 95%% interval of a median needs at least %d" % (n, MIN_N)
    elif v.startswith("not resolved"):
        need, half = needed(ci, target)
        v += ": needs its half toward the target within %s%s, has %s%s" % (
            (f % need).lstrip("+"), unit, (f % half).lstrip("+"), unit)
        k = reps_needed(n, half, need) if n else None
        if k:
            v += " (about %d %s)" % (k, of) if k < 1000 else " (over 1000 %s)" % of
        v += why
    checks.append((name, shown or fmt(ci, f, unit), v))


for w in PIPES:
    ci = ratio(w, FULL)
    if ci:
        check("throughput, %s >= 0.98 of none" % w, ci, 0.98,
              n=len(pairs(w, FULL)) or len(vals(w, FULL)), why=noise_why(w))
if vals(MP3, FULL):
    ci = ratio(MP3, FULL)
    a = added(MP3, FULL)
    check("mp3 wakeup latency <= 1.02 of none (added <= 2%% of the un-observed %.0f us)"
          % med(vals(MP3, "none")), ci, 1.02, False,
          n=len(pairs(MP3, FULL)) or len(vals(MP3, FULL)), why=noise_why(MP3),
          shown="%s (added %s)" % (fmt(ci), fmt(a, "%+.1f", " us")))
if "idlestat" in observers:
    for w in workloads:
        if not (vals(w, FULL) and vals(w, "idlestat")):
            continue
        # >= 0 when idlescope costs no more than idlestat
        sign = -1 if latency(w) else 1
        pa, pb = pair_ratios(w, FULL), pair_ratios(w, "idlestat")
        if set(pa) & set(pb):
            ci = per_rep("vs idlestat " + w, pa, pb, lambda x, y: sign * (x - y))
            how = ("per repetition, %s; >= 0" % ("idlestat's latency ratio minus ours"
                                                 if latency(w) else "our ratio minus idlestat's"))
            n = len(set(pa) & set(pb))
        else:
            ci = boot("vs idlestat " + w, [vals(w, FULL), vals(w, "idlestat"), vals(w, "none")],
                      lambda g: sign * (med(g[0]) - med(g[1])) / med(g[2]))
            how = ("%s, over none's median; >= 0" % ("idlestat's added latency minus ours"
                                                     if latency(w) else "our ratio minus idlestat's"))
            n = len(vals(w, FULL))
        check("at least as good as idlestat, %s (%s)" % (w, how), ci, 0, f="%+.3f", n=n,
              why=noise_why(w))


if "floor" in observers:
    for p in progs(FULL):
        fp = own_floor(p)
        if fp not in progs("floor"):
            continue
        t = 1.3 if p.endswith("_cpu_idle") else 1.5
        ci = ns_ratio(FULL, p, "floor", fp)
        check("`%s` <= %.1fx the floor's `%s` (ns/event, its own event)" % (p, t, fp), ci, t,
              False, "%.2f", "x", n=len(ns_pairs(FULL, p, "floor", fp)),
              of="repetition-workload pairs")
    # an event the floor hooks and the default does not (sched_switch; the
    # no-IPI wakeup, found at the idle exit): nothing of ours runs there
    hooked = {own_floor(p) for p in progs(FULL)}
    for fp in sorted(progs("floor")) if progs(FULL) else []:
        if fp not in hooked:
            checks.append(("`%s`'s event: <= 1.5x the floor's" % fp.replace("floor_", "", 1),
                           "no program attached by `%s`" % FULL, "met (nothing runs on it)"))
if "idlescope-packing" in observers:
    for w in PIPES:
        if not (vals(w, FULL) and vals(w, "idlescope-packing")):
            continue
        # 1.3 x the default's cost minus --packing's: >= 0 when met
        pa, pb = pair_ratios(w, FULL), pair_ratios(w, "idlescope-packing")
        if set(pa) & set(pb):
            ci = per_rep("packing " + w, pa, pb, lambda d, k: 1.3 * (1 - d) - (1 - k))
            n = len(set(pa) & set(pb))
        else:
            ci = boot("packing " + w,
                      [vals(w, FULL), vals(w, "idlescope-packing"), vals(w, "none")],
                      lambda g: 1.3 * (1 - med(g[0]) / med(g[2])) - (1 - med(g[1]) / med(g[2])))
            n = len(vals(w, FULL))
        c = [ratio(w, o) for o in ("idlescope-packing", FULL)]
        check("`--packing` throughput cost <= 1.3x the default's, %s "
              "(1.3 x default's cost minus packing's >= 0)" % w, ci, 0, f="%+.3f", n=n,
              why=noise_why(w), shown="%s (costs %.3f and %.3f)"
              % (fmt(ci, "%+.3f"), 1 - c[0][0], 1 - c[1][0]))


def median_target(name, xs, target, scale, f, unit, higher=False):
    if xs:
        ci = boot("target " + name, [[x / scale for x in xs]], lambda g: med(g[0]))
        check(name, ci, target, higher, f, unit, n=len(xs), of="runs")


# on Pss (the Resources section says why); results from before it was
# measured have VmRSS only, and the row says so
if col(FULL, "pss_kb"):
    median_target("memory (Pss) <= 3 MB (steady, during the workload)", col(FULL, "pss_kb"), 3,
                  1024, "%.2f", " MB")
else:
    median_target("memory (VmRSS: no Pss in these results) <= 3 MB (steady, during the workload)",
                  col(FULL, "rss_kb"), 3, 1024, "%.2f", " MB")
median_target("BPF map memory <= 100 KB on %s CPUs (linear in CPUs: the many-CPU guests)"
              % meta.get("cpus", "?"), col(FULL, "map_bytes"), 100, 1024, "%.0f", " KB")
median_target("start-up <= 300 ms", col(FULL, "startup_ms"), 300, 1, "%.0f", " ms")
median_target("replay >= 1 M events/s (end to end)", rates["replay-end-to-end"], 1, 1e6,
              "%.2f", " M", True)
out.append("## Targets\n")
out.append("For `%s` (every default feature on) unless said. Verdicts from the 95%% interval: "
           "*met* when it lies entirely on the target's good side, **MISSED** when entirely on "
           "the wrong side, *not resolved at this noise* when it straddles the target, with the "
           "half-width that would resolve it (the estimate's distance to the target), the "
           "interval's half toward the target now, and about how many repetitions that takes "
           "(width falling as 1/sqrt(n)). The idle "
           "handler is held to 1.3x the floor's program of the same event, every other program "
           "(scheduler, interrupt, timer and IPI paths) to 1.5x the floor's program of its own "
           "event, per repetition and workload where both ran. For mp3 the target is a latency ratio: the "
           "workload does a fixed amount of work per 6 ms tick, so its throughput cannot "
           "show a cost; what an observer adds shows in how late AudioTick runs after its "
           "wakeup, and a ratio to the un-observed median (<= 1.02, i.e. at most 2%% added) "
           "carries the baseline's own uncertainty into the interval, which a fixed number "
           "of microseconds would not.\n" % FULL)
out.append("| target | measured [95% interval] | verdict |")
out.append("|---|---|---|")
for name, got, v in checks:
    out.append("| %s | %s | %s |" % (name, got, v))
out.append("")
if NODRIVER and any("no cpuidle driver" in v for _, _, v in checks):
    out.append("Why a host without a cpuidle driver leaves throughput targets unresolved: every "
               "idle period is the default idle loop's HLT, an exit to the hypervisor, and "
               "every wakeup of a halted vCPU an interrupt the host must deliver, so a run's "
               "rate follows when the host schedules the vCPUs (and what else it runs then). "
               "That changes from one run to the next, not slowly: the spans in the rows above "
               "are between adjacent runs as much as across the bench. Pairing cancels what "
               "drifts over minutes, not that; the interval then narrows only as 1/sqrt(pairs), "
               "hence the repetitions each row would need. The ns/event targets do not depend "
               "on it (each program's own run time over its floor's in the same repetition); "
               "the throughput targets get their verdicts on a host kind with a cpuidle driver "
               "(haltpoll), where a halted vCPU polls before it exits.\n")
out.append("Why the handler targets are missed where they are. The floor's `cpu_idle` handler "
           "reads the clock and bumps one per-CPU counter. idlescope's does per idle period "
           "what the metrics need: the period's state statistics and histogram bucket, the "
           "kernel's above/below rule against the CPU's state table, the ideal-state matrix, "
           "the wakeup attribution of the period that ended (cause, timer lateness, detail "
           "rows) and, with groups, the topology nodes' all-idle time. A small top node (at "
           "most 8 CPUs, as on these 2-CPU hosts: one package) has no shared word: each exit "
           "reads the other members' slots and the exit that ends an all-idle interval claims "
           "it with one exchange (docs/metrics.md, lazy nodes); larger nodes and the levels "
           "under a parent keep a fetch-and-add on a shared word per idle entry and exit. "
           "The Marginal cost table gives each part's share: groups are most of it wherever "
           "two CPUs of one node go in and out of idle in turn, as in the ping-pong, where "
           "nearly every exit ends an all-idle interval: each such exit reads a line the "
           "other CPU wrote and takes the claim's line over. No exact all-idle count avoids "
           "that transfer, since each CPU's change must reach the others; on this host it is "
           "about as much as the floor's whole handler. `--without groups` "
           "(`idlescope-no-groups`) takes it away; `idlescope info --costs` measures every part "
           "on the user's own kernel. The scheduler and interrupt-path targets are held to "
           "1.5x the floor's `sched_wakeup`, a hot-path event; the floor's own programs on the "
           "interrupt path cost several times that on this guest (the table above: a timer "
           "interrupt or an IRQ arrives on a CPU that was halted, its caches cold), so those "
           "rows are judged against their own event's floor as well. An interrupt-path "
           "program reads and writes one line of its CPU's slot (the wake attribution, with "
           "its own copy of the wake's phase), the floor's one counter. `sched_wakeup` reads "
           "(and, for the first wakee, writes) the target CPU's slot, which that CPU writes at "
           "every idle entry and exit: a cross-CPU cache miss whenever the target just went "
           "idle; the wakee's name comes with two loads, not a string copy. "
           "`sched_wake_idle_without_ipi` did the same on every wakeup of a polling CPU "
           "(4.5x its floor on the haltpoll host); the woken CPU now finds that cause at its "
           "own exit (docs/metrics.md, poll-resched) and the event is not hooked. RSS: after the load the embedded BPF "
           "objects' pages are dropped from the resident set and the freed heap is trimmed; "
           "what remains is the binary's code in use, the maps' bookkeeping, the "
           "snapshots and the open BPF object (libbpf keeps its instructions and line info "
           "for the session: a live session opens the object without the raw_tp fallbacks "
           "and the replay code, 0.46 MB of heap instead of 1.04 on the 2-CPU host). In the dynamic build only `serve` maps libmicrohttpd and GnuTLS "
           "(opened when it starts, with p11-kit, nettle and the rest behind them: about "
           "2.6 MB of VmRSS on the 2-CPU host); the other commands never map them.\n")
# Where idlescope costs more than idlestat, the floor (same events, no work
# in them) on the same workload says how much of that is being called there.
behind = [(w, ratio(w, FULL), ratio(w, "floor"), ratio(w, "idlestat")) for w in workloads
          if not latency(w) and "floor" in observers and "idlestat" in observers
          and vals(w, FULL) and vals(w, "floor") and vals(w, "idlestat")
          and ratio(w, FULL)[0] < ratio(w, "idlestat")[0]]
if behind:
    out.append("Where idlescope's ratio is below idlestat's, the floor's on the same workload "
               "(it hooks the same events as idlescope's default session and does nothing in "
               "them) says how much of the cost is that of being called on those events: "
               + "; ".join("%s: idlescope %s, floor %s, idlestat %s" % (w, fmt(a), fmt(b), fmt(c))
                           for w, a, b, c in behind)
               + ". idlestat traces fewer events (idle, frequency, IRQs) through ftrace; every "
               "BPF observer of the wakeup path pays for each wakeup, IPI and interrupt on the "
               "woken CPU's critical path.\n")
out.append("Notes: `perf bench sched pipe` left free on two CPUs is bimodal on this guest (about "
           "2.5 us per round trip when the scheduler keeps both tasks on one CPU, 30-70 us when "
           "they sit on two), so its ratios swing far past 1 either way and its intervals are "
           "wide; the pinned pipe and the timer rows are the stable ones. The BPF ns/event "
           "figures include the cost of `kernel.bpf_stats_enabled`'s own clock reads. With 7 "
           "pairs (or runs a side) the percentile bootstrap of a median cannot reach past the "
           "runs' own spread, so its intervals are if anything narrow: a verdict near a "
           "target's edge wants more repetitions (`BENCH_REPS`), and below %d pairs or runs "
           "there is none. The "
           "anchors are what a user would run instead: `bpftrace tests/bench/idle-runq.bt` (an "
           "idle-duration histogram from `power:cpu_idle` and a run-queue latency histogram "
           "from `sched_wakeup`/`sched_switch`, written the way one would by hand) and "
           "libbpf-tools' `runqlat` and `cpudist` running together.\n" % MIN_N)
if len(sys.argv) > 2:
    out.append("## Exporter size\n")
    out.append("Series and bytes of one `/metrics` scrape of `idlescope serve`, printed by "
               "`IDLESCOPE_PROM_SIZES=1 build/tests/test_prom`: the exporter's writer "
               "(`user/render/prom.c`) over a synthetic machine of 2, 32 and 128 CPUs with 4 idle "
               "states each (POLL, C1, C1E, C6), wakeups on, and values of a host up for about a "
               "day (7-digit counts, seconds to the nanosecond); no timing, so the numbers are the "
               "same on every machine. Series per CPU is (series at 128 CPUs - series at 32) / 96. "
               "Groups have 3 series each (info, all-idle seconds and periods), 19 with "
               "`--group-histograms`: with two packages they are part of the fixed series; with "
               "a group per 2 CPUs (an SMT core in the default tree, or clusters of 2) they add "
               "1.5 series per CPU (9.5 with `--group-histograms`).\n")
    out.append(open(sys.argv[2]).read().rstrip("\n") + "\n")
    out.append("By default (`serve` with no flag) the series per CPU are the state counters "
               "(entries, residency, above, below) and busy seconds: 4 per state + 1, plus 3 per "
               "group; the histograms, wakeup counters, early periods and exit cost are per state "
               "and cause over all CPUs. "
               "`tests/unit/test_prom.c` holds that to at most 25 series per CPU (exactly, for 4 "
               "to 6 states; with a group per SMT core up to 5 states) and counts every flag's "
               "series exactly. With all three flags every family is per CPU and per group, as "
               "`serve` wrote before the flags existed; the synthetic machine with clusters of 2 "
               "CPUs then has the line counts of the guests' scrapes in issue #13 (417, 6,012 and "
               "23,916 lines, the unit test checks them) plus the 3 exit cost families added "
               "since (12 lines per CPU and 6 header lines) and the `poll-timeout` cause (2 lines "
               "per CPU), and about their bytes (30 KB, "
               "437 KB and 1.75 MB reported there).\n")
print("\n".join(out))
