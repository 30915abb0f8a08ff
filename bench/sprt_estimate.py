"""Does the Elo an SPRT prints when it stops hold the truth? Simulated tests at known strengths.

For each test and true Elo difference, ``--tests`` SPRTs are played pair by pair (each pair two
independent games with ``--draws`` drawn, the rest won and lost to give the true expected score)
until the LLR crosses a bound, checked after every pair. Printed per true value: the mean and
median miss (estimate minus truth) and the share of 95% intervals that hold the truth, of the
fixed-sample estimate (``results.sprt.elo``, or ``nelo`` for a normalized test) and of the one
corrected for the stopping rule (``results.sprt_stopped``), each with its Monte Carlo
standard error (for the median, from a bootstrap), and whether the corrected figures meet the
target: intervals hold the truth 95 +/- 2% of the time, and the median misses by at most
max(a quarter of the fixed-sample median's miss, 0.3 Elo).

The LLR is the generalized one of ``results.sprt.llr``, computed for all tests at once: the
maximum-likelihood hypotheses are found by a safeguarded Newton iteration on the same secular
equation (and, for normalized Elo, the same fixed point). Only pairs whose LLR is near a bound
by a close approximation (Van den Bergh's ``LLR_alt`` for logistic Elo, his section 4.2 for
normalized) get the full computation; the script checks both against ``results.sprt``.

    PYTHONPATH=. python bench/sprt_estimate.py [--tests 2000] [--seed 1] [--draws 0.6] [--tests-only logistic]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from results import sprt as stats
from results.sprt_stopped import stopped_elo, stopped_nelo

SCORES = np.array([0.0, 0.25, 0.5, 0.75, 1.0])
"""A pair's score (its points / 2), lowest first, as the pentanomial counts."""
MARGIN = 0.5
"""Pairs whose approximate LLR is this far inside both bounds (and no count is empty) are not
computed in full; the script measures how far the approximation strays (it must stay below)."""
TESTS = {
    "logistic": stats.SPRT(0, 5, model="logistic"),
    "normalized": stats.SPRT(0, 5),
}


def pentanomial(elo: float, draws: float) -> np.ndarray:
    """(LL, LD, WL+DD, WD, WW) probabilities of a pair of independent games at logistic ``elo``."""
    s = 1 / (1 + 10 ** (-elo / 400))
    w, d, l = s - draws / 2, draws, 1 - s - draws / 2
    return np.array([l * l, 2 * l * d, 2 * w * l + d * d, 2 * w * d, w * w])


def true_nelo(probs: np.ndarray) -> float:
    """The normalized Elo of a pentanomial distribution: the t-value of a pair, per game."""
    mean = probs @ SCORES
    sd = np.sqrt(probs @ (SCORES - mean) ** 2)
    return (mean - 0.5) / sd * stats.NELO_PER_T / np.sqrt(2)


def logistic_for_nelo(target: float, draws: float) -> float:
    """The logistic Elo whose pairs have normalized Elo ``target``, by bisection."""
    low, high = -400.0, 400.0
    for _ in range(100):
        middle = (low + high) / 2
        low, high = (middle, high) if true_nelo(pentanomial(middle, draws)) < target else (low, middle)
    return (low + high) / 2


# ---- The LLR of many counts at once ------------------------------------------------------


