"""Report edges: the table of self-reported node counts, the Elo fit's building blocks
(strengths), games against oneself, and ties in the standings order."""

import math

import numpy as np
import pandas as pd
import pytest

from results.ratings import interval_quantile, strengths
from results.report import K, by_colour, crosstable, elo, report, reported, standings, terminations
from tests.test_report import SMALL, SMALL_MOVES, make_games, make_moves, rounds


def flagged_moves(rows):
    """A moves frame from (game_id, bot, nodes, reported, over_budget)."""
    moves = make_moves([(g, b, n, 0.1, None) for g, b, n, _, _ in rows])
    return moves.assign(reported=[r for *_, r, _ in rows], over_budget=[o for *_, o in rows])


def test_reported_counts_only_bots_with_self_counted_moves_in_standings_order():
    games = make_games(SMALL)  # standings order A, C, B
    moves = flagged_moves([
        (0, "A", 10, 1, 0), (0, "B", 5, 0, 0), (1, "A", 20, 1, 1), (1, "B", 7, 0, 0),
        (3, "C", 9, 1, 1), (5, "C", 3, 0, 0), (4, "B", 2, 1, 0), (99, "B", 1, 1, 1),  # game 99 is not played
    ])
    table = reported(games, moves)
    assert list(table.index) == ["A", "C", "B"] and table.index.name == "bot"
    assert table.to_dict("index") == {
        "A": {"moves": 2, "reported_moves": 2, "over_budget": 1},
        "C": {"moves": 2, "reported_moves": 1, "over_budget": 1},
        "B": {"moves": 3, "reported_moves": 1, "over_budget": 0},
    }
    assert all(dtype == np.int64 for dtype in table.dtypes)
    tables = report(games, moves)
    assert list(tables) == ["standings", "rating_model", "superiority", "crosstable", "colours", "terminations",
                            "reported", "payoff", "cycles"]
    pd.testing.assert_frame_equal(tables["reported"], table)


def test_no_reported_table_when_the_arena_counted_every_node():
    games = make_games(SMALL)
    moves = flagged_moves([(0, "A", 10, 0, 0), (0, "B", 5, 0, 0)])
    assert "reported" not in report(games, moves)
    assert "reported" not in report(games, make_moves(SMALL_MOVES))  # no such column at all


def arrays(games, bots):
    """The first movers, second movers and scores of ``games`` as index arrays over ``bots``."""
    index = {b: k for k, b in enumerate(bots)}
    return (games["first"].map(index).to_numpy(int), games["second"].map(index).to_numpy(int),
            games["score_first"].to_numpy(float))


def test_strengths_are_the_fits_elo_without_intervals():
    # 300 of 400 points: E = 0.75 is a gap of 400 log10(3) Elo (Elo's expected score formula,
    # https://en.wikipedia.org/wiki/Elo_rating_system), split evenly around a mean of 0
    games = make_games(rounds("A", "B", 280, 40, 80))
    first, second, score = arrays(games, ["A", "B"])
    gap = 400 * math.log10(3)
    assert strengths(first, second, score, 2, prior=0).tolist() == pytest.approx([gap / 2, -gap / 2], abs=1e-6)
    with_prior = strengths(first, second, score, 2)  # one virtual draw each against the field's mean
    assert 0 < with_prior[0] < gap / 2 and with_prior.sum() == pytest.approx(0, abs=1e-9)
    assert elo(games)["elo"].tolist() == pytest.approx(with_prior.tolist(), abs=1e-6)
    assert K == pytest.approx(math.log(10) / 400)


def test_a_prior_pulls_a_perfect_score_to_a_finite_rating_that_grows_with_the_games():
    few, many = (elo(make_games(rounds("A", "B", k))) for k in (2, 20))
    assert 0 < few.loc["A", "elo"] < many.loc["A", "elo"] < math.inf
    assert few.loc["A", "elo"] == pytest.approx(-few.loc["B", "elo"])
    # a stronger prior pulls harder
    assert elo(make_games(rounds("A", "B", 2)), prior=4).loc["A", "elo"] < few.loc["A", "elo"]


