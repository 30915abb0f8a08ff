"""Games of more than two seats end to end: the referee with n bots, records per seat, tables
of the field with balanced seatings, storage, the reports, and the refusals."""

from __future__ import annotations

import json
import math
from collections import Counter
from itertools import combinations

import pytest

import results
from arena import Budget, play_game
from arena.checks import forfeit_utilities
from arena.errors import ParameterError
from arena.front.cli import main
from arena.front.run import run_tournament
from arena.front.settings import RunSettings
from arena.front.tournament import Entrant, TournamentConfig
from arena.plugins import get_registry
from arena.records import GameRecord, Termination, points, result_text, seat_points, seat_ranks
from arena.seating import balance, seating_cycle
from bots.random_bot import RandomBot
from games.nim import Nim
from games.rolit import Rolit
from tests.plugins import misbehaving

REGISTRY = get_registry(entry_points=False, plugins=[misbehaving])


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# ---- records -----------------------------------------------------------------------------------

def test_points_ranks_and_result_per_seat():
    assert seat_points((1.0, 0.0, 0.0)) == (1.0, 0.0, 0.0)
    assert seat_points((0.5, 0.0, 0.5)) == (0.5, 0.0, 0.5)
    assert seat_ranks((0.2, 0.5, 0.2, 0.1)) == (2.5, 1.0, 2.5, 4.0)
    assert seat_ranks((1, -1)) == (1.0, 2.0) and seat_ranks((0, 0)) == (1.5, 1.5)
    assert result_text((1.0, 0.0, 0.0)) == "1-0-0" and result_text((0.5, 0.0, 0.5)) == "1/2-0-1/2"
    assert result_text(seat_points((3, 3, 3))) == "1/3-1/3-1/3"
    assert points("1/3-1/3-1/3") == pytest.approx(1 / 3) and points("0-1-0") == 0.0 and points("1-0-0-0") == 1.0
    two = GameRecord("nim", ("a", "b"), ("", ""), 0, (), (), (1.0, -1.0), Termination.NORMAL)
    assert (two.result, two.score_first, two.points, two.ranks, two.seats) == ("1-0", 1.0, (1.0, 0.0), (1.0, 2.0), ("a", "b"))
    three = GameRecord("nim", ("a", "b", "c"), ("",) * 3, 0, (), (), (0.0, 0.5, 0.5), Termination.NORMAL)
    assert (three.result, three.winner, three.score_first, three.ranks) == ("0-1/2-1/2", None, 0.0, (3.0, 1.5, 1.5))


# ---- the referee -------------------------------------------------------------------------------

def test_the_referee_plays_one_bot_per_seat_and_records_every_seat():
    game = Rolit(players=3)
    record = play_game(game, [RandomBot(), RandomBot(), RandomBot()], names=("a", "b", "c"), seed=3)
    assert record.players == ("a", "b", "c") and len(record.utilities) == 3
    assert math.isclose(sum(record.utilities), 1.0) and record.termination is Termination.NORMAL
    assert {m.player for m in record.moves} == {0, 1, 2}
    assert [m.player for m in record.moves[:6]] == [0, 1, 2, 0, 1, 2]  # turn order is cyclic


def test_the_referee_wants_one_bot_per_seat_in_one_line():
    game = Nim(players=3)
    with pytest.raises(ParameterError, match=r"^play_game: bots must be 3 bots, one per seat of nim, the first to move first; got 2$"):
        play_game(game, [RandomBot(), RandomBot()])
    with pytest.raises(ParameterError, match=r"^play_game: names must be 3 strings, got \('a', 'b'\)$"):
        play_game(game, [RandomBot()] * 3, names=("a", "b"))
    with pytest.raises(ParameterError, match=r"^play_game: budgets must be 3 Budgets, one per bot; got 2$"):
        play_game(game, [RandomBot()] * 3, budgets=(Budget(), Budget()))


