"""The race format run end to end: deterministic across runs and job counts, resumable after
an interruption, and every drop told as the run goes (tests/plugins/graded.py: strength rises with p)."""

import re
import sqlite3

import pytest

import results
from arena import get_registry
from arena.budget import Budget
from arena.formats.race import RaceWatcher
from arena.front.run import run_tournament
from arena.front.settings import RunSettings
from arena.front.tournament import Entrant, TournamentConfig
from arena.formats.race import Race, race_table
from results.store import Store
from tests.plugins import graded

PLUGINS = ("tests.plugins.graded",)
REGISTRY = get_registry(entry_points=False, plugins=[graded])
# a clear winner, a runner-up that lasts a few rounds, and bots that go at different rounds
BOTS = tuple(Entrant(f"g{k:02d}", f"graded:p={p}") for k, p in enumerate((1.0, 0.8, 0.6, 0.4, 0.2, 0.1, 0.0)))
COLUMNS = ["game_id", "first", "second", "result", "plies"]


def _race(db, jobs=1, watch=None):
    config = TournamentConfig(game="connect4", bots=BOTS, budget=Budget(nodes=300), opening_plies=2, seed=1,
                              isolate=False, format="race", race=Race(0.95, 300))
    result = run_tournament(config, RunSettings(db, jobs, progress=False), plugins=PLUGINS, registry=REGISTRY,
                            watch=watch)
    with Store(db) as store:
        stored = store.tournament(result.tournament.name).config
    games = results.load(db, result.tournament.name).games
    return result, games[COLUMNS].sort_values("game_id").reset_index(drop=True), race_table(games, stored)


@pytest.fixture(scope="module")
def whole_race(tmp_path_factory):
    """The race played once, whole, in this process: what the interrupted and killed runs must come back to."""
    return _race(tmp_path_factory.mktemp("race") / "whole.db")


def _outcome(table):
    """Who won, and who was dropped when and why."""
    dropped = table[table.status == "dropped"]
    return (list(table.index[table.status == "winner"]),
            sorted(zip(dropped.index, dropped.after_round, dropped.race_games, dropped.score)))


@pytest.mark.processes
def test_the_same_race_twice_and_on_two_jobs_plays_the_same_games_and_drops(tmp_path):
    _, games, table = _race(tmp_path / "a.db")
    winner, drops = _outcome(table)
    assert winner == ["g00"] and len(drops) == len(BOTS) - 1
    assert len({d[1] for d in drops}) >= 2, drops  # drops over several rounds: the pairings depend on them
    for db, jobs in (("b.db", 1), ("c.db", 2)):
        _, again, table_again = _race(tmp_path / db, jobs)
        assert again.equals(games), jobs
        assert _outcome(table_again) == (winner, drops), jobs


class _Interrupt(RaceWatcher):
    """Ctrl-C after ``STOP`` games have come in."""

    STOP = 0
    seen = 0

    def add(self, game):
        steps = super().add(game)
        self.seen += 1
        if self.seen >= self.STOP:
            raise KeyboardInterrupt
        return steps


def test_a_race_interrupted_mid_round_resumes_to_the_same_games_drops_and_winner(tmp_path, whole_race):
    _, whole, table = whole_race
    # Ctrl-C in the middle of round 4 (games 36-47: six pairings a round until the first drops)
    _Interrupt.STOP = 41
    stopped, part, _ = _race(tmp_path / "r.db", watch=_Interrupt)
    assert stopped.interrupted and len(part) == 41 < len(whole)
    assert part.equals(whole.iloc[:41])
    resumed, games, table_again = _race(tmp_path / "r.db")
    assert resumed.already == 41 and resumed.played == len(whole) - 41
    assert games.equals(whole) and _outcome(table_again) == _outcome(table)


@pytest.mark.processes
def test_a_race_killed_with_holes_in_its_stored_round_resumes_alike(tmp_path, whole_race):
    _, whole, table = whole_race
    _race(tmp_path / "k.db", jobs=2)
    # killed between commits with two jobs: round 4 (games 36-47) stored with gaps, the rest lost
    lost = [37, 40, 41, 44, *range(46, len(whole))]
    with sqlite3.connect(tmp_path / "k.db") as conn:
        for table_name in ("moves", "seats", "games"):
            conn.executemany(f"DELETE FROM {table_name} WHERE game_id = ?", [(i,) for i in lost])
    resumed, games, table_again = _race(tmp_path / "k.db", jobs=2)
    assert resumed.played == len(lost)
    assert games.equals(whole) and _outcome(table_again) == _outcome(table)


def test_every_drop_is_printed_during_the_run_the_last_rounds_too(tmp_path, capsys):
    _, games, table = _race(tmp_path / "p.db")
    told = re.findall(r"arena: after round (\d+): (\w+) dropped", capsys.readouterr().err)
    dropped = table[table.status == "dropped"]
    last = dropped.after_round.max()
    assert sorted((b, int(r)) for r, b in told) == sorted((b, int(r)) for b, r in dropped.after_round.items())
    assert any(int(r) == last for r, _ in told)  # the round after which the race ended
