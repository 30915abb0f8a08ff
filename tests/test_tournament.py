"""Tournaments: schedule, colours, openings, storage, resume, executors."""

import sqlite3
from collections import Counter as Tally

import pytest

import results
from arena import ArenaError, Budget, ParameterError, get_registry
from arena.front.settings import RunSettings
from arena.front.run import run_tournament
from arena.front.tournament import Entrant, TournamentConfig, make_openings, make_schedule
from results.store import ConfigMismatch

REGISTRY = get_registry(entry_points=False)
FIELD = (
    Entrant("random", "random"),
    Entrant("greedy", "greedy"),
    Entrant("minimax", "minimax:depth=2"),
    Entrant("alphabeta", "alphabeta:depth=none", Budget()),  # full depth, no node limit
    Entrant("iterative", "iterative"),
)


def tictactoe_config(**changes):
    values = dict(
        game="tictactoe",
        bots=FIELD,
        budget=Budget(nodes=300),
        games_per_pairing=4,
        opening_plies=1,
        seed=7,
        name="ttt",
    )
    values.update(changes)
    return TournamentConfig(**values)


def run(config, tmp_path, jobs=1, dask=None, db="t.db"):
    settings = RunSettings(tmp_path / db, jobs, dask, progress=False)
    return run_tournament(config, settings, registry=REGISTRY)


@pytest.mark.processes
def test_round_robin_on_tictactoe(tmp_path):
    config = tictactoe_config(games_per_pairing=8)
    result = run(config, tmp_path)
    assert result.complete and result.played == result.scheduled == 10 * 8
    games, moves = results.load(tmp_path / "t.db")
    assert len(games) == 80 and sorted(games.game_id) == list(range(80))
    # each pair meets equally often, each bot moving first in half of the games
    pairs = Tally(frozenset((f, s)) for f, s in zip(games["first"], games["second"]))
    assert len(pairs) == 10 and set(pairs.values()) == {8}
    colours = Tally(zip(games["first"], games["second"]))
    assert set(colours.values()) == {4}
    # wins + draws + losses add up, and points are conserved
    wins = Tally(games.loc[games.score_first == 1, "first"]) + Tally(games.loc[games.score_first == 0, "second"])
    losses = Tally(games.loc[games.score_first == 0, "first"]) + Tally(games.loc[games.score_first == 1, "second"])
    draws = Tally(games.loc[games.score_first == 0.5, "first"]) + Tally(games.loc[games.score_first == 0.5, "second"])
    for bot in (e.name for e in FIELD):
        assert wins[bot] + draws[bot] + losses[bot] == 32
    assert sum(wins.values()) == sum(losses.values())
    # a full-depth alpha-beta never loses tic-tac-toe; random scores below 25% against it
    assert losses["alphabeta"] == 0
    vs = games[(games["first"] == "random") & (games.second == "alphabeta")]
    vs2 = games[(games["first"] == "alphabeta") & (games.second == "random")]
    random_points = vs.score_first.sum() + (1 - vs2.score_first).sum()
    assert random_points / (len(vs) + len(vs2)) < 0.25
    # moves: node counts within budget for bots under the node budget
    limited = moves[moves.bot != "alphabeta"]
    assert (limited.nodes <= 300).all() and (limited.nodes >= 1).all()
    assert (games.termination == "normal").all()


def test_colour_swapped_games_share_their_opening_and_openings_are_legal(tmp_path):
    config = tictactoe_config(opening_plies=2, games_per_pairing=6)
    schedule = make_schedule(config, REGISTRY)
    game = REGISTRY.game("tictactoe")
    by_pair_and_round = {}
    for g in schedule.games:
        by_pair_and_round.setdefault((g.pairing, g.opening), []).append(g.names)
        state = game.play(g.opening)
        assert len(g.opening) == 2 and not game.is_terminal(state)
    for names in by_pair_and_round.values():
        assert len(names) == 2 and names[0] == names[1][::-1]
    assert len({g.opening for g in schedule.games}) == 3  # one per round, all different
    assert len({g.seed for g in schedule.games}) == len(schedule.games)


def test_openings_never_end_the_game():
    game = REGISTRY.game("tictactoe")
    for opening in make_openings(game, 50, 6, seed=3):
        state = game.play(opening)
        assert len(opening) == 6 and not game.is_terminal(state)
    with pytest.raises(ParameterError, match="cannot find 12 opening plies"):
        make_openings(game, 1, 12, seed=0)


def test_gauntlet_pairs_challengers_with_the_field_only():
    config = tictactoe_config(format="gauntlet", challengers=("iterative", "alphabeta"), games_per_pairing=2)
    schedule = make_schedule(config, REGISTRY)
    names = [e.name for e in FIELD]
    assert [(names[a], names[b]) for a, b in schedule.pairings] == [
        ("alphabeta", "random"), ("alphabeta", "greedy"), ("alphabeta", "minimax"),
        ("iterative", "random"), ("iterative", "greedy"), ("iterative", "minimax"),
    ]
    assert len(schedule.games) == 12


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"games_per_pairing": 3}, "games per pairing must be an even number of at least 2 (colours are swapped), got 3"),
        ({"games_per_pairing": 0}, "got 0"),
        ({"bots": FIELD[:1]}, "a tournament needs at least two bots, got 1"),
        ({"bots": (Entrant("a", "random"), Entrant("a", "greedy"))}, "bot name 'a' is used twice"),
        ({"bots": FIELD[:1] + (Entrant("me", "human"),)}, "is played by a person"),
        ({"format": "knockout"}, "unknown format 'knockout'; formats: round-robin, gauntlet"),
        ({"format": "gauntlet", "challengers": ("nobody",)}, "a gauntlet needs challengers among the bots"),
        ({"challengers": ("random",)}, "challengers are only for the gauntlet format"),
        ({"opening_plies": -1}, "opening plies must be 0 or more"),
    ],
)
def test_bad_tournaments_are_refused(changes, message):
    with pytest.raises(ParameterError) as info:
        make_schedule(tictactoe_config(**changes), REGISTRY)
    assert message in str(info.value)