def _frequencies(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    regular = np.where(counts == 0, stats.EMPTY, counts)
    n = regular.sum(-1)
    return n, regular / n[..., None]


def _secular_root(q: np.ndarray, phi: np.ndarray) -> np.ndarray:
    """Per row, the x between the poles with ``sum(q phi / (1 + x phi)) = 0``: Newton, or
    bisection where a Newton step leaves the bracket (the sum falls strictly in x)."""
    phi = np.broadcast_to(phi, q.shape)
    low, high = -1 / phi.max(-1), -1 / phi.min(-1)
    roots = (phi.min(-1) < 0) & (phi.max(-1) > 0)  # otherwise the sum has no root
    x = np.where(roots, 0.0, np.nan)
    todo = np.flatnonzero(roots)
    for _ in range(200):
        qq, ph, xx = q[todo], phi[todo], x[todo]
        ratio = qq * ph / (1 + xx[:, None] * ph)
        f, slope = ratio.sum(-1), -(ratio * ph / (1 + xx[:, None] * ph)).sum(-1)
        done = np.abs(f) <= 1e-14  # a small step is no sign of the root: near a pole all steps are small
        right = f > 0
        low[todo] = np.where(right, xx, low[todo])
        high[todo] = np.where(right, high[todo], xx)
        new = xx - f / slope
        inside = (new > low[todo]) & (new < high[todo])
        x[todo] = np.where(done, xx, np.where(inside, new, (low[todo] + high[todo]) / 2))
        todo = todo[~done]
        if not len(todo):
            break
    x[todo] = np.nan  # unsettled: left to results.sprt.llr
    return x


def _nearest_with_t(q: np.ndarray, t: float) -> np.ndarray:
    """Per row, the most likely distribution with t-value t: ``results.sprt._nearest_with_t``'s
    fixed point, from the observed frequencies."""
    p = q.copy()
    todo = np.arange(len(q))
    for _ in range(200):
        pp = p[todo]
        mu = (pp @ SCORES)[:, None]
        sd = np.sqrt((pp * (SCORES - mu) ** 2).sum(-1))[:, None]
        phi = SCORES - 0.5 - t * sd * (1 + ((SCORES - mu) / sd) ** 2) / 2
        new = q[todo] / (1 + _secular_root(q[todo], phi)[:, None] * phi)
        p[todo] = new
        todo = todo[np.abs(new - pp).max(-1) > 1e-12]  # NaN rows leave too
        if not len(todo):
            break
    p[todo] = np.nan  # unsettled, like the NaN rows: left to results.sprt.llr
    return p


def llr(counts: np.ndarray, test: stats.SPRT) -> np.ndarray:
    """``results.sprt.llr`` of each row of pentanomial counts.

    Rows on which the fixed point fails (all pairs alike: ``results.sprt`` walks to those) are
    handed to ``results.sprt.llr``; they come only in a test's first pairs.
    """
    n, q = _frequencies(counts)
    with np.errstate(divide="ignore", invalid="ignore"):
        if test.model == "logistic":
            hypotheses = [q / (1 + _secular_root(q, SCORES - s)[:, None] * (SCORES - s))
                          for s in (stats._expected_score(test.elo0), stats._expected_score(test.elo1))]
        else:
            per_t = stats.NELO_PER_T / np.sqrt(2)
            hypotheses = [_nearest_with_t(q, elo / per_t) for elo in (test.elo0, test.elo1)]
        out = n * (q * np.log(hypotheses[1] / hypotheses[0])).sum(-1)
    for i in np.flatnonzero(~np.isfinite(out)):
        out[i] = test.llr([int(c) for c in counts[i]])
    return out


def approximate_llr(counts: np.ndarray, test: stats.SPRT) -> np.ndarray:
    """A close, cheap stand-in for the LLR (Van den Bergh): decides where ``llr`` is needed."""
    n, q = _frequencies(counts)
    mean = (q @ SCORES)[..., None]
    if test.model == "logistic":
        r0, r1 = (((SCORES - stats._expected_score(e)) ** 2 * q).sum(-1) for e in (test.elo0, test.elo1))
        return n / 2 * np.log(r0 / r1)
    t = (mean[..., 0] - 0.5) / np.sqrt(((SCORES - mean) ** 2 * q).sum(-1))
    t0, t1 = (e / (stats.NELO_PER_T / np.sqrt(2)) for e in (test.elo0, test.elo1))
    return n / 2 * np.log((1 + (t - t0) ** 2) / (1 + (t - t1) ** 2))


# ---- The simulation ------------------------------------------------------------------------


def play(test: stats.SPRT, probs: np.ndarray, count: int, rng: np.random.Generator) -> dict:
    """``count`` SPRTs to their verdicts: the counts at the stop, the verdicts, the last pairs,
    and the largest gap seen between the LLR and its approximation where the latter decided."""
    lower, upper = test.bounds
    cumulative = np.cumsum(probs)
    cumulative[-1] = 1.0
    counts = np.zeros((count, 5))
    stopped, verdict, last = np.zeros((count, 5)), np.zeros(count, dtype="<U2"), np.zeros(count, dtype=int)
    active = np.arange(count)
    gap, sampler = 0.0, np.random.default_rng(rng.integers(2**63))  # the games do not depend on MARGIN
    while len(active):
        steps = min(max(100, 400_000 // len(active)), 50_000)
        outcome = np.searchsorted(cumulative, rng.random((len(active), steps)))
        path = counts[active][:, None, :] + np.cumsum(np.eye(5)[outcome], axis=1)
        rough = approximate_llr(path, test)
        near = (rough > upper - MARGIN) | (rough < lower + MARGIN) | (path == 0).any(-1)
        value = np.zeros(rough.shape)
        value[near] = llr(path[near], test)
        # measure the approximation where it decided alone, on a sample
        far = np.flatnonzero(~near.ravel())
        if len(far):
            sample = sampler.choice(far, min(len(far), 200), replace=False)
            exact = llr(path.reshape(-1, 5)[sample], test)
            gap = max(gap, float(np.abs(exact - rough.ravel()[sample]).max()))
        crossed = (value >= upper) | (value <= lower)
        done = crossed.any(1)
        at = crossed.argmax(1)
        ids = active[done]
        stopped[ids] = path[done, at[done]]
        verdict[ids] = np.where(value[done, at[done]] >= upper, "H1", "H0")
        last[ids] = outcome[done, at[done]]
        counts[active] = path[:, -1]
        active = active[~done]
    return {"counts": stopped.astype(int), "verdict": verdict, "last": last, "gap": gap}


def check(test: stats.SPRT, played: dict, sample: int) -> str:
    """The first tests' stops recomputed with ``results.sprt``: verdict at the stop, none a pair before."""
    agree, worst = 0, 0.0
    for counts, verdict, last in list(zip(played["counts"], played["verdict"], played["last"]))[:sample]:
        before = list(counts)
        before[last] -= 1
        agree += test.status(counts).verdict == verdict and test.status(before).verdict is None
        worst = max(worst, abs(test.llr(counts) - llr(np.array([counts], dtype=float), test)[0]))
    return (f"{agree}/{sample} stops as results.sprt has them; LLR within {worst:.1e} of results.sprt.llr; "
            f"approximation within {played['gap']:.3f} of the LLR where it decided (margin {MARGIN})")


def agreement(test: stats.SPRT, rng: np.random.Generator, count: int = 300) -> str:
    """The vectorised LLR against ``results.sprt.llr`` on random counts, small (some empty) and large."""
    small = rng.integers(0, 30, (count, 5)) * (rng.random((count, 5)) > 0.3)
    counts = np.vstack([small[small.sum(1) > 0], rng.integers(0, 5000, (count, 5))])
    ours = llr(counts.astype(float), test)
    theirs = np.array([test.llr([int(c) for c in row]) for row in counts])
    return f"{len(counts)} random counts: LLR within {np.abs(ours - theirs).max():.1e} of results.sprt.llr"


def median_se(values: np.ndarray, rng: np.random.Generator, resamples: int = 400) -> float:
    """Bootstrap standard error of the median."""
    picks = rng.integers(0, len(values), (resamples, len(values)))
    return float(np.median(values[picks], axis=1).std(ddof=1))


def _triple(interval: stats.Interval) -> tuple[float, float, float]:
    return interval.value, interval.low, interval.high


def measure(model: str, truth: float, count: int, draws: float, seed: int) -> dict:
    test = TESTS[model]
    probs = pentanomial(logistic_for_nelo(truth, draws) if model == "normalized" else truth, draws)
    rng = np.random.default_rng([seed, int(round(truth * 1000))])
    played = play(test, probs, count, rng)
    normalized = model == "normalized"
    fixed_of, corrected_of = (stats.nelo, stopped_nelo) if normalized else (stats.elo, stopped_elo)
    stops = [tuple(int(k) for k in c) for c in played["counts"]]
    fixed = np.array([_triple(fixed_of(c)) for c in stops])
    corrected = np.array([_triple(corrected_of(c, test)) for c in stops])
    out = {"model": model, "truth": truth, "tests": count, "pairs": played["counts"].sum(1).mean(),
           "h1": (played["verdict"] == "H1").mean(), "check": check(test, played, min(count, 100))}
    for name, est in (("fixed", fixed), ("corrected", corrected)):
        miss = est[:, 0] - truth
        holds = (est[:, 1] <= truth) & (truth <= est[:, 2])
        out[name] = {"mean": miss.mean(), "mean_se": miss.std(ddof=1) / np.sqrt(count),
                     "median": np.median(miss), "median_se": median_se(miss, rng),
                     "holds": holds.mean(), "holds_se": np.sqrt(holds.mean() * (1 - holds.mean()) / count)}
    f, c = out["fixed"], out["corrected"]
    out["meets"] = abs(c["holds"] - 0.95) <= 0.02 and abs(c["median"]) <= max(abs(f["median"]) / 4, 0.3)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tests", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--draws", type=float, default=0.6)
    parser.add_argument("--tests-only", nargs="+", choices=sorted(TESTS), default=list(TESTS), dest="only")
    args = parser.parse_args()
    print(f"{args.tests} SPRTs a true value, {args.draws:.0%} draws, pairs of independent games, seed {args.seed}")
    print("| test | truth | pairs (mean) | H1 | fixed: mean miss | fixed: median miss | fixed: holds "
          "| corrected: median miss | corrected: holds | target | seconds |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    checks = []
    for model in args.only:
        test = TESTS[model]
        checks.append(f"{model}: {agreement(test, np.random.default_rng(args.seed))}")
        for truth in (test.elo0, (test.elo0 + test.elo1) / 2, test.elo1, 2 * test.elo1 - test.elo0):
            start = time.perf_counter()
            r = measure(model, truth, args.tests, args.draws, args.seed)
            f, c = r["fixed"], r["corrected"]
            print(f"| [{test.elo0:g}, {test.elo1:g}] {model} | {truth:g} | {r['pairs']:,.0f} | {r['h1']:.1%} "
                  f"| {f['mean']:+.2f} ± {f['mean_se']:.2f} | {f['median']:+.2f} ± {f['median_se']:.2f} "
                  f"| {f['holds']:.1%} ± {f['holds_se']:.1%} | {c['median']:+.2f} ± {c['median_se']:.2f} "
                  f"| {c['holds']:.1%} ± {c['holds_se']:.1%} | {'met' if r['meets'] else 'MISSED'} "
                  f"| {time.perf_counter() - start:.0f} |", flush=True)
            checks.append(f"{model} {truth:g}: {r['check']}")
    print("\nmisses are estimate minus truth, in the test's Elo (logistic Elo, or normalized Elo); ± is the Monte "
          "Carlo standard error")
    print("\n".join(checks))
    only = " ".join(args.only)
    print(f"\nrerun: PYTHONPATH=. python bench/sprt_estimate.py --tests {args.tests} --seed {args.seed} "
          f"--draws {args.draws:g} --tests-only {only}")


if __name__ == "__main__":
    main()
