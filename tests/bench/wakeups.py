#!/usr/bin/env python3
"""The arithmetic of tests/bench/wakeups.sh: idle periods per second per CPU
from two snapshots of the kernel's counters, and the added wakeups of each
command over paired un-observed runs. Python's standard library only.

  wakeups.py table RESULTS.tsv...       the docs/performance.md section (a table per file)
  wakeups.py doc DOC.md RESULTS.tsv...  that section written into DOC.md: replaced
                                        where it is, else appended

Each row of RESULTS.tsv holds a window's per-CPU counts before and after
("0:N 1:M", wakeups.sh --counts of a snapshot: the cpuidle driver's usage
summed over each CPU's states, or without a driver the CPU's column of
/proc/interrupts summed over its rows), its length in seconds and, in newer
files, the observer's time on a CPU in it (cpu_ns, "-" for un-observed runs)."""
import math
import re
import statistics
import sys

# two-sided 95% Student t quantiles by degrees of freedom (1..30); above, 1.96
T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
       2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
       2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]
TARGET = 0.2  # added wakeups/s/CPU beyond the command's own ticks (issue 23)

def parse_counts(text):
    """{cpu: count} from wakeups.sh's "0:N 1:M" (its --counts of a snapshot)."""
    out = {}
    for p in text.split():
        c, _, v = p.partition(":")
        if not c.isdigit() or not v.isdigit():
            raise ValueError("not CPU:COUNT: %r" % p)
        out[int(c)] = int(v)
    if not out:
        raise ValueError("no counts")
    return out


def rates(before, after, seconds):
    """Idle periods (or interrupts) per second of each CPU between two snapshots."""
    a, b = parse_counts(before), parse_counts(after)
    if set(a) != set(b):
        raise ValueError("snapshots of different CPUs")
    if seconds <= 0:
        raise ValueError("window of %r s" % seconds)
    for c in a:
        if b[c] < a[c]:
            raise ValueError("cpu%d counter went back (%d -> %d)" % (c, a[c], b[c]))
    return {c: (b[c] - a[c]) / seconds for c in sorted(a)}


def mean_ci(xs):
    """Mean and its 95% t interval (a single value: no interval)."""
    m = statistics.fmean(xs)
    if len(xs) < 2:
        return m, None, None
    t = T95[len(xs) - 2] if len(xs) - 1 <= len(T95) else 1.96
    h = t * statistics.stdev(xs) / math.sqrt(len(xs))
    return m, m - h, m + h


def verdict(lo, hi):
    """On the interval of the excess over the command's own ticks."""
    if hi is None:
        return "one run: no verdict"
    if hi <= TARGET:
        return "met"
    if lo > TARGET:
        return "MISSED"
    return "not resolved"


REF = "tick-ref"  # wakeups.sh's reference 1 Hz ticker (no idlescope)


def summarize(rows):
    """rows: dicts with rep, observer, ticks (own wakeups/s of the command),
    rates (per CPU, {cpu: rate}); every observed row follows its paired "none"
    row. Returns one dict per observer, in first-seen order.

    What a command's own ticks cost: with the reference ticker (REF) in the
    rows, what it added in the same repetition times the command's ticks
    per second, subtracted per repetition (the t interval is then over those
    differences); without it, 1/CPUs per tick (the wake alone)."""
    out, none = {}, None
    for r in rows:
        if r["observer"] == "none":
            none = r
            continue
        if none is None or none["rep"] != r["rep"]:
            raise ValueError("observed run %s/%s has no paired none run" % (r["rep"], r["observer"]))
        ncpu = len(r["rates"])
        o = out.setdefault(r["observer"], {"observer": r["observer"], "ticks": r["ticks"],
                                           "ncpu": ncpu, "none": [], "obs": [], "added": [],
                                           "by_rep": {}, "cpu_ms": []})
        if r.get("cpu_ms") is not None:
            o["cpu_ms"].append(r["cpu_ms"])
        n = statistics.fmean(none["rates"].values())
        v = statistics.fmean(r["rates"].values())
        o["none"].append(n)
        o["obs"].append(v)
        o["added"].append(v - n)
        o["by_rep"][r["rep"]] = v - n
        none = None  # each none run pairs with one observed run
    ref = out.get(REF)
    for o in out.values():
        o["mean"], o["lo"], o["hi"] = mean_ci(o["added"])
        o["ref"] = False
        if o is ref:
            o["tick_cost"] = o["mean"]
            o["excess"] = o["excess_lo"] = o["excess_hi"] = None
            o["verdict"] = "the reference"
            continue
        if o["ticks"] and ref is not None:
            reps = [k for k in o["by_rep"] if k in ref["by_rep"]]
            if not reps:
                raise ValueError("%s shares no repetition with %s" % (o["observer"], REF))
            o["ref"] = True
            o["tick_cost"] = o["ticks"] * statistics.fmean(ref["by_rep"][k] for k in reps)
            o["excess"], o["excess_lo"], o["excess_hi"] = mean_ci(
                [o["by_rep"][k] - o["ticks"] * ref["by_rep"][k] for k in reps])
        else:
            tick = o["ticks"] / o["ncpu"]
            o["tick_cost"] = tick
            o["excess"] = o["mean"] - tick
            o["excess_hi"] = None if o["hi"] is None else o["hi"] - tick
            o["excess_lo"] = None if o["lo"] is None else o["lo"] - tick
        o["verdict"] = verdict(o["excess_lo"], o["excess_hi"])
    return list(out.values())


