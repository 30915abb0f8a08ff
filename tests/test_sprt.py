"""SPRT statistics: known answers from fastchess, degenerate counts, symmetries, validation."""

import dataclasses
import math
import time

import pytest

from arena.errors import ParameterError
from results import sprt
from results.sprt import SPRT, Interval, Status, bounds, draw_rate, elo, llr, los, nelo, pentanomial

# Known LLRs from fastchess, app/tests/sprt_test.cpp (Disservin/fastchess), alpha = beta = 0.05,
# checked there to doctest::Approx(...).epsilon(0.01); here to two decimals. Its Stats
# constructors are Stats(wins, losses, draws) and Stats(ll, ld, wl, dd, wd, ww)
# (app/src/matchmaking/stats.hpp); ours take (L, D, W) and (LL, LD, WL+DD, WD, WW).
FASTCHESS_LLR = [
    # "normalized trinomial 1": Stats(36433, 36027, 68692), [0, 2] -> 0.92
    ((36027, 68692, 36433), 0, 2, "normalized", 0.92),
    # "normalized trinomial 2": Stats(10871, 10650, 20431), [-1.75, 0.25] -> 2.30
    ((10650, 20431, 10871), -1.75, 0.25, "normalized", 2.30),
    # "logistic trinomial 1": Stats(21404, 21184, 40708), [0.5, 2.5] -> -1.57
    ((21184, 40708, 21404), 0.5, 2.5, "logistic", -1.57),
    # "logistic trinomial 2": Stats(57433, 57030, 106593), [0, 2] -> -2.59
    ((57030, 106593, 57433), 0, 2, "logistic", -2.59),
    # "normalized pentanomial 1": Stats(365, 16618, 36029, 200, 16974, 390), [0, 2] -> 2.25
    ((365, 16618, 36029 + 200, 16974, 390), 0, 2, "normalized", 2.25),
    # "normalized pentanomial 2": Stats(127, 4883, 10311, 401, 5150, 104), [-1.75, 0.25] -> 3.01
    ((127, 4883, 10311 + 401, 5150, 104), -1.75, 0.25, "normalized", 3.01),
    # "logistic pentanomial 1": Stats(223, 9863, 20279, 1000, 10037, 246), [0.5, 2.5] -> -3.07
    ((223, 9863, 20279 + 1000, 10037, 246), 0.5, 2.5, "logistic", -3.07),
    # "logistic pentanomial 2": Stats(871, 26175, 55003, 980, 26678, 821), [0, 2] -> -4.98
    ((871, 26175, 55003 + 980, 26678, 821), 0, 2, "logistic", -4.98),
]


@pytest.mark.parametrize("counts, elo0, elo1, model, expected", FASTCHESS_LLR)
def test_llr_known_answers_from_fastchess(counts, elo0, elo1, model, expected):
    assert llr(counts, elo0, elo1, model) == pytest.approx(expected, abs=0.005)


# Known estimates from fastchess, app/tests/elo_test.cpp: nElo and Elo as "value +/- error"
# (error = half the interval) to doctest::Approx(...).epsilon(0.01), LOS as printed "%.2f %".
# (counts, nElo, nElo error, Elo, Elo error, LOS in %); None where the test checks nothing.
FASTCHESS_ELO = [
    # "EloWDL 1": Stats(76, 89, 123)
    ((89, 123, 76), -20.76, 40.13, None, None, 15.53),
    # "EloWDL 2": Stats(136, 96, 111)
    ((96, 111, 136), 49.77, 36.77, 40.70, 30.43, 99.60),
    # "EloWDL 3": Stats(34, 356, 0)
    ((356, 0, 34), -508.44, 34.48, None, None, None),
    # "EloPentanomial 1": Stats(34, 54, 31, 32, 64, 75)
    ((34, 54, 31 + 32, 64, 75), 57.94, 28.28, 55.58, 27.65, 100.00),
    # "EloPentanomial 2": Stats(332, 433, 457, 41, 333, 334)
    ((332, 433, 457 + 41, 333, 334), -9.17, 10.96, -8.64, 10.33, 5.05),
    # "EloPentanomial 3": Stats(7895, 8757, 5485, 200, 568, 9999)
    ((7895, 8757, 5485 + 200, 568, 9999), -19.01, 2.65, -21.04, 2.95, None),
]


