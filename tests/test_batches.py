"""Games travel and are stored in batches, and no batch loses a finished game that a rerun would not replay."""

import math
import os
import sqlite3

import pytest

import arena.execution.pool as pool_module
import arena.execution.executors as executors_module
import results.writer as writer_module
from arena import Budget, get_registry, play_game
from arena.front.settings import RunSettings
from arena.front.run import run_tournament
from arena.front.tournament import Entrant, TournamentConfig, make_schedule
from results.rows import GAME_COLUMNS, game_row, game_rows, move_rows
from results.store import Store, StoreError
from results.writer import GameWriter
from tests.plugins import dying, misbehaving

REGISTRY = get_registry(entry_points=False, plugins=[misbehaving, dying])


def records(count, game="tictactoe", bots=("alphabeta:depth=2", "random")):
    g = REGISTRY.game(game)
    budgets = [Budget(nodes=50)] * 2
    return [
        play_game(g, [REGISTRY.bot(b) for b in bots], budgets=budgets, seed=seed, opening=["b2"] * (seed % 2))
        for seed in range(count)
    ]


@pytest.fixture
def store(tmp_path):
    with Store(tmp_path / "s.db") as s:
        yield s


def test_stored_rows_hold_the_values_of_results_rows(store):
    t = store.open_tournament("t", "tictactoe", {}, 1, 10, "test")
    games = records(6) + records(1, bots=("random", "illegal"))
    store.save_rows(t, [game_rows(i, i % 3, r) for i, r in enumerate(games)])
    for i, record in enumerate(games):
        row, moves = store.game(t, i)
        expected = game_row(record, i, i % 3)
        assert {c: row[c] for c in GAME_COLUMNS[1:]} == {c: expected[c] for c in GAME_COLUMNS[1:]}
        keep = ("ply", "player", "move", "nodes", "seconds", "depth", "score", "pv")
        assert [{c: m[c] for c in keep} for m in moves] == [{c: m[c] for c in keep} for m in move_rows(record, i)]
    assert any(m["depth"] is None for m in store.game(t, 6)[1]) and store.game(t, 6)[0]["loser"] == 1


def test_the_writer_commits_once_its_interval_has_passed_and_flushes_the_rest(store):
    t = store.open_tournament("t", "tictactoe", {}, 1, 10, "test")
    games = records(5)
    writer = GameWriter(store, t, interval=math.inf, max_games=3)
    writer.add(game_rows(0, 0, games[0]))
    writer.add(game_rows(1, 0, games[1]))
    assert store.finished(t) == set() and writer.stored == 0
    writer.add(game_rows(2, 0, games[2]))  # max_games reached
    assert store.finished(t) == {0, 1, 2} and writer.stored == 3
    writer.add(game_rows(3, 0, games[3]))
    writer.interval = 0  # due at once
    writer.add(game_rows(4, 0, games[4]))
    assert store.finished(t) == {0, 1, 2, 3, 4} and writer.pending == []
    writer.flush()  # nothing waits: nothing to do
    assert writer.stored == 5


def test_a_batch_that_does_not_fit_keeps_every_game_before_the_first_that_fails(store):
    t = store.open_tournament("t", "tictactoe", {}, 1, 200, "test")
    games = [game_rows(i, 0, r) for i, r in enumerate(records(200))]
    store.save_rows(t, games[:3])
    (pages,) = store.db.execute("PRAGMA page_count").fetchone()
    store.db.execute(f"PRAGMA max_page_count = {pages + 1}")
    with pytest.raises(StoreError) as info:
        store.save_rows(t, games[3:])
    stored = store.finished(t)
    failed = len(stored)
    assert stored == set(range(failed)) and 3 <= failed < 200
    assert str(info.value).startswith(f"disk full while writing game {failed} of tournament 't'")
    assert f"; {failed} of 200 games are stored; " in str(info.value)
    assert not store.db.in_transaction