@pytest.mark.parametrize("seat", [0, 1, 2])
def test_a_bot_that_forfeits_loses_with_the_lowest_utility_and_the_others_share_the_rest(seat):
    game = Rolit(players=3)
    bots = [RandomBot(), RandomBot(), RandomBot()]
    bots[seat] = misbehaving.IllegalBot()
    record = play_game(game, bots, names=("a", "b", "c"), seed=1)
    assert record.termination is Termination.ILLEGAL_MOVE and record.loser == seat
    assert record.utilities == forfeit_utilities(game, seat, 3)
    assert record.utilities[seat] == 0.0 and sum(record.utilities) == pytest.approx(1.0)  # rolit's total
    assert record.points[seat] == 0.0 and record.ranks[seat] == 3.0
    two = forfeit_utilities(Nim(), 1, 2)
    assert two == (1, -1)  # two seats, zero-sum: the negation, as before


# ---- tournaments -------------------------------------------------------------------------------

def config(game, bots, games=1, **more) -> TournamentConfig:
    return TournamentConfig(game=game, bots=tuple(Entrant(n, s) for n, s in bots), budget=Budget(nodes=200),
                            games_per_pairing=games, opening_plies=0, **more)


@pytest.mark.processes
@pytest.mark.parametrize("isolate", [False, True], ids=["in-process", "isolated"])
def test_a_full_table_sits_every_bot_in_every_seat_and_after_every_other(tmp_path, isolate):
    bots = [("r1", "random"), ("g1", "greedy"), ("r2", "random"), ("g2", "greedy")]
    result = run_tournament(config("rolit", bots, isolate=isolate), RunSettings(tmp_path / "t.db", 2, progress=False),
                            registry=REGISTRY)
    assert result.played == len(seating_cycle(4)) == 12  # the least balanced schedule of 4 seats
    tables = results.load(tmp_path / "t.db")
    seated = [tuple(g.bot) for _, g in tables.seats.groupby("game_id")]
    seats, pairs = balance(seated)
    assert set(seats.values()) == {3} and len(seats) == 16  # every bot in every seat 3 times
    assert set(pairs.values()) == {4} and len(pairs) == 12  # every ordered pair adjacent 4 times
    assert tables.players == 4 and len(tables.seats) == 48
    assert (tables.seats.groupby("game_id")["points"].sum() == 1).all()


@pytest.mark.processes
def test_more_bots_than_seats_meet_at_every_table(tmp_path):
    bots = [(f"b{k}", "random") for k in range(5)]
    result = run_tournament(config("nim:players=3", bots), RunSettings(tmp_path / "t.db", 2, progress=False),
                            registry=REGISTRY)
    assert result.played == 10 * 6  # C(5, 3) tables, each its 6 seatings
    seats = results.load(tmp_path / "t.db").seats
    games = [tuple(g.bot) for _, g in seats.groupby("game_id")]
    met = Counter(frozenset(p) for g in games for p in combinations(g, 2))
    assert set(met.values()) == {3 * 6}  # every pair at C(3, 1) = 3 tables of 6 games
    sat = Counter((bot, seat) for g in games for seat, bot in enumerate(g))
    assert set(sat.values()) == {6 * 2}  # every bot in every seat equally often (6 tables, 2 each)


@pytest.mark.processes
def test_the_games_asked_for_are_rounded_up_to_whole_seating_cycles(tmp_path):
    bots = [("a", "random"), ("b", "random"), ("c", "random")]
    result = run_tournament(config("nim:players=3", bots, games=7), RunSettings(tmp_path / "t.db", 1, progress=False),
                            registry=REGISTRY)
    assert result.played == 12  # two cycles of 6
    about = results.load(tmp_path / "t.db").about
    assert "3 seats a table, 12 games a table: every bot in every seat 4 times" in about.settings()


@pytest.mark.processes
def test_a_gauntlet_seats_each_challenger_with_every_set_of_others(tmp_path):
    bots = [("c", "greedy"), ("a", "random"), ("b", "random"), ("d", "random")]
    cfg = config("nim:players=3", bots, format="gauntlet", challengers=("c",))
    result = run_tournament(cfg, RunSettings(tmp_path / "t.db", 1, progress=False), registry=REGISTRY)
    seats = results.load(tmp_path / "t.db").seats
    games = [frozenset(g.bot) for _, g in seats.groupby("game_id")]
    assert result.played == 3 * 6 and all("c" in g for g in games) and len(set(games)) == 3