@pytest.mark.parametrize("counts, n_value, n_error, e_value, e_error, los_percent", FASTCHESS_ELO)
def test_estimates_known_answers_from_fastchess(counts, n_value, n_error, e_value, e_error, los_percent):
    n = nelo(counts)
    assert (n.value, n.error) == pytest.approx((n_value, n_error), abs=0.005)
    assert n.low < n.value < n.high
    if e_value is not None:
        e = elo(counts)
        assert (e.value, e.error) == pytest.approx((e_value, e_error), abs=0.005)
        assert e.low < e.value < e.high
    if los_percent is not None:
        assert f"{los(counts) * 100:.2f}" == f"{los_percent:.2f}"


def test_bounds_are_walds():
    lower, upper = bounds(0.05, 0.05)
    assert (lower, upper) == pytest.approx((-math.log(19), math.log(19)))
    # fastchess prints "(-2.94, 2.94)" for alpha = beta = 0.05 and "(-2.25, 2.89)" for beta = 0.1
    assert [round(b, 2) for b in bounds(0.05, 0.1)] == [-2.25, 2.89]


# ---- The test's state ------------------------------------------------------------------


def test_status_gives_verdicts_at_the_bounds():
    passed = SPRT(elo0=-1.75, elo1=0.25).status((127, 4883, 10712, 5150, 104))  # LLR 3.01, above
    assert passed.verdict == "H1" and (passed.lower, passed.upper) == bounds(0.05, 0.05)
    assert SPRT(0, 2, model="logistic").status((871, 26175, 55983, 26678, 821)).verdict == "H0"
    going = SPRT(0, 2).status((365, 16618, 36229, 16974, 390))
    assert going.verdict is None and going.lower < going.llr < going.upper
    assert SPRT(0, 2).status((0, 0, 0)) == Status(None, 0.0, *bounds(0.05, 0.05))


def test_verdict_follows_alpha_and_beta():
    counts = (365, 16618, 36229, 16974, 390)  # LLR 2.25
    assert SPRT(0, 2, alpha=0.05, beta=0.05).status(counts).verdict is None
    assert SPRT(0, 2, alpha=0.15, beta=0.05).status(counts).verdict == "H1"  # upper ln(0.95 / 0.15) = 1.85


def test_sprt_is_a_frozen_value():
    test = SPRT(0, 5)
    assert test == SPRT(0.0, 5.0, 0.05, 0.05, "normalized")
    assert test.bounds == bounds(0.05, 0.05)
    assert test.llr((1, 2, 3)) == llr((1, 2, 3), 0, 5)
    with pytest.raises(dataclasses.FrozenInstanceError):
        test.elo0 = 1
    assert len({test, SPRT(0, 5)}) == 1


# ---- Degenerate counts (fastchess#877 hung, #879 gave NaN, on such counts) ------------------

DEGENERATE = [
    (0, 0, 0), (0, 0, 7), (7, 0, 0), (0, 7, 0), (0, 0, 1), (1, 0, 0), (0, 1, 0),
    (0, 0, 0, 0, 0), (0, 0, 0, 0, 9), (9, 0, 0, 0, 0), (0, 0, 9, 0, 0),
    (1, 0, 0, 0, 0), (0, 1, 0, 0, 0), (0, 0, 1, 0, 0), (0, 0, 0, 1, 0), (0, 0, 0, 0, 1),
    (144, 3, 1, 0, 0),  # fastchess#879: nElo -2248 tested with [-1500, -500]
]
HYPOTHESES = [(0, 5), (-1500, -500), (500, 1500), (-5, 0), (0, 10000)]


@pytest.mark.parametrize("model", sprt.MODELS)
@pytest.mark.parametrize("counts", DEGENERATE)
def test_degenerate_counts_give_finite_answers(counts, model):
    for elo0, elo1 in HYPOTHESES:
        start = time.perf_counter()
        value = llr(counts, elo0, elo1, model)
        assert math.isfinite(value), (counts, elo0, elo1)
        assert time.perf_counter() - start < 1.0
    for estimate in (elo(counts), nelo(counts)):
        assert not any(math.isnan(x) for x in (estimate.value, estimate.low, estimate.high))
        assert estimate.low <= estimate.value <= estimate.high
    assert 0 <= los(counts) <= 1 and 0 <= draw_rate(counts) <= 1


