"""The standings' mean utility per game (``utility/game``): where a game's utilities tell more
than its results (poker's chips), each bot's mean with its 95% interval, colour-swapped pairs
(a table's rounds, with more seats) the units; absent where utilities are only -1, 0 and 1."""

import json
import math

import pandas as pd
import pytest

import results
from arena import Bot, play_game
from arena.dice import Dice, seed_key
from arena.front.cli import main
from bots.random_bot import RandomBot
from bots.uniform import UniformBot
from games.kuhn import KuhnPoker
from games.tictactoe import TicTacToe
from results import frames
from results.ratings import interval_quantile
from results.report import render, report
from results.seat_report import seat_report

BETTOR_VALUE = 0.375
"""Chips a game an always-betting seat wins from a uniformly random one in Kuhn poker, worked out
by hand (utilities as in Kuhn 1950): first to act it bets and the other folds half the time (+1)
or calls to an even showdown (0): 1/2; second to act, it bets after a check (1/2 of the time),
again 1/2, and calls a bet to an even showdown: 1/4. Each seat half the games: 3/8."""


class Bettor(Bot):
    """Bets, or calls, at every turn of Kuhn poker."""

    name = "bettor"
    handles = frozenset({"chance", "hidden"})

    def choose(self, game, view, budget):
        return "b"


def kuhn_records(pairs: int) -> list:
    """``pairs`` colour-swapped pairs of Kuhn poker, uniform against the bettor, each pair dealt
    the same cards seat by seat as a tournament deals them (one dice context a pair)."""
    records = []
    for k in range(pairs):
        dice = Dice(seed_key(k), "pair")
        for seated, names in (((UniformBot(), Bettor()), ("uniform", "bettor")),
                              ((Bettor(), UniformBot()), ("bettor", "uniform"))):
            records.append(play_game(KuhnPoker(), list(seated), names=names, seed=k, dice=dice, trusted=True))
    return records


def test_kuhn_standings_show_each_bots_mean_chips_with_an_interval_from_its_pairs():
    records = kuhn_records(150)
    tables = frames(records)
    standings = report(tables.games, tables.moves, seats=tables.seats)["standings"]
    chips = {"uniform": [], "bettor": []}
    for record in records:
        for name, utility in zip(record.players, record.utilities):
            chips[name].append(utility)
    assert {abs(u) for u in chips["bettor"]} == {1, 2}  # chips, not only wins and losses
    for name, won in chips.items():
        mean = sum(won) / len(won)
        row = standings.loc[name]
        assert row["utility_per_game"] == pytest.approx(mean, abs=1e-12)
        # the interval from the records by hand: game 2k and 2k + 1 are a pair (CR1, t on 149 df: normal)
        units = [won[i] + won[i + 1] - 2 * mean for i in range(0, len(won), 2)]
        half = interval_quantile(len(units) - 1) * math.sqrt(sum(u * u for u in units) * 150 / 149) / len(won)
        assert row["utility_low"] == pytest.approx(mean - half, abs=1e-12)
        assert row["utility_high"] == pytest.approx(mean + half, abs=1e-12)
        assert 0.05 < half < 0.5
    # zero-sum: the bettor's mean is the uniform bot's negated; Kuhn's known value lies inside (seed 0..149)
    assert standings.at["bettor", "utility_per_game"] == pytest.approx(-standings.at["uniform", "utility_per_game"])
    assert standings.at["bettor", "utility_low"] < BETTOR_VALUE < standings.at["bettor", "utility_high"]
    assert standings.at["uniform", "utility_low"] < -BETTOR_VALUE < standings.at["uniform", "utility_high"]