@pytest.mark.processes
@pytest.mark.parametrize("fmt, extra", [("swiss", ["--rounds", "3"]), ("race", []), ("sprt", None)])
def test_formats_that_pair_two_bots_refuse_a_game_of_more_seats_in_one_line(capsys, tmp_path, fmt, extra):
    db = str(tmp_path / "t.db")
    if extra is None:
        code, _, err = run(capsys, "sprt", "random", "greedy", "--game", "rolit", "--db", db, "--no-progress")
    else:
        code, _, err = run(capsys, "run", "--game", "rolit", "--format", fmt, *[f"--bot={b}" for b in
                           ("random", "greedy", "r2=random", "g2=greedy")], *extra, "--db", db, "--no-progress")
    assert code == 2 and err.count("\n") == 1, err
    assert "has 4 players" in err and "round-robin or gauntlet" in err, err


@pytest.mark.processes
def test_too_few_bots_and_two_player_bots_are_refused_in_one_line(capsys, tmp_path):
    db = str(tmp_path / "t.db")
    code, _, err = run(capsys, "run", "--game", "rolit", "--bot", "random", "--bot", "greedy", "--db", db, "--no-progress")
    assert code == 2 and err.count("\n") == 1 and "needs at least 4 bots, got 2" in err, err
    code, _, err = run(capsys, "run", "--game", "rolit:players=3", "--bot", "random", "--bot", "greedy",
                       "--bot", "alphabeta", "--db", db, "--no-progress")
    assert code == 2 and err.count("\n") == 1, err
    assert "bot 'alphabeta' cannot play 'rolit'" in err and "3 players" in err and "use " in err and "maxn" in err, err


@pytest.mark.processes
def test_the_reports_show_points_ranks_seats_and_who_finished_ahead(capsys, tmp_path):
    db = str(tmp_path / "t.db")
    code, out, err = run(capsys, "run", "--game", "nim:players=3", "--bot", "random", "--bot", "greedy",
                         "--bot", "r2=random", "--games", "6", "--jobs", "1", "--no-progress", "--db", db)
    assert code == 0, err
    for heading in ("Standings: Plackett-Luce Elo", "By seat", "Versus", "Endings"):
        assert heading in out
    code, out, _ = run(capsys, "report", db, "--as", "json")
    data = json.loads(out)
    tables = results.load(db)
    seats = tables.seats
    standings = {r["bot"]: r for r in data["standings"]}
    for bot, rows in seats.groupby("bot"):
        assert standings[bot]["points"] == pytest.approx(rows.points.sum())
        assert standings[bot]["mean_rank"] == pytest.approx(rows["rank"].mean())
    versus = {r["bot"]: r for r in data["versus"]}
    assert versus["random"]["greedy"] + versus["greedy"]["random"] == pytest.approx(1.0)
    by_seat = {r["bot"]: r for r in data["by_seat"]}
    assert by_seat["all"]["seat_1"] == pytest.approx(seats[seats.seat == 0].points.mean())
    code, out, _ = run(capsys, "report", db, "--as", "json", "--anchor", "r2=1000")
    anchored = {r["bot"]: r for r in json.loads(out)["standings"]}
    assert code == 0 and anchored["r2"]["elo"] == 1000 and anchored["r2"]["elo_low"] == 1000
    assert anchored["greedy"]["elo"] - 1000 == pytest.approx(standings["greedy"]["elo"] - standings["r2"]["elo"])
    code, _, err = run(capsys, "report", db, "--anchor", "nobody=0")
    assert code == 2 and err.count("\n") == 1 and "no such bot" in err
    code, out, _ = run(capsys, "list", db, "--games")
    assert code == 0 and "seats" in out.splitlines()[1] and "random, greedy, r2" in out
    code, out, _ = run(capsys, "show", db, "0")
    assert code == 0 and out.splitlines()[0].count(" vs ") == 2


@pytest.mark.processes
def test_an_interrupted_run_of_tables_resumes_with_its_leaderboard(tmp_path):
    bots = [("a", "random"), ("b", "greedy"), ("c", "random")]
    settings = RunSettings(tmp_path / "t.db", 1, progress=False)
    cfg = config("nim:players=3", bots, games=6)
    first = run_tournament(cfg, settings, registry=REGISTRY)
    grown = run_tournament(config("nim:players=3", bots, games=12, name=first.tournament.name), settings,
                           registry=REGISTRY)
    assert (first.played, grown.already, grown.played) == (6, 6, 6)
    assert len(results.load(tmp_path / "t.db").seats) == 36