@pytest.mark.processes
def test_rerun_resumes_and_never_stores_a_game_twice(tmp_path):
    config = tictactoe_config(games_per_pairing=2)
    first = run(config, tmp_path)
    db = sqlite3.connect(tmp_path / "t.db")
    db.execute("DELETE FROM moves WHERE game_id >= 5")
    db.execute("DELETE FROM seats WHERE game_id >= 5")
    db.execute("DELETE FROM games WHERE game_id >= 5")
    db.commit()
    db.close()
    again = run(config, tmp_path)
    assert (first.played, again.already, again.played) == (20, 5, 15)
    games, _ = results.load(tmp_path / "t.db")
    assert sorted(games.game_id) == list(range(20))
    nothing = run(config, tmp_path)
    assert nothing.played == 0 and nothing.complete


@pytest.mark.processes
def test_a_changed_config_under_the_same_name_is_refused(tmp_path):
    run(tictactoe_config(games_per_pairing=2), tmp_path)
    with pytest.raises(ConfigMismatch) as info:
        run(tictactoe_config(games_per_pairing=2, seed=8), tmp_path)
    assert "tournament 'ttt'" in str(info.value) and "(--seed differ)" in str(info.value)
    assert "--name" in str(info.value)
    other = run(tictactoe_config(games_per_pairing=2, seed=8, name="ttt-2"), tmp_path)
    assert other.complete
    assert results.load(tmp_path / "t.db", "ttt-2").games.shape[0] == 20


def _games_and_moves(path, name="ttt"):
    games, moves = results.load(path, name)
    keep = ["game_id", "first", "second", "opening", "seed", "result", "termination", "plies", "nodes_first", "nodes_second"]
    moves = moves[["game_id", "ply", "move", "nodes", "depth", "score"]]
    moves = moves.astype(object).where(moves.notna(), None)  # NaN != NaN would fail equal tables
    return games[keep].to_dict("records"), moves.to_dict("records")


@pytest.mark.processes
def test_same_games_with_one_job_two_jobs_and_a_dask_cluster(tmp_path):
    pytest.importorskip("distributed", reason="the dask extra (dask.distributed) is not installed")
    config = tictactoe_config(games_per_pairing=2, bots=FIELD[1:], budget=Budget(nodes=200))
    run(config, tmp_path, jobs=1, db="one.db")
    run(config, tmp_path, jobs=2, db="two.db")
    run(config, tmp_path, jobs=2, dask="local", db="dask.db")
    one = _games_and_moves(tmp_path / "one.db")
    assert len(one[0]) == 12
    assert _games_and_moves(tmp_path / "two.db") == one
    assert _games_and_moves(tmp_path / "dask.db") == one


@pytest.mark.processes
def test_a_running_dask_scheduler_by_address(tmp_path):
    distributed = pytest.importorskip("distributed", reason="the dask extra (dask.distributed) is not installed")
    config = tictactoe_config(games_per_pairing=2, bots=FIELD[:3], budget=Budget(nodes=100))
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        run(config, tmp_path, jobs=1, dask=cluster.scheduler_address, db="remote.db")
    run(config, tmp_path, jobs=1, db="here.db")
    assert _games_and_moves(tmp_path / "remote.db") == _games_and_moves(tmp_path / "here.db")


def test_an_unreachable_dask_scheduler_is_one_clear_error(tmp_path, monkeypatch):
    pytest.importorskip("distributed", reason="the dask extra (dask.distributed) is not installed")
    monkeypatch.setattr("arena.execution.executors.DASK_CONNECT_TIMEOUT", 1)
    with pytest.raises(ArenaError, match="cannot reach the Dask scheduler at 'tcp://127.0.0.1:9'"):
        run(tictactoe_config(games_per_pairing=2), tmp_path, dask="tcp://127.0.0.1:9")


@pytest.mark.processes
def test_a_run_checks_its_settings_and_builds_each_bot_once(tmp_path, monkeypatch):
    built = Tally()
    original = REGISTRY.bot_class

    def counting_class(name):
        cls = original(name)

        class Counted(cls):
            def __init__(self, **params):
                built[name] += 1
                super().__init__(**params)

        return Counted

    monkeypatch.setattr(REGISTRY, "bot_class", counting_class)
    config = tictactoe_config(bots=FIELD[:2], games_per_pairing=2, opening_plies=0)
    result = run(config, tmp_path)
    assert result.complete and result.played == 2
    assert built == {"random": 1, "greedy": 1}  # set-up only: games build theirs in the executor's registry
