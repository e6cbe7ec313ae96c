"""The estimators of tests/bench/report.py, on plain lists (no I/O), so that
tests/bench/test_report.py can hold them to known answers.

Paired: each run of a paired observer has its own un-observed run of the same
workload right before or after it (tests/bench/run.sh); the ratio is formed
per pair, so that whatever drifts over the minutes of a bench (another load,
the host's frequency, the guest's vCPU placement) divides out of every pair
and not only on average. The figure is the median of the pair ratios: with
7 pairs it is about as narrow as their geometric mean when the noise is
Gaussian, and one run that another process hit (this machine is shared) moves
it by one order statistic instead of by a seventh of its log ratio, which at
a 25% hit is 3.5%, more than the 2% the bench must resolve. The un-observed
run comes first in some pairs and second in the others; the median is taken
on each side and the two combined, so that an order effect cancels. The
interval is a percentile bootstrap over the pairs, within each side.

Unpaired (runs without a pair id, or an observer that is not paired): the
median of the observer's runs over the median of all un-observed runs of the
workload, the two resampled independently, so the spread of the un-observed
runs across the whole bench lands in the interval."""
import random
import statistics

BOOT = 2000  # bootstrap resamples per statistic
med = statistics.median


def boot(name, groups, stat, n=BOOT):
    """Percentile bootstrap: each sample of groups resampled on its own with
    replacement, stat of the resampled groups; (estimate, low, high) of the
    95% interval, or None when a group is empty. Seeded by name."""
    if not groups or any(not g for g in groups):
        return None
    rng = random.Random(name)
    est = stat(groups)
    got = sorted(stat([rng.choices(g, k=len(g)) for g in groups]) for _ in range(n))
    return est, got[int(0.025 * n)], got[int(0.975 * n) - 1]


def unpaired_ratio(name, obs, none):
    """median(obs) / median(none), obs and none resampled independently"""
    return boot(name, [obs, none], lambda g: med(g[0]) / med(g[1]))


def unpaired_added(name, obs, none):
    return boot(name, [obs, none], lambda g: med(g[0]) - med(g[1]))


def sides(pairs, f):
    """pairs: [(observed, un-observed[, side])] -> f per pair, split by the
    side its un-observed run was on (one group when no pair says)"""
    got = {}
    for p in pairs:
        got.setdefault(p[2] if len(p) > 2 else "-", []).append(f(p[0], p[1]))
    return [got[k] for k in sorted(got)]


def paired_ratio(name, pairs):
    """pairs: [(observed, un-observed[, "before"|"after"])]: the median of the
    pair ratios; with pairs on both sides, the geometric mean of the median
    of each side (resampled within each side), so that an effect of running
    first or second cancels even when the sides are 4 and 3 pairs, which
    the median of all of them would not do"""
    g = sides(pairs, lambda o, n: o / n)
    if len(g) == 1:
        return boot(name, g, lambda g: med(g[0]))
    return boot(name, g, lambda g: (med(g[0]) * med(g[1])) ** 0.5)


def paired_added(name, pairs):
    """as paired_ratio, of the differences (the mean of the sides' medians)"""
    g = sides(pairs, lambda o, n: o - n)
    if len(g) == 1:
        return boot(name, g, lambda g: med(g[0]))
    return boot(name, g, lambda g: (med(g[0]) + med(g[1])) / 2)


def per_rep(name, a, b, f):
    """a, b: {rep: pair ratio} of two observers; f(ra, rb) per repetition
    both have, median over those repetitions, bootstrap over them"""
    reps = sorted(set(a) & set(b))
    return boot(name, [[f(a[r], b[r]) for r in reps]], lambda g: med(g[0])) if reps else None


# Below 6 pairs (or runs) no distribution-free 95% interval of a median
# exists (all of them on one side of it has probability 2 / 2^n >= 1/16),
# and a bootstrap's would be narrower than the truth: no verdict from fewer.
MIN_N = 6


def verdict(ci, target, higher_is_better=True, n=None):
    """met / **MISSED** / not resolved from where the interval lies (and not
    resolved when it rests on fewer than MIN_N pairs or runs)"""
    if ci is None:
        return "n/a"
    if n is not None and n < MIN_N:
        return "not resolved at this noise"
    _, lo, hi = ci
    if not higher_is_better:
        lo, hi, target = -hi, -lo, -target
    if lo >= target:
        return "met"
    if hi < target:
        return "**MISSED**"
    return "not resolved at this noise"


def needed(ci, target):
    """for an interval that straddles target: the half-width that would
    resolve it at its estimate (the estimate's distance to the target), and
    the interval's own half-width on the target's side (a bootstrap
    interval need not be symmetric)"""
    est, lo, hi = ci
    return abs(est - target), (est - lo if target < est else hi - est)


def reps_needed(have_n, half, need):
    """repetitions for the half-width to shrink to need (1/sqrt(n)); None
    when no number would (need 0), 1000 standing for more than that"""
    if need <= 0:
        return None
    return min(1000, int(have_n * (half / need) ** 2 + 0.999))