def read_results(path):
    meta, rows = {}, []
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            if line.startswith("#"):
                k, _, v = line[1:].strip().partition("\t")
                meta[k] = v
                continue
            if line.startswith("rep\t"):
                continue
            f = line.split("\t")
            if len(f) not in (6, 7):
                raise ValueError("not a row of 6 or 7 fields: %r" % line)
            rep, obs, ticks, secs, before, after = f[:6]
            # cpu_ns (newer files): the observer's time on a CPU in the window
            cpu = f[6] if len(f) == 7 and f[6] != "-" else None
            if cpu is not None and not cpu.isdigit():
                raise ValueError("cpu_ns not a count: %r" % cpu)
            rows.append({"rep": rep, "observer": obs, "ticks": float(ticks),
                         "rates": rates(before, after, float(secs)),
                         "cpu_ms": None if cpu is None else int(cpu) / 1e6 / float(secs)})
    return meta, rows


REF_TEXT = (" With the reference ticker in the run (its row, no idlescope: a bash that "
            "wakes once a second and writes a line to its output), a tick costs what the "
            "ticker added in the same repetition, not 1/CPUs: the wake itself and what the "
            "kernel does after any such wake (the tick kept on, writeback of the output "
            "file); those rows (ref) subtract it per repetition and their beyond-ticks "
            "interval is the t interval of those differences.")


CPU_TEXT = (" On a CPU: the observer's own time on a CPU per second of the window "
            "(median over the repetitions; /proc/PID/task/*/schedstat): a wake that runs "
            "across a scheduler tick lets that tick kick an idle CPU to balance "
            "(docs/metrics.md), so the added wakeups grow with it.")


def fmt(x):
    return "%+.2f" % x


def table(path, first=True):
    meta, rows = read_results(path)
    res = summarize(rows)
    reps = len({r["rep"] for r in rows})
    cpu = any(o["cpu_ms"] for o in res)
    lines = (["## Added wakeups", ""] if first else []) + [
             "Measured by `make bench-wakeups` (tests/bench/wakeups.sh) on %s: %s. Oracle: %s. "
             "%d repetitions; in each, every command runs once, each observed window (%s s, "
             "after %s s of start-up) right after an un-observed one of the same length; the "
             "added wakeups are the observed window's idle periods per second per CPU minus "
             "its un-observed neighbour's, averaged over the repetitions with a 95%% t "
             "interval. A command's own ticks (`-i 1`: one wakeup per second, counted here as "
             "1/CPUs per CPU) are subtracted for the verdict: at most %.1f added wakeups per "
             "second per CPU beyond them, met when the whole interval is at or below it, "
             "MISSED when the whole interval is above, else not resolved.%s The rows: `%s` "
             "(`python3 tests/bench/wakeups.py doc docs/performance.md FILE...` rewrites this "
             "section from them)."
             % (meta.get("date", "?"), meta.get("host", "?"), meta.get("oracle", "?"), reps,
                meta.get("window", "?"), meta.get("settle", "?"), TARGET,
                REF_TEXT if any(o["observer"] == REF for o in res) else "",
                meta.get("results", "build/wakeups-results.tsv")),
             "",
             "| command | un-observed /s/CPU | observed /s/CPU | added /s/CPU [95%% CI] | own ticks /s/CPU | beyond ticks | verdict (≤ %.1f) |" % TARGET
             + (" on a CPU, ms/s |" if cpu else ""),
             "|---|---|---|---|---|---|---|" + ("---|" if cpu else "")]
    if cpu:
        lines[-4] += CPU_TEXT
    for o in res:
        ci = "" if o["lo"] is None else " [%s, %s]" % (fmt(o["lo"]), fmt(o["hi"]))
        if o["excess"] is None:
            beyond = "-"
        elif o["ref"] and o["excess_lo"] is not None:
            beyond = "%s [%s, %s]" % (fmt(o["excess"]), fmt(o["excess_lo"]), fmt(o["excess_hi"]))
        else:
            beyond = fmt(o["excess"])
        lines.append("| `%s` | %.2f | %.2f | %s%s | %.2f%s | %s | %s |" % (
            meta.get("cmd:" + o["observer"], o["observer"]), statistics.median(o["none"]),
            statistics.median(o["obs"]), fmt(o["mean"]), ci, o["tick_cost"],
            " (ref)" if o["ref"] else "", beyond, o["verdict"])
            + (" %s |" % ("%.2f" % statistics.median(o["cpu_ms"]) if o["cpu_ms"] else "-")
               if cpu else ""))
    if meta.get("note"):
        lines += ["", meta["note"]]
    return "\n".join(lines) + "\n"


def write_doc(doc, section):
    try:
        with open(doc) as f:
            text = f.read()
    except FileNotFoundError:
        text = "# idlescope performance\n"
    m = re.search(r"^## Added wakeups\n.*?(?=^## |\Z)", text, re.S | re.M)
    if m:
        text = text[:m.start()] + section + "\n" + text[m.end():]
    else:
        text = text.rstrip("\n") + "\n\n" + section
    with open(doc, "w") as f:
        f.write(text.rstrip("\n") + "\n")


def main(argv):
    if len(argv) >= 3 and argv[1] == "table":
        sys.stdout.write("\n".join(table(p, i == 0) for i, p in enumerate(argv[2:])))
        return 0
    if len(argv) >= 4 and argv[1] == "doc":
        write_doc(argv[2], "\n".join(table(p, i == 0) for i, p in enumerate(argv[3:])))
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
