"""The Elo of a stopped SPRT, corrected for the stopping rule: known answers, limits, symmetry,
a small simulation, and the report's figures."""

import importlib.util
import math
import sys
from pathlib import Path

import numpy as np
import pytest

from results import brownian
from results.sprt import SPRT, Interval, elo, nelo
from results.sprt_stopped import stopped_elo, stopped_nelo
from results.sprt_report import PairWalk, summary, summary_lines

BENCH = Path(__file__).resolve().parent.parent / "bench" / "sprt_estimate.py"
LOGISTIC = SPRT(0, 5, model="logistic")


def close(got: Interval, value, low, high, tol):
    return (got.value, got.low, got.high) == (pytest.approx(value, abs=tol), pytest.approx(low, abs=tol),
                                              pytest.approx(high, abs=tol))


# ---- Known answers --------------------------------------------------------------------------

# fishtest server/fishtest/stats/sprt.py (official-stockfish/fishtest), run as
# `python -m fishtest.stats.sprt --elo0 0 --elo1 5 --elo-model MODEL --results COUNTS`; its
# `analytics()` ("elo" and "ci"), printed here to 4 decimals. The counts are stops of simulated
# [0, 5] tests (results.sprt's LLR just past a bound).
FISHTEST = [
    ((335, 2157, 3967, 2250, 396), "logistic", "H1", (3.3249, -0.5331, 6.8430)),
    ((161, 1018, 1842, 997, 161), "logistic", "H0", (-0.0518, -4.9278, 5.0405)),
    ((488, 3187, 5866, 3304, 555), "normalized", "H1", (2.7408, -0.1766, 5.4948)),
    ((396, 2739, 5042, 2668, 418), "normalized", "H0", (0.0918, -2.8461, 3.1706)),
]


@pytest.mark.parametrize("counts, model, verdict, expected", FISHTEST)
def test_stopped_elo_matches_fishtest(counts, model, verdict, expected):
    test = SPRT(0, 5, model=model)
    assert test.status(counts).verdict == verdict
    assert close(stopped_elo(counts, test), *expected, tol=1e-3)


def test_stopped_elo_of_single_games_matches_fishtest_below_its_approximation():
    # `--elo0 0 --elo1 10 --results 278 634 347`: Elo 17.3879, ci [3.3146, 31.2886]. At the upper
    # end fishtest uses Siegmund's approximation (its |gamma A| = 15.4 > 15), which this module's
    # exact series improves on by 0.004
    counts, test = (278, 634, 347), SPRT(0, 10, model="logistic")
    assert test.status(counts).verdict == "H1"
    got = stopped_elo(counts, test)
    assert (got.value, got.low) == (pytest.approx(17.3879, abs=1e-3), pytest.approx(3.3146, abs=1e-3))
    assert got.high == pytest.approx(31.2886, abs=0.01)


def spectral_survival(theta, t, a, b, terms=400):
    """P(not absorbed by t) from the eigenfunction expansion of the killed density (the one
    fishtest's ``brownian.py`` sums in ``outcome_cdf_alt1``): with A = b - a, start x = -a,
    ``p(t, z) = 2/A e^(theta (z - x) - theta^2 t / 2) sum_n sin(n pi x / A) sin(n pi z / A)
    e^(-n^2 pi^2 t / 2A^2)``, integrated over z in (0, A) term by term."""
    span, x = b - a, -a
    total = 0.0
    for n in range(1, terms):
        k = n * math.pi / span
        integral = k * (1 - (-1) ** n * math.exp(theta * span)) / (theta**2 + k**2)
        total += math.sin(k * x) * math.exp(-k * k * t / 2) * integral
    return 2 / span * math.exp(-theta * x - theta**2 * t / 2) * total


@pytest.mark.parametrize("theta, t, a, b", [(0.0, 1.0, -1.0, 1.0), (0.3, 4.0, -2.0, 3.0), (-1.2, 0.8, -0.5, 2.5),
                                            (2.0, 10.0, -3.0, 3.0)])
def test_the_image_series_agrees_with_the_eigenfunction_series(theta, t, a, b):
    survival = brownian.running_below(theta, t, b, a, b)
    assert survival == pytest.approx(spectral_survival(theta, t, a, b), abs=1e-10)
    absorbed = brownian.upper_by(theta, t, a, b) + brownian.lower_by(theta, t, a, b)
    assert absorbed + survival == pytest.approx(1, abs=1e-12)


