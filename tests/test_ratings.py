"""results.ratings: the joint Elo fit with the first move, draws and colour-swapped pairs,
anchors, and the likelihood-of-superiority matrix."""

import importlib.util
import math
import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from arena.errors import ParameterError
from results.ratings import Z95, View, fit, quantile, ratings, strengths, superiority

ROOT = Path(__file__).resolve().parents[1]


def simulator():
    """bench/ratings.py, the simulator of tournaments with known strengths."""
    spec = importlib.util.spec_from_file_location("bench_ratings", ROOT / "bench" / "ratings.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("bench_ratings", module)  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def pairs_of(results, pairing=0, bots=("A", "B")):
    """Games from colour-swapped pairs: ``results`` holds, per pair, A's score with A first
    and A's score with A second."""
    a, b = bots
    rows = []
    for k, (first_game, second_game) in enumerate(results):
        rows.append((len(rows), pairing, a, b, f"o{k}", first_game))
        rows.append((len(rows), pairing, b, a, f"o{k}", 1.0 - second_game))
    return pd.DataFrame(rows, columns=["game_id", "pairing", "first", "second", "opening", "score_first"])


# ---- intervals that hold ------------------------------------------------------------------------

@pytest.mark.slow(reason="coverage of intervals over simulated tournaments")
@pytest.mark.parametrize("name", ["openings-200-draws-40", "sparse-draws-40", "draws-70"])
def test_intervals_hold_the_truth_in_a_small_simulation(name):
    # bench/ratings.py at a fixed seed, 150 tournaments: the share of intervals that hold the
    # truth has a Monte Carlo standard error near 0.6%; the tolerance is 95 +/- 2.5%, and the
    # reported se is within 10% of the estimates' spread around the truth.
    bench = simulator()
    result = bench.measure(bench.SCENARIOS[name], ratings, 150, seed=7)
    assert 0.925 <= result["holds"] <= 0.975, result
    assert 0.9 <= result["se_over_spread"] <= 1.1, result


def test_treating_games_as_coin_flips_is_too_wide_where_draws_and_openings_are_common():
    # the same simulation with the dispersion left out: the plain Bradley-Terry covariance
    # holds the truth nearly always there (its se 1.25-1.8 times the real spread)
    bench = simulator()
    result = bench.measure(bench.SCENARIOS["openings-200-draws-40"], lambda g: ratings(g, pairs=False), 150, seed=7)
    assert result["holds"] > 0.985 and result["se_over_spread"] > 1.3


def test_two_bots_in_pairs_get_the_pentanomial_standard_error():
    # fastchess and fishtest: with games in colour-swapped pairs, the score's variance is the
    # variance of the pair scores (pentanomial), per pair; its Elo se is that through the
    # logistic's slope, 400 / ln 10 / (s (1 - s)) per point of score (docs/sprt.md).
    rng = np.random.default_rng(3)
    outcomes = rng.choice([0.0, 0.5, 1.0], size=(400, 2), p=[0.25, 0.4, 0.35])
    outcomes[:, 1] = np.where(rng.random(400) < 0.6, outcomes[:, 0], outcomes[:, 1])  # pairs alike
    games = pairs_of(outcomes)
    table = ratings(games, prior=0)
    pair = outcomes.sum(axis=1) / 2  # A's score rate in each pair
    s = pair.mean()
    se_score = pair.std(ddof=1) / math.sqrt(len(pair))
    se_gap = se_score * 400 / math.log(10) / (s * (1 - s))
    gap = table.loc["A", "elo"] - table.loc["B", "elo"]
    assert gap == pytest.approx(400 * math.log10(s / (1 - s)), abs=0.5)  # first-move term near 0 here
    # each rating is half the gap, its se half the gap's; the dispersion's prior of 4 degrees
    # of freedom among 400 pairs moves it by under 1%, hence 2%
    assert table.loc["A", "se"] == pytest.approx(se_gap / 2, rel=0.02)


def test_a_dispersion_from_few_pairs_is_pulled_toward_one_and_widened_by_t():
    games = pairs_of([(1.0, 0.5), (0.5, 0.5), (0.5, 0.0)])
    result = fit(games)
    assert result.dispersion_df < 30 and result.quantile == pytest.approx(quantile(result.dispersion_df))
    assert result.quantile > Z95
    table = result.table
    assert (table["elo_high"] - table["elo"]).tolist() == pytest.approx((result.quantile * table["se"]).tolist())


def test_student_t_quantiles():
    # tables of Student's t, 97.5% point (Abramowitz and Stegun, table 26.10)
    for df, value in ((1, 12.706), (2, 4.303), (3, 3.182), (5, 2.571), (10, 2.228), (29, 2.045)):
        assert quantile(df) == pytest.approx(value, abs=0.004)
    assert quantile(0) == pytest.approx(1.959964, abs=1e-6)


# ---- what the numbers mean -------------------------------------------------------------------------

def simulated(strengths_elo, first_move, draw, games_per_order, seed):
    """Games of every ordered pairing: the first mover's expected score at its Elo
    advantage plus ``first_move``, drawn ``draw`` of the time where the score allows."""
    rng = np.random.default_rng(seed)
    names = [f"b{k}" for k in range(len(strengths_elo))]
    rows = []
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            if i == j:
                continue
            e = 1 / (1 + 10 ** (-(strengths_elo[i] - strengths_elo[j] + first_move) / 400))
            d = min(draw, 2 * e, 2 * (1 - e))
            u = rng.random(games_per_order)
            score = np.where(u < e - d / 2, 1.0, np.where(u < e + d / 2, 0.5, 0.0))
            rows += [(len(rows) + k, a, b, f"o{len(rows) + k}", s) for k, s in enumerate(score)]
    return pd.DataFrame(rows, columns=["game_id", "first", "second", "opening", "score_first"])


def test_the_first_move_advantage_is_fitted_and_the_ratings_stay_colour_neutral():
    truth = np.array([-100.0, 0.0, 100.0])
    games = simulated(truth, first_move=60.0, draw=0.3, games_per_order=3000, seed=1)
    table = ratings(games)
    assert table.attrs["first_move"] == pytest.approx(60.0, abs=4 * table.attrs["first_move_se"])
    assert table.attrs["first_move_se"] < 5
    assert table["elo"].tolist() == pytest.approx(truth.tolist(), abs=8)  # about 3 se
    # without the term, each bot's colours balance: the ratings come out compressed, not shifted
    plain = ratings(games, first_move=False)
    assert abs(plain.loc["b2", "elo"]) < abs(table.loc["b2", "elo"])


def test_draws_change_the_intervals_not_the_scale():
    truth = np.array([-80.0, 0.0, 80.0])
    decisive = ratings(simulated(truth, 0.0, 0.0, 2000, seed=2))
    drawish = ratings(simulated(truth, 0.0, 0.7, 2000, seed=2))
    assert drawish["elo"].tolist() == pytest.approx(truth.tolist(), abs=8)
    assert decisive["elo"].tolist() == pytest.approx(truth.tolist(), abs=8)
    # a draw varies less than a coin flip: 70% draws leave about 30% of the variance
    assert drawish.attrs["dispersion"] == pytest.approx(0.3, abs=0.06)
    assert (drawish["se"] < 0.65 * decisive["se"]).all()
    # Davidson's parameter: equal bots draw nearly the generated share
    assert drawish.attrs["draw_equal"] == pytest.approx(0.7, abs=0.05)
    assert 0.6 < drawish.attrs["draw_rate"] < 0.7  # fewer where one side is stronger
    assert decisive.attrs["draw_nu"] == 0.0


def test_without_the_pair_and_first_move_terms_the_fit_is_plain_bradley_terry():
    # the fit a Plackett-Luce model over rankings must agree with on two-player games
    games = simulated(np.array([-50.0, 0.0, 120.0]), 40.0, 0.2, 50, seed=4)
    table = ratings(games, first_move=False, pairs=False, prior=0)
    bots = sorted(set(games["first"]))
    index = {b: k for k, b in enumerate(bots)}
    plain = strengths(games["first"].map(index).to_numpy(), games["second"].map(index).to_numpy(),
                      games["score_first"].to_numpy(), 3, first_move=False, prior=0)
    assert table["elo"].tolist() == pytest.approx(plain.tolist(), abs=1e-9)
    # the defining equations of Bradley-Terry: every bot's expected points equal its real ones
    r = table["elo"]
    expected = 1 / (1 + 10 ** (-(games["first"].map(r).to_numpy() - games["second"].map(r).to_numpy()) / 400))
    for bot in bots:
        real = games.loc[games["first"] == bot, "score_first"].sum() + (1 - games.loc[games["second"] == bot, "score_first"]).sum()
        model = expected[games["first"] == bot].sum() + (1 - expected[games["second"] == bot]).sum()
        assert model == pytest.approx(real, abs=1e-6)
    assert table.attrs["dispersion"] == 1.0 and table.attrs["first_move"] == 0.0


# ---- anchors -------------------------------------------------------------------------------------------

def test_one_anchor_shifts_the_ratings_and_measures_intervals_from_it():
    games = simulated(np.array([-100.0, 0.0, 150.0]), 20.0, 0.3, 40, seed=5)
    free = fit(games)
    held = fit(games, anchors={"b0": 1000.0})
    shift = 1000.0 - free.table.loc["b0", "elo"]
    assert held.table["elo"].tolist() == pytest.approx((free.table["elo"] + shift).tolist(), abs=1e-6)
    assert held.table.loc["b0", "se"] == 0.0 and held.table.loc["b0", "elo_low"] == 1000.0
    # the se of b2 is now that of its difference from b0, from the free fit's covariance
    c = free.covariance
    assert held.table.loc["b2", "se"] == pytest.approx(math.sqrt(c[2, 2] + c[0, 0] - 2 * c[0, 2]), rel=1e-6)
    assert held.first_move == pytest.approx(free.first_move, abs=1e-6)


def test_two_anchors_are_both_held():
    games = simulated(np.array([-100.0, 0.0, 150.0, 300.0]), 0.0, 0.2, 30, seed=6)
    table = ratings(games, anchors={"b0": 0.0, "b3": 400.0})
    assert table.loc["b0", "elo"] == 0.0 and table.loc["b3", "elo"] == 400.0
    assert 0.0 < table.loc["b1", "elo"] < table.loc["b2", "elo"] < 400.0
    assert table.attrs["anchors"] == {"b0": 0.0, "b3": 400.0}


def test_an_anchor_must_be_a_bot_that_played():
    games = simulated(np.array([0.0, 50.0]), 0.0, 0.0, 5, seed=1)
    with pytest.raises(ParameterError, match="anchor nobody played no game here; bots: b0, b1"):
        ratings(games, anchors={"nobody": 0})


@pytest.mark.parametrize("text, message", [
    ("random", "--anchor takes BOT=ELO (e.g. random=0), not 'random'"),
    ("random=x", "--anchor takes BOT=ELO (e.g. random=0), not 'random=x'"),
    ("=0", "--anchor takes BOT=ELO (e.g. random=0), not '=0'"),
    ("random=inf", "--anchor takes BOT=ELO (e.g. random=0), not 'random=inf'"),
])
def test_malformed_anchors_are_named(text, message):
    with pytest.raises(ParameterError) as caught:
        View.parse([text])
    assert str(caught.value) == message


def test_anchors_parse_with_names_holding_equals_signs():
    view = View.parse(["alphabeta:depth=3=1500", "random=-20.5"], top=4)
    assert view.anchors == (("alphabeta:depth=3", 1500.0), ("random", -20.5)) and view.top == 4
    with pytest.raises(ParameterError, match="given twice"):
        View.parse(["random=0", "random=1"])


# ---- who is stronger -----------------------------------------------------------------------------------

def test_superiority_comes_from_the_joint_covariance():
    games = simulated(np.array([0.0, 40.0, 300.0]), 0.0, 0.3, 60, seed=8)
    result = fit(games)
    matrix = superiority(result)
    assert list(matrix.index) == ["b2", "b1", "b0"] and list(matrix.columns) == ["b2", "b1", "b0"]
    values = matrix.to_numpy()
    assert np.isnan(np.diag(values)).all()
    off = ~np.eye(3, dtype=bool)
    assert (values + values.T)[off] == pytest.approx(np.ones(6))
    order = list(result.table.index)
    a, b = order.index("b1"), order.index("b0")
    c = result.covariance
    z = (result.table.loc["b1", "elo"] - result.table.loc["b0", "elo"]) / math.sqrt(c[a, a] + c[b, b] - 2 * c[a, b])
    assert matrix.loc["b1", "b0"] == pytest.approx(0.5 * (1 + math.erf(z / math.sqrt(2))), abs=1e-12)
    assert matrix.loc["b2", "b0"] > 0.999


def test_superiority_can_be_sure_where_the_intervals_overlap():
    # in a round robin every rating shares the games: the difference's sd is below the
    # two se added, so intervals that overlap can still mean a clear order
    games = simulated(np.array([0.0, 0.0, 100.0, 140.0]), 0.0, 0.0, 120, seed=9)
    result = fit(games)
    table = result.table.sort_values("elo", ascending=False)
    top, second = table.index[0], table.index[1]
    assert table.loc[second, "elo_high"] > table.loc[top, "elo_low"]  # the intervals overlap
    assert superiority(result).loc[top, second] > 0.975


def test_superiority_shows_the_top_n_of_a_large_field():
    rng = np.random.default_rng(10)
    games = simulated(rng.normal(0, 200, 30), 0.0, 0.2, 2, seed=10)
    result = fit(games)
    matrix = superiority(result, top=5)
    assert matrix.shape == (5, 5)
    assert list(matrix.index) == list(result.table["elo"].sort_values(ascending=False).index[:5])
    assert superiority(result, top=0).empty


def test_the_prior_decides_the_gap_of_a_perfect_score_as_docs_ratings_says():
    # docs/ratings.md: two games both won, 521 Elo between the bots; twenty, 877
    for count, gap in ((2, 521), (20, 877)):
        rows = [(k, 0, "A", "B", "", 1.0) if k % 2 == 0 else (k, 0, "B", "A", "", 0.0) for k in range(count)]
        games = pd.DataFrame(rows, columns=["game_id", "pairing", "first", "second", "opening", "score_first"])
        table = ratings(games)
        assert table.loc["A", "elo"] - table.loc["B", "elo"] == pytest.approx(gap, abs=0.5)


def test_edge_fields_give_finite_tables():
    def games(rows):
        return pd.DataFrame([(k, 0, a, b, "", s) for k, (a, b, s) in enumerate(rows)],
                            columns=["game_id", "pairing", "first", "second", "opening", "score_first"])

    alone = ratings(games([("A", "A", 1.0)]))  # a game against itself says nothing
    assert alone["elo"].tolist() == [0.0] and alone.attrs["clusters"] == 0
    drawn = ratings(games([("A", "B", 0.5), ("B", "A", 0.5)]))
    assert drawn.attrs["draw_rate"] == 1.0 and drawn.attrs["draw_equal"] == 1.0
    assert np.isfinite(drawn[["elo", "se"]].to_numpy()).all() and isinstance(drawn.attrs["first_move"], float)
    # two groups that never met: the prior alone relates them, with intervals to match
    apart = fit(games([("A", "B", 1.0), ("B", "A", 0.0), ("C", "D", 1.0), ("D", "C", 0.0)]))
    assert apart.table.loc["A", "se"] > 200 and superiority(apart).loc["A", "C"] < 0.9


# ---- what a hostile user tried ----------------------------------------------------------------------------

def test_an_anchor_far_from_the_field_is_still_a_shift():
    games = simulated(np.array([-300.0, 0.0, 200.0]), 30.0, 0.2, 6, seed=11)
    free = ratings(games)
    for value in (2510.0, 2910.0, 15000.0, -8000.0, 1e9):
        held = ratings(games, anchors={"b0": value})
        assert held["elo"].tolist() == pytest.approx((free["elo"] + value - free.loc["b0", "elo"]).tolist(), abs=1e-6, rel=1e-15)
        assert held.attrs["first_move"] == pytest.approx(free.attrs["first_move"], abs=1e-6)


def test_the_maximum_likelihood_is_refused_when_the_first_mover_always_won():
    rows = [(k, "a" if k % 2 == 0 else "b", "b" if k % 2 == 0 else "a", "", 1.0) for k in range(10)]
    games = pd.DataFrame(rows, columns=["game_id", "first", "second", "opening", "score_first"])
    with pytest.raises(ValueError, match="or the first movers"):
        ratings(games, prior=0)
    assert ratings(games).attrs["first_move"] > 200  # the prior keeps it finite


def test_two_anchors_have_no_superiority_between_them():
    games = simulated(np.array([0.0, 100.0, 200.0]), 0.0, 0.2, 20, seed=12)
    matrix = superiority(fit(games, anchors={"b0": 0.0, "b2": 1500.0}))
    assert math.isnan(matrix.loc["b2", "b0"]) and math.isnan(matrix.loc["b0", "b2"])
    assert 0.0 < matrix.loc["b2", "b1"] < 1.0


def test_superiority_agrees_with_the_intervals_on_few_pairs():
    # with one anchor, A's interval is that of its difference from B: it clears 0 exactly when
    # P(A stronger) passes 97.5%, both from Student's t (to 0.005, the approximation's error)
    for pairs_won in range(2, 9):
        outcomes = [(1.0, 1.0)] * pairs_won + [(0.5, 0.0)] * (9 - pairs_won) + [(0.0, 0.5)]
        result = fit(pairs_of(outcomes), anchors={"B": 0.0})
        p = superiority(result).loc["A", "B"]
        low = result.table.loc["A", "elo_low"]
        assert result.dispersion_df < 30
        if abs(p - 0.975) > 0.005:
            assert (low > 0) == (p > 0.975), (pairs_won, low, p)


@pytest.mark.parametrize("score, message", [
    (2.0, "score_first must be a score from 0 to 1"), (-1.0, "score_first must be a score from 0 to 1"),
    (math.nan, "score_first must be a score from 0 to 1"),
])
def test_scores_outside_zero_to_one_are_refused(score, message):
    games = pairs_of([(1.0, 0.5)]).assign(score_first=[score, 0.5])
    with pytest.raises(ParameterError, match=message):
        ratings(games)


@pytest.mark.parametrize("anchors, message", [
    ({"A": "100"}, "anchor A's Elo must be a finite number, not '100'"),
    ({"A": math.inf}, "anchor A's Elo must be a finite number, not inf"),
    (["A=0"], "anchors are bot -> Elo"),
])
def test_bad_anchors_are_named(anchors, message):
    with pytest.raises(ParameterError, match=re.escape(message)):
        ratings(pairs_of([(1.0, 0.5)]), anchors=anchors)


def test_bad_priors_and_tables_are_named():
    games = pairs_of([(1.0, 0.5)])
    for prior in (-1.0, math.nan, math.inf):
        with pytest.raises(ValueError, match="prior must be a number of virtual games"):
            ratings(games, prior=prior)
    with pytest.raises(ParameterError, match="superiority takes a Fit"):
        superiority(ratings(games))
    odd = games.assign(pairing=[math.nan, math.nan], opening=pd.Categorical([None, None]))
    assert ratings(odd)["elo"].tolist() == pytest.approx(ratings(games)["elo"].tolist())


def test_every_report_table_follows_the_anchored_standings():
    from results.report import View as ReportView, report

    games = simulated(np.array([0.0, 30.0, 60.0, 400.0]), 0.0, 0.2, 4, seed=13).assign(
        pairing=0, tournament="t", result="", termination="normal", loser=pd.array([pd.NA] * 48, dtype="Int64"),
        utility_first=0.0, message="", plies=0)
    moves = pd.DataFrame(columns=["tournament", "game_id", "ply", "player", "bot", "move", "nodes", "seconds",
                                  "depth", "score"])
    tables = report(games, moves, ReportView((("b0", 500.0), ("b1", -500.0)), 4))
    order = list(tables["standings"].index)
    assert order == ["b3", "b0", "b2", "b1"] and list(report(games, moves)["standings"].index) != order
    for name in ("crosstable", "colours", "terminations"):
        assert list(tables[name].index) == order


def test_the_prior_moves_expected_points_at_most_prior():
    # docs/ratings.md: each bot's expected points move at most ``prior`` from its real ones
    # (two strong bots among many that draw each other is the worst case found)
    rows = []
    for strong in ("s0", "s1"):
        for weak in range(18):
            rows += [(strong, f"w{weak}", 1.0), (f"w{weak}", strong, 0.0)]
    rows += [(f"w{a}", f"w{b}", 0.5) for a in range(18) for b in range(18) if a != b]
    games = pd.DataFrame([(k, *r) for k, r in enumerate(rows)], columns=["game_id", "first", "second", "score_first"])
    for prior in (0.3, 1.0):
        table = ratings(games, prior=prior, first_move=False)
        r = table["elo"]
        e = 1 / (1 + 10 ** (-(games["first"].map(r).to_numpy() - games["second"].map(r).to_numpy()) / 400))
        x = games["score_first"].to_numpy()
        for bot in table.index:
            first, second = (games["first"] == bot).to_numpy(), (games["second"] == bot).to_numpy()
            gap = (x[first] - e[first]).sum() + ((1 - x[second]) - (1 - e[second])).sum()
            assert abs(gap) <= prior