@pytest.mark.parametrize("model", sprt.MODELS)
def test_one_sided_results_point_the_right_way(model):
    assert llr((0, 0, 0), 0, 5, model) == 0.0
    assert llr((0, 0, 400), 0, 5, model) > math.log(19)  # all wins: H1
    assert llr((400, 0, 0), 0, 5, model) < -math.log(19)  # all losses: H0
    assert llr((0, 0, 0, 0, 300), 0, 5, model) > math.log(19)
    assert llr((300, 0, 0, 0, 0), 0, 5, model) < -math.log(19)
    assert llr((0, 2000, 0), 0, 5, model) < 0  # all draws: nearer 0 than 5
    # fastchess#879's counts: nElo -2248 (nearer -1500), logistic Elo -828 (nearer -500)
    assert (llr((144, 3, 1, 0, 0), -1500, -500, model) < 0) == (model == "normalized")
    for single in ((0, 0, 1), (1, 0, 0), (0, 1, 0), (0, 0, 1, 0, 0), (0, 0, 0, 0, 1)):
        assert abs(llr(single, 0, 5, model)) < 1  # one game or pair decides nothing


def test_extreme_counts_give_exact_estimates():
    assert elo((0, 0, 10)) == Interval(math.inf, math.inf, math.inf)
    assert elo((10, 0, 0)) == Interval(-math.inf, -math.inf, -math.inf)
    assert elo((0, 0, 0)) == Interval(0.0, -math.inf, math.inf)
    assert nelo((0, 10, 0)).value == 0.0 and nelo((0, 0, 10, 0, 0)).value == 0.0
    assert nelo((0, 0, 0, 0, 3)).value == math.inf
    assert (los((0, 0, 4)), los((4, 0, 0)), los((0, 4, 0)), los((0, 0, 0))) == (1.0, 0.0, 0.5, 0.5)
    # a few games: the score's interval reaches past [0, 1], whose Elo is infinite, not NaN
    assert elo((0, 1, 3)).high == math.inf and elo((0, 1, 3)).low > 0


FAR = [
    ((144, 3, 1, 0, 0), -1500), ((0, 0, 0, 0, 9), 5000), ((0, 9, 0), 400),
    ((0, 10**6, 0), 10000), ((50, 1, 10**6), -10000),
]


@pytest.mark.parametrize("counts, nelo_value", FAR)
def test_far_hypotheses_are_still_met(counts, nelo_value):
    """The distribution behind a far-off hypothesis has the hypothesis's t-value."""
    size = len(counts)
    target = nelo_value / sprt.NELO_PER_T * (math.sqrt(2) if size == 5 else 1)
    regular = [c or sprt.EMPTY for c in counts]
    observed = [c / sum(regular) for c in regular]
    p = sprt._nearest_with_t(observed, sprt._scores(size), target)
    assert sum(p) == pytest.approx(1) and min(p) > 0
    assert sprt._t_value(sprt._scores(size), p) == pytest.approx(target, rel=1e-6)


# ---- Properties ---------------------------------------------------------------------------

CASES = [(36027, 68692, 36433), (10, 30, 12), (365, 16618, 36229, 16974, 390), (3, 10, 20, 12, 1)]


@pytest.mark.parametrize("model", sprt.MODELS)
@pytest.mark.parametrize("counts", CASES)
def test_better_results_raise_the_llr(counts, model):
    base = llr(counts, 0, 5, model)
    for low in range(len(counts) - 1):  # one result moved one step up
        better = list(counts)
        better[low] -= 1
        better[low + 1] += 1
        assert llr(better, 0, 5, model) > base


@pytest.mark.parametrize("model", sprt.MODELS)
@pytest.mark.parametrize("counts", CASES)
def test_llr_symmetries(counts, model):
    value = llr(counts, 0, 5, model)
    # the other side's view: reversed counts, hypotheses mirrored
    assert llr(counts[::-1], -5, 0, model) == pytest.approx(-value, rel=1e-6, abs=1e-9)
    # the same frequencies from ten times the games: ten times the evidence
    assert llr([10 * c for c in counts], 0, 5, model) == pytest.approx(10 * value, rel=1e-6)


@pytest.mark.parametrize("counts", CASES)
def test_estimates_are_antisymmetric(counts):
    mine, theirs = elo(counts), elo(counts[::-1])
    assert theirs.value == pytest.approx(-mine.value) and theirs.low == pytest.approx(-mine.high)
    assert nelo(counts[::-1]).value == pytest.approx(-nelo(counts).value)
    assert los(counts) + los(counts[::-1]) == pytest.approx(1)
    assert (los(counts) > 0.5) == (mine.value > 0)