@pytest.mark.parametrize("theta", [0.0, 0.4, -0.7])
def test_in_the_long_run_the_lower_bound_is_reached_with_the_gamblers_ruin_chance(theta):
    # the gambler's ruin of Brownian motion with drift theta and unit variance from 0, bounds a < 0 < b:
    # P(b before a) = (1 - e^(2 theta a)) / (1 - e^(-2 theta (b - a))), and -a / (b - a) without drift
    a, b = -2.0, 1.5
    up = -a / (b - a) if theta == 0 else (1 - math.exp(2 * theta * a)) / (1 - math.exp(-2 * theta * (b - a)))
    assert brownian.worse(theta, 1e4, b, a, b) == pytest.approx(1 - up, abs=1e-12)
    assert brownian.lower_by(theta, 1e4, a, b) == pytest.approx(1 - up, abs=1e-12)


def test_one_bound_far_away_leaves_the_first_passage_law_of_the_other():
    # the first passage of Brownian motion with drift (inverse Gaussian):
    # P(tau_b <= t) = Phi((theta t - b) / sqrt t) + e^(2 theta b) Phi(-(theta t + b) / sqrt t)
    phi = lambda u: (1 + math.erf(u / math.sqrt(2))) / 2
    theta, t, b = 0.3, 5.0, 2.0
    expected = phi((theta * t - b) / math.sqrt(t)) + math.exp(2 * theta * b) * phi(-(theta * t + b) / math.sqrt(t))
    assert brownian.upper_by(theta, t, -1e3, b) == pytest.approx(expected, abs=1e-14)


def test_far_out_drifts_give_chances_not_overflows():
    for theta in (-500.0, -40.0, 40.0, 500.0):
        for y in (-3.0, 0.5, 3.0):
            assert 0 <= brownian.worse(theta, 2.0, y, -3.0, 3.0) <= 1


# ---- Limits and symmetry --------------------------------------------------------------------


@pytest.mark.parametrize("counts", [(40, 260, 520, 270, 45), (30, 50, 41)])
def test_with_the_bounds_far_away_an_undecided_test_keeps_the_fixed_sample_estimate(counts):
    # nothing has stopped it, nor could have: the outcome's law is the normal one of a fixed sample
    test = SPRT(0, 5, alpha=1e-100, beta=1e-100, model="logistic")
    assert test.status(counts).verdict is None
    fixed = elo(counts)
    assert close(stopped_elo(counts, test), fixed.value, fixed.low, fixed.high, tol=1e-3)
    fixed = nelo(counts)
    assert close(stopped_nelo(counts, SPRT(0, 5, alpha=1e-100, beta=1e-100)), fixed.value, fixed.low, fixed.high,
                 tol=1e-3)


@pytest.mark.parametrize("model", ["logistic", "normalized"])
@pytest.mark.parametrize("counts", [(335, 2157, 3967, 2250, 396), (161, 1018, 1842, 997, 161), (40, 110, 60)])
def test_swapping_the_bots_negates_the_estimate(counts, model):
    test = SPRT(0, 5, alpha=0.05, beta=0.1, model=model)
    mirror = SPRT(-5, 0, alpha=0.1, beta=0.05, model=model)  # H0 and H1 trade places
    for estimate in (stopped_elo, stopped_nelo):
        got, back = estimate(counts, test), estimate(counts[::-1], mirror)
        assert close(back, -got.value, -got.high, -got.low, tol=1e-3)


def test_a_stop_with_a_better_score_gives_a_higher_estimate():
    # one pair at a time moved from 1-1 to 1.5-0.5, at the same number of pairs: every count stops at H1
    base = [335, 2157, 3967, 2250, 396]
    estimates = []
    for moved in range(0, 50, 10):
        counts = (base[0], base[1], base[2] - moved, base[3] + moved, base[4])
        assert LOGISTIC.status(counts).verdict == "H1"
        estimates.append(stopped_elo(counts, LOGISTIC))
    for lower, upper in zip(estimates, estimates[1:]):
        assert lower.value < upper.value and lower.low < upper.low and lower.high < upper.high


def test_the_correction_pulls_an_early_stop_back_towards_the_hypotheses():
    # stopped at H1 by a lucky run: the corrected estimate is lower than the fixed-sample one
    counts = (59, 453, 846, 510, 85)
    assert LOGISTIC.status(counts).verdict == "H1"
    assert stopped_elo(counts, LOGISTIC).value < elo(counts).value - 0.5  # 8.86 against 9.70