def test_games_against_oneself_say_nothing_about_ratings():
    games = make_games(rounds("A", "B", 6, 0, 2))
    selfish = make_games(rounds("A", "B", 6, 0, 2) + [("A", "A", "1-0"), ("B", "B", "1-0"), ("A", "A", "0-1")])
    pd.testing.assert_frame_equal(elo(selfish), elo(games))


def test_the_fit_needs_every_bot_connected_only_without_a_prior():
    # a chain A > B > C, each link a split result: every bot reaches every other by points scored
    chain = make_games(rounds("A", "B", 3, 0, 1) + rounds("B", "C", 3, 0, 1))
    table = elo(chain, prior=0, first_move=False)
    assert table.loc["A", "elo"] > table.loc["B", "elo"] > table.loc["C", "elo"]
    assert table.loc["A", "elo"] - table.loc["B", "elo"] == pytest.approx(400 * math.log10(3), abs=1e-6)
    one_way = make_games(rounds("A", "B", 3, 0, 1) + rounds("B", "C", 4))  # C never scored: no finite MLE
    with pytest.raises(ValueError) as caught:
        elo(one_way, prior=0)
    assert str(caught.value) == ("no finite maximum-likelihood Elo: some bots (or the first movers) scored all or "
                                 "none of the points against the others; use prior > 0")
    assert np.isfinite(elo(one_way)["elo"]).all()


def test_an_empty_tournament_has_an_empty_elo_table():
    table = elo(make_games(SMALL).iloc[:0])
    assert table.empty and list(table.columns) == ["elo", "elo_low", "elo_high", "se"] and table.index.name == "bot"


def test_standings_break_elo_ties_by_score_then_by_name():
    # the hub splits its games with each of the others: every rating is 0, the hub has 2 points,
    # the others 1 each
    for hub, others in (("A", ["B", "C"]), ("C", ["A", "B"]), ("B", ["A", "C"])):
        rows = []
        for other in others[::-1]:
            rows += [(hub, other, "1-0"), (other, hub, "1-0")]
        table = standings(make_games(rows), make_moves([]))
        assert table["elo"].tolist() == [0.0, 0.0, 0.0]
        assert list(table.index) == [hub] + others and table["score"].tolist() == [2.0, 1.0, 1.0]
        for other in (by_colour, terminations, crosstable):  # every table in the standings' order
            assert list(other(make_games(rows)).index) == [hub] + others


def _symmetric_rating(points, games, prior):
    """Elo of A when A scores ``points`` of ``games`` against B, found by bisection on the
    posterior's own stationarity condition: the fit's model (P = sigmoid(K * (r_A - r_B)),
    ``prior`` virtual draws of each bot against the field's mean) puts r_B = -r_A = -x/K, and
    d/dx [points log s(2x) + (games - points) log s(-2x) + prior (log s(x) + log s(-x))] = 0."""

    def sigmoid(v):
        return 1 / (1 + math.exp(-v))

    def slope(x):
        return (2 * points * sigmoid(-2 * x) - 2 * (games - points) * sigmoid(2 * x)
                + prior * (sigmoid(-x) - sigmoid(x)))

    low, high = -30.0, 30.0
    for _ in range(200):
        mid = (low + high) / 2
        low, high = (mid, high) if slope(mid) > 0 else (low, mid)
    return (low + high) / 2 / K


@pytest.mark.parametrize("wins, draws, losses, prior", [(2, 0, 0, 1.0), (20, 0, 0, 1.0), (7, 2, 1, 1.0),
                                                        (3, 0, 0, 4.0), (5, 1, 4, 0.5)])
def test_the_fit_is_the_posteriors_maximum(wins, draws, losses, prior):
    games = make_games(rounds("A", "B", wins, draws, losses))
    expected = _symmetric_rating(wins + draws / 2, wins + draws + losses, prior)
    table = elo(games, prior=prior, first_move=False)
    assert table.loc["A", "elo"] == pytest.approx(expected, abs=1e-6)
    assert table.loc["B", "elo"] == pytest.approx(-expected, abs=1e-6)