def test_a_batch_held_up_by_a_lock_names_its_games(store):
    t = store.open_tournament("t", "tictactoe", {}, 1, 10, "test")
    store.lock_timeout = 0.2
    other = sqlite3.connect(store.path, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(StoreError) as info:
            store.save_rows(t, [game_rows(i, 0, r) for i, r in enumerate(records(2))])
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert "waited 0.2 s to write games 0 and 1 of tournament 't'; 0 of 10 games are stored" in str(info.value)
    assert info.value.locked


def tictactoe(**changes):
    values = dict(
        game="tictactoe",
        bots=(Entrant("random", "random"), Entrant("greedy", "greedy"), Entrant("ab", "alphabeta:depth=2")),
        budget=Budget(nodes=100),
        games_per_pairing=4,
        seed=5,
        isolate=False,
        name="t",
    )
    values.update(changes)
    return TournamentConfig(**values)


def test_ctrl_c_stores_the_games_finished_so_far(tmp_path, monkeypatch):
    # nothing is committed before the end
    monkeypatch.setattr(writer_module.GameWriter.__init__, "__defaults__", (math.inf, 10_000))
    played = []

    def play_then_interrupt(task, plugins, prepare):
        if len(played) == 5:
            raise KeyboardInterrupt
        played.append(task.index)
        return real(task, plugins, prepare)

    real = executors_module.play_prepared
    monkeypatch.setattr(executors_module, "play_prepared", play_then_interrupt)
    settings = RunSettings(tmp_path / "c.db", 1, progress=False)
    result = run_tournament(tictactoe(), settings, registry=REGISTRY)
    assert result.interrupted and result.played == 5
    with Store(tmp_path / "c.db") as s:
        assert s.finished(s.tournament("t")) == set(played) == set(range(5))
    monkeypatch.setattr(executors_module, "play_prepared", real)
    again = run_tournament(tictactoe(), settings, registry=REGISTRY)
    assert (again.already, again.played, again.complete) == (5, 7, True)


@pytest.mark.processes
def test_games_in_a_chunk_with_a_worker_killing_game_are_replayed_without_blame(tmp_path, monkeypatch):
    """Workers get chunks of 6 games; every game of the bot ``dies`` kills its worker.

    Those games fail after MAX_ATTEMPTS deaths each; the others in their chunks, played
    or not when the worker died, are replayed and stored.
    """
    monkeypatch.setattr(pool_module._Slot, "size", 6)
    bots = (Entrant("random", "random"), Entrant("greedy", "greedy"), Entrant("dies", f"dies:spare={os.getpid()}"))
    config = tictactoe(bots=bots, games_per_pairing=2)
    settings = RunSettings(tmp_path / "k.db", 2, progress=False)
    result = run_tournament(config, settings, plugins=("tests.plugins.dying",), registry=REGISTRY)
    schedule = make_schedule(config, REGISTRY).games
    fatal = {g.index for g in schedule if "dies" in g.names}
    assert {f.index for f in result.failed} == fatal
    assert all(f"died {pool_module.MAX_ATTEMPTS} times" in f.message for f in result.failed)
    with Store(tmp_path / "k.db") as s:
        assert s.finished(s.tournament("t")) == {g.index for g in schedule} - fatal
    assert result.played == len(schedule) - len(fatal)


@pytest.mark.processes
def test_two_jobs_play_many_fast_games_in_chunks_and_store_each_once(tmp_path):
    config = tictactoe(bots=(Entrant("a", "random"), Entrant("b", "random")), games_per_pairing=600)
    one = run_tournament(config, RunSettings(tmp_path / "one.db", 1, progress=False), registry=REGISTRY)
    two = run_tournament(config, RunSettings(tmp_path / "two.db", 2, progress=False), registry=REGISTRY)
    assert one.played == two.played == 600 and not two.failed

    def table(path):
        with sqlite3.connect(path) as con:
            games = con.execute("SELECT game_id, seed, result, plies FROM games ORDER BY game_id").fetchall()
            moves = con.execute("SELECT game_id, ply, move FROM moves ORDER BY game_id, ply").fetchall()
        return games, moves

    assert table(tmp_path / "one.db") == table(tmp_path / "two.db")


def test_a_chance_ply_counts_for_neither_seat_and_loads_as_chance(store):
    # a game record with the referee's draws among the moves (seat -1, no nodes): the per-seat
    # totals count only each seat's own moves, and the moves table names the draws "chance"
    import results
    from dataclasses import replace

    from arena.records import MoveRecord

    record = records(1)[0]
    draws = [MoveRecord(ply, -1, "6", 0, 0.0) for ply in range(len(record.moves))]
    mixed = tuple(m for pair in zip(draws, record.moves) for m in pair)
    mixed = tuple(m._replace(ply=k) for k, m in enumerate(mixed))
    with_chance = replace(record, moves=mixed)
    row = game_row(with_chance, 0, 0)
    plain = game_row(record, 0, 0)
    for column in ("moves_first", "moves_second", "nodes_first", "nodes_second", "seconds_first", "seconds_second"):
        assert row[column] == plain[column], column
    assert [m["bot"] for m in move_rows(with_chance, 0)][:2] == ["chance", record.players[0]]
    t = store.open_tournament("t", "tictactoe", {}, 1, 1, "test")
    store.save_rows(t, [game_rows(0, 0, with_chance)])
    moves = results.load(store.path, "t").moves
    assert (moves.loc[moves["player"] == -1, "bot"] == "chance").all() and (moves["player"] == -1).sum() == len(draws)