def test_no_pairs_give_no_estimate_and_a_perfect_start_a_finite_one():
    assert stopped_elo((0, 0, 0, 0, 0), LOGISTIC) == Interval(0.0, -math.inf, math.inf)
    assert stopped_nelo((0, 0, 0), LOGISTIC) == Interval(0.0, -math.inf, math.inf)
    test = SPRT(0, 50, model="logistic")
    counts = next((0, 0, 0, 0, n) for n in range(1, 100) if test.status((0, 0, 0, 0, n)).verdict)
    got = stopped_elo(counts, test)
    assert 0 < got.low < got.value < got.high and math.isfinite(got.value)


# ---- A small simulation ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_sprt_estimate", BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        del sys.modules[spec.name]


@pytest.mark.slow(reason="400 simulated tests: fewer widen the Monte Carlo se of the coverage past its tolerance")
def test_simulated_stops_at_the_null_hold_the_truth(bench):
    # 400 [0, 5] logistic tests at true Elo 0, 60% draws, seed fixed (bench/sprt_estimate.py, smaller).
    # Monte Carlo se: coverage 1.1%, the median 0.15 Elo, the fixed-sample mean 0.18 Elo; the
    # tolerances are about 3 se. The full run (2,000 tests) gives 95.3%, +0.01 and -1.37.
    played = bench.play(LOGISTIC, bench.pentanomial(0.0, 0.6), 400, np.random.default_rng(11))
    stops = [tuple(int(c) for c in row) for row in played["counts"]]
    corrected = np.array([[i.value, i.low, i.high] for i in (stopped_elo(c, LOGISTIC) for c in stops)])
    fixed = np.array([elo(c).value for c in stops])
    holds = ((corrected[:, 1] <= 0) & (0 <= corrected[:, 2])).mean()
    assert 0.92 <= holds <= 0.98
    assert abs(np.median(corrected[:, 0])) <= 0.5
    assert fixed.mean() <= -0.8  # the bias the correction removes is there
    before = [list(c) for c in stops[:20]]
    for counts, last in zip(before, played["last"][:20]):
        counts[last] -= 1
        assert LOGISTIC.status(counts).verdict is None  # each stopped at its first crossing


# ---- The report -----------------------------------------------------------------------------


def walk_to(pattern, pairs, test=LOGISTIC):
    """A PairWalk fed ``pairs`` pairs whose new-bot points cycle through ``pattern``."""
    walk = PairWalk(test, "new", 100_000)
    for p in range(pairs):
        points = pattern[p % len(pattern)]
        a, b = points
        walk.add(2 * p, "new", a)
        walk.add(2 * p + 1, "base", 1 - b)
        if walk.over:
            break
    return walk


WINNING = [(1, 0.5), (0.5, 0.5), (1, 0), (0.5, 0), (0.5, 1), (0, 0.5), (0.5, 0.5), (1, 0.5)]


def test_after_a_verdict_the_summary_gives_the_corrected_figures_and_the_fixed_sample_ones():
    walk = walk_to(WINNING, 100_000)
    assert walk.verdict == "H1"
    s = summary(walk)
    counts = tuple(walk.counts)
    got, fixed = stopped_elo(counts, LOGISTIC), elo(counts)
    assert s["elo_corrected"] is True
    assert (s["elo"], s["elo_low"], s["elo_high"], s["elo_error"]) == (got.value, got.low, got.high, got.error)
    assert s["nelo"] == stopped_nelo(counts, LOGISTIC).value
    assert (s["fixed_elo"], s["fixed_elo_low"], s["fixed_elo_high"]) == (fixed.value, fixed.low, fixed.high)
    assert s["fixed_nelo"] == nelo(counts).value
    lines = summary_lines({**s, "base": "base"})
    assert [line.split(" ")[0] for line in lines if "stopping rule" in line] == ["Elo", "nElo"]
    assert [line.split(" ")[0] for line in lines if "fixed-sample" in line] == ["Elo", "nElo"]
    assert f"Elo {s['elo']:+.1f} +/- " in "\n".join(lines) and f"Elo {s['fixed_elo']:+.1f} +/- " in "\n".join(lines)


def test_before_a_verdict_the_summary_gives_the_fixed_sample_figures_so_labelled():
    walk = walk_to(WINNING, 10)
    assert walk.verdict is None
    s = summary(walk)
    fixed = elo(tuple(walk.counts))
    assert s["elo_corrected"] is False
    assert (s["elo"], s["elo_low"], s["elo_high"]) == (fixed.value, fixed.low, fixed.high)
    assert (s["elo"], s["nelo_high"]) == (s["fixed_elo"], s["fixed_nelo_high"])
    lines = summary_lines({**s, "base": "base"})
    assert not any("stopping rule" in line for line in lines)
    assert [line.split(" ")[0] for line in lines if line.endswith(", fixed-sample")] == ["Elo", "nElo"]