def test_the_prior_adds_one_virtual_game_of_information_per_bot():
    # an even match: every rating is 0, each game has information p(1 - p) = 1/4 and so has
    # each bot's virtual draw against the field's mean; along the mean-zero constraint each
    # rating's variance is 1 / (games + prior / 2), in units of K (games as coin flips)
    for games, prior in ((20, 1.0), (4, 1.0), (20, 2.0), (20, 0.0)):
        table = elo(make_games(rounds("A", "B", games // 2, 0, games // 2)), prior=prior, pairs=False)
        assert table["elo"].tolist() == [0.0, 0.0]
        assert table["se"].tolist() == pytest.approx([1 / math.sqrt(games + prior / 2) / K] * 2, rel=1e-9)


def test_a_split_of_half_points_is_enough_for_a_maximum_likelihood_fit():
    table = elo(make_games([("A", "B", "1/2-1/2")]), prior=0)
    assert table["elo"].tolist() == [0.0, 0.0]


@pytest.mark.filterwarnings("ignore:Mean of empty slice", "ignore:invalid value encountered")
def test_no_bots_no_ratings():
    none = np.zeros(0, int)
    assert strengths(none, none, np.zeros(0), 0).tolist() == []


def test_tables_keep_their_types_names_and_the_standings_order():
    games, moves = make_games(SMALL), make_moves(SMALL_MOVES)
    table = standings(games, moves)
    assert [str(table[c].dtype) for c in ("games", "wins", "draws", "losses")] == ["int64"] * 4
    tables = report(games, moves)
    for name in ("colours", "terminations"):
        assert list(tables[name].index) == ["A", "C", "B"] and tables[name].index.name == "bot"
    assert all(str(t) == "int64" for t in tables["terminations"].dtypes)
    empty = elo(games.iloc[:0])
    assert all(str(t) == "float64" for t in empty.dtypes)


def test_a_bot_that_never_moved_first_has_no_first_rate():
    games = make_games([("A", "B", "1-0"), ("A", "C", "1/2-1/2"), ("C", "B", "0-1")])
    table = by_colour(games)
    assert table.loc["A", ["second_games", "second_score"]].tolist() == [0, 0.0] and math.isnan(table.loc["A", "second_rate"])
    assert table.loc["B", ["first_games", "first_score"]].tolist() == [0, 0.0] and math.isnan(table.loc["B", "first_rate"])
    assert str(table["first_games"].dtype) == "int64" and table.loc["C", ["first_games", "first_score", "first_rate"]].tolist() == [1, 0.0, 0.0]


def test_a_bot_whose_every_game_its_opponent_forfeited_has_no_reasons_of_its_own():
    games = make_games([("A", "B", "1-0", "timeout", 1), ("B", "A", "0-1", "crash", 0)])
    table = terminations(games)
    assert table.loc["A"].tolist() == [0] * len(table.columns[:-2]) + [0, 2]
    assert table.loc["B", "timeout"] == 1 and table.loc["B", "crash"] == 1 and table.loc["B", "forfeits"] == 2


def test_moves_that_took_no_measurable_time_have_no_speed():
    games = make_games([("A", "B", "1-0")])
    moves = make_moves([(0, "A", 10, 0.0, None), (0, "B", 5, 0.5, None)])
    table = standings(games, moves)
    assert math.isnan(table.loc["A", "nodes_per_second"]) and table.loc["B", "nodes_per_second"] == 10.0


def test_elo_intervals_are_symmetric_about_the_rating_and_ratings_centred():
    games = make_games(rounds("A", "B", 3, 0, 1) + rounds("B", "C", 3, 0, 1) + rounds("A", "C", 2, 1, 1))
    table = elo(games)
    assert table.index.name == "bot"
    q = interval_quantile(table.attrs["dispersion_df"])
    assert (table["elo"] - table["elo_low"]).tolist() == pytest.approx((q * table["se"]).tolist())
    assert (table["elo_high"] - table["elo"]).tolist() == pytest.approx((q * table["se"]).tolist())
    fitted = strengths(*arrays(games, "ABC"), 3)
    assert fitted.sum() == pytest.approx(0, abs=1e-9)
    assert fitted.tolist() == pytest.approx(table["elo"].tolist(), abs=1e-6)