def test_a_stored_kuhn_tournament_reports_the_column_in_every_format(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("results.store.new_key", lambda: seed_key(29))  # a run's secret is random; fixed here
    db = tmp_path / "kuhn.db"
    argv = ["run", "--game", "kuhn_poker", "--bot", "a=uniform", "--bot", "b=uniform", "--games", "20",
            "--no-isolation", "--trusted", "--jobs", "1", "--no-progress", "--db", str(db)]
    assert main(argv) == 0
    capsys.readouterr()
    tables = results.load(db)
    expected = tables.seats.groupby("bot")["utility"].mean()
    assert not tables.seats["utility"].isin([-1, 0, 1]).all()
    tables_out = report(tables.games, tables.moves, seats=tables.seats)
    standings = tables_out["standings"]
    assert standings["utility_per_game"].to_dict() == pytest.approx(expected.to_dict(), abs=1e-12)
    assert (standings["utility_low"] < standings["utility_per_game"]).all()
    assert (standings["utility_per_game"] < standings["utility_high"]).all()

    text = render(tables_out, "text", tables.about)
    assert "utility/game: mean utility per game (poker: chips won) with its 95% interval (±)" in " ".join(text.split())
    header = next(line for line in text.splitlines() if line.startswith("bot  games"))
    assert header.split()[8:12] == ["utility/game", "±", "elo", "±"]
    for bot, row in standings.iterrows():
        line = next(line for line in text.splitlines() if line.startswith(f"{bot} "))
        half = (row["utility_high"] - row["utility_low"]) / 2
        assert line.split()[8:10] == [f"{row['utility_per_game']:+.3f}", f"{half:.3f}"]
    assert "| utility/game | ± | elo | ± |" in render(tables_out, "markdown", tables.about)
    data = json.loads(render(tables_out, "json", tables.about))["standings"]
    assert [round(r["utility_per_game"], 9) for r in data] == [round(v, 9) for v in standings["utility_per_game"]]
    assert {"utility_low", "utility_high"} <= set(data[0])
    csv = render(tables_out, "csv", tables.about)
    assert "win_rate,utility_per_game,utility_low,utility_high,elo," in csv


def test_the_column_is_absent_where_utilities_are_only_wins_draws_and_losses():
    records = [play_game(TicTacToe(), [RandomBot(), RandomBot()], names=names, seed=k)
               for k in range(6) for names in (("x", "y"), ("y", "x"))]
    tables = frames(records)
    with_seats = report(tables.games, tables.moves, seats=tables.seats)
    assert "utility_per_game" not in with_seats["standings"]
    for fmt in ("text", "markdown", "json", "csv", "html"):  # the same report as without the seats
        assert render(with_seats, fmt) == render(report(tables.games, tables.moves), fmt)


def _table_of_three(utilities: list[list[float]]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Games and seats of one table of bots a, b, c: a round is 3 games, each bot in each seat once."""
    seatings = [("a", "b", "c"), ("b", "c", "a"), ("c", "a", "b")]
    games, seats = [], []
    for g, row in enumerate(utilities):
        names = seatings[g % 3]
        best = max(row)
        for s, (bot, u) in enumerate(zip(names, row)):
            points = 1.0 / row.count(best) if u == best else 0.0
            rank = 1 + sum(v > u for v in row) + (row.count(u) - 1) / 2
            seats.append({"game_id": g, "seat": s, "bot": bot, "utility": u, "points": points, "rank": rank,
                          "moves": 1, "nodes": 1, "seconds": 0.01})
        games.append({"game_id": g, "pairing": 0, "first": names[0], "second": names[1], "opening": "",
                      "score_first": 0.0, "termination": "normal", "loser": pd.NA})
    return pd.DataFrame(games), pd.DataFrame(seats)


def test_a_game_of_three_seats_has_the_column_with_a_tables_rounds_the_units():
    rounds = [[2, -1, -1], [3, -2, -1], [-1, 2, -1], [-1, -1, 2], [2, -1, -1], [-1, 3, -2],
              [2, -1, -1], [-1, -1, 2], [3, -1, -2]]  # 3 rounds of 3 games
    games, seats = _table_of_three(rounds)
    moves = pd.DataFrame({"game_id": [0], "player": [0], "bot": ["a"], "nodes": [1], "seconds": [0.01],
                          "depth": [pd.NA], "reported": [0], "over_budget": [0]})
    standings = seat_report(seats, games, moves)["standings"]
    for bot in "abc":
        won = seats[seats.bot == bot].sort_values("game_id")["utility"].tolist()
        mean = sum(won) / 9
        units = [sum(won[r:r + 3]) - 3 * mean for r in (0, 3, 6)]
        half = interval_quantile(2) * math.sqrt(sum(u * u for u in units) * 3 / 2) / 9
        assert standings.at[bot, "utility_per_game"] == pytest.approx(mean, abs=1e-12)
        assert standings.at[bot, "utility_high"] - standings.at[bot, "utility_per_game"] == pytest.approx(half)
    assert "a table's rounds the units" in standings.attrs["note"]
    shares = [[1, 0, 0], [0.5, 0.5, 0], [0, 0, 1]] * 3  # utilities that are the points (rolit's): no column
    games, seats = _table_of_three(shares)
    assert "utility_per_game" not in seat_report(seats, games, moves)["standings"]


def test_the_html_page_shows_the_column_with_its_interval():
    from results.html_report import check_jinja, html

    try:
        check_jinja()
    except Exception as exc:
        pytest.skip(str(exc))
    tables = frames(kuhn_records(20))
    page = html(tables, KuhnPoker())
    standings = page.split('<section id="standings">', 1)[1].split("</section>", 1)[0]
    assert all(f">{head}<" in standings for head in ("Utility per game", "Utility, 95% low", "Utility, 95% high"))