def test_nelo_interval_shrinks_with_games():
    # its half-width is 1.96 * 800 / ln 10 / sqrt(games), whatever the results
    assert nelo((1, 2, 1)).error == pytest.approx(sprt.Z95 * sprt.NELO_PER_T / 2)
    assert nelo((1, 2, 1, 0, 0)).error == pytest.approx(sprt.Z95 * sprt.NELO_PER_T / math.sqrt(8))
    assert nelo((40, 80, 40)).error < elo((40, 80, 40)).error * 2 < nelo((1, 2, 1)).error


def test_pairs_tell_more_than_their_games():
    """Pairs scoring 1-1 (a win and a loss) are less noisy than the same games counted singly."""
    pairs = (5, 10, 60, 20, 5)
    games = (2 * 5 + 10 + 30, 10 + 20 + 60, 2 * 5 + 20 + 30)  # L, D, W of the same games
    assert sprt.score(pairs) == pytest.approx(sprt.score(games))
    assert elo(pairs).error < elo(games).error
    assert llr(pairs, 0, 5) > llr(games, 0, 5) > 0


def test_draw_rate():
    assert draw_rate((1, 2, 1)) == 0.5
    assert draw_rate((1, 1, 6, 1, 1)) == 0.6  # pairs scoring 1-1
    assert draw_rate((0, 0, 0)) == 0.0


def test_pentanomial_counts_pairs_by_their_points():
    assert pentanomial([0, 0.5, 1, 1, 2, 1.5, 1.0, 2]) == (1, 1, 3, 1, 2)
    assert pentanomial([]) == (0, 0, 0, 0, 0)
    assert pentanomial(iter([2] * 3)) == (0, 0, 0, 0, 3)


# ---- Validation -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call, words",
    [
        (lambda: SPRT(2, 0), "elo0 must be less than elo1"),
        (lambda: SPRT(1, 1), "elo0 must be less than elo1"),
        (lambda: SPRT(0, math.inf), "elo1=inf; expected a finite number"),
        (lambda: SPRT(0, 2, alpha=0), "alpha=0; expected a number between 0 and 1"),
        (lambda: SPRT(0, 2, beta=1), "beta=1; expected a number between 0 and 1"),
        (lambda: SPRT(0, 2, alpha=0.5, beta=0.5), "their sum must be less than 1"),
        (lambda: SPRT(0, 2, model="bayesian"), "unknown SPRT model 'bayesian'; available: normalized, logistic"),
        (lambda: llr((1, 2, 3), 0, 2, "Normalized"), "unknown SPRT model 'Normalized'"),
        (lambda: llr((1, 2, 3, 4), 0, 2), "4 numbers; expected 3 (L, D, W) or 5"),
        (lambda: llr((1, -2, 3), 0, 2), "bad count -2 in (1, -2, 3)"),
        (lambda: elo((1, 2.5, 3)), "bad count 2.5"),
        (lambda: los(7), "bad counts 7"),
        (lambda: bounds(0.05, "0.05"), "beta='0.05'"),
        (lambda: pentanomial([1, 0.25]), "bad pair score 0.25; expected 0, 0.5, 1, 1.5 or 2"),
        (lambda: pentanomial([3]), "bad pair score 3"),
        (lambda: pentanomial([True]), "bad pair score True"),
    ],
)
def test_bad_parameters_say_what_is_wrong_in_one_line(call, words):
    with pytest.raises(ParameterError) as caught:
        call()
    message = str(caught.value)
    assert words in message and "\n" not in message


def test_only_empty_counts_are_regularized(monkeypatch):
    # 1e-3, as fishtest's LLRcalc.regularize and fastchess's regularize in sprt.cpp
    assert sprt.EMPTY == 1e-3
    with_zero, without = llr((0, 0, 400), 0, 5), llr((1, 2, 400), 0, 5)
    monkeypatch.setattr(sprt, "EMPTY", 1e-2)
    assert llr((0, 0, 400), 0, 5) != with_zero
    assert llr((1, 2, 400), 0, 5) == without


def test_an_even_score_is_elo_zero_not_minus_zero():
    value = sprt.elo((0, 0, 1, 0, 0)).value
    assert value == 0 and math.copysign(1.0, value) == 1.0  # a report shows "0", not "-0"
