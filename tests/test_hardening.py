"""The referee survives hostile and broken bots, dead workers and killed runs."""

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from dataclasses import replace

import pytest

import results
from arena import Budget, Termination, get_registry, play_game
from arena.front.settings import RunSettings
from arena.execution.isolation import RemoteBot
from arena.front.run import run_tournament
from arena.front.tournament import Entrant, TournamentConfig, make_schedule
from arena.execution.worker import play_scheduled
from results.report import standings
from tests.plugins import misbehaving

PLUGINS = ("tests.plugins.misbehaving",)
REGISTRY = get_registry(entry_points=False, plugins=[misbehaving])

# bot spec -> (termination, words the record's message must hold)
FAULTS = {
    "raises": (Termination.CRASH, ["'raises' crashed at ply", "RuntimeError: boom"]),
    "illegal": (Termination.ILLEGAL_MOVE, ["illegal move -12345 by 'illegal' in tictactoe", "; legal: "]),
    "none": (Termination.ILLEGAL_MOVE, ["illegal move None by 'none'"]),
    "float": (Termination.ILLEGAL_MOVE, [".0 by 'float'"]),
    "badstart": (Termination.CRASH, ["'badstart' failed to start a game: ValueError: no tables today"]),
    "badinit": (Termination.CRASH, ["'badinit' failed to start a game: RuntimeError: cannot build me"]),
    "slowstart": (Termination.TIMEOUT, ["'slowstart' failed to start a game: took longer than 1.5s to start a game"]),
    "slow:seconds=5": (Termination.TIMEOUT, ["timed out at ply", "took longer than 1.5s to move; its process was killed"]),
    # a busy loop under a node budget meets its CPU ceiling (arena.execution.ceiling) before the watchdog
    "hang": (Termination.CPU_CEILING, ["'hang' went over its CPU ceiling at ply", "its process was killed"]),
    "sleeper": (Termination.TIMEOUT, ["'sleeper' timed out at ply"]),
    "cblock": (Termination.TIMEOUT, ["'cblock' timed out at ply"]),
    "exit": (Termination.CRASH, ["'exit' crashed at ply", "its process exited with code 3"]),
    "segfault": (Termination.CRASH, ["'segfault' crashed at ply", "its process was killed by SIGSEGV"]),
    "hog": (Termination.MEMORY, ["'hog' ran out of memory at ply", "over its limit of 256 MiB"]),
    "chatter": (Termination.OUTPUT, ["'chatter' wrote too much at ply", "more than its limit of 65,536 bytes"]),
    "slow-on-time": (Termination.TIMEOUT, ["'slow-on-time' timed out at ply", "took longer than 0.15s to move"]),
}


def gauntlet(**changes) -> TournamentConfig:
    challengers = [Entrant(spec, spec) for spec in FAULTS if spec not in ("slow-on-time", "hang")]
    # the busy loop's ceiling at 10 nodes is about 0.21 s of CPU (the game's 0.2 s slack and one
    # move's allowance), which it reaches before the 1.5 s watchdog while it gets a seventh of a
    # CPU: the tolerance that keeps a loaded machine from ending it by the watchdog instead
    challengers += [
        Entrant("hang", "hang", Budget(nodes=10)),
        Entrant("slow-on-time", "slow:seconds=0.5", Budget(time=0.05)),
        Entrant("vandal", "vandal"),
        Entrant("alphabeta", "alphabeta:depth=2"),
    ]
    values = dict(
        game="tictactoe",
        bots=(Entrant("random", "random"), Entrant("greedy", "greedy"), *challengers),
        budget=Budget(nodes=200),
        games_per_pairing=2,
        format="gauntlet",
        challengers=tuple(e.name for e in challengers),
        seed=11,
        watchdog=1.5,
        memory_limit=256,
        output_limit=64,
        name="faults",
    )
    values.update(changes)
    return TournamentConfig(**values)


@pytest.mark.processes
@pytest.mark.parametrize("executor", ["local", pytest.param("dask", marks=pytest.mark.slow(
    reason="72 games on a Dask cluster of four workers, a fresh bot process each, a quarter waiting out the watchdog"))])
def test_every_fault_loses_only_its_own_game(tmp_path, executor):
    if executor == "dask":
        pytest.importorskip("distributed", reason="the dask extra (dask.distributed) is not installed")
    config = gauntlet()
    # four jobs: most of its games wait out a watchdog, and four waits overlap where two did
    run = RunSettings(tmp_path / "f.db", 4, "local" if executor == "dask" else None, progress=False)
    result = run_tournament(config, run, plugins=PLUGINS, registry=REGISTRY)
    assert result.complete and not result.failed
    games, moves = results.load(tmp_path / "f.db")
    assert len(games) == len(FAULTS) * 4 + 8
    schedule = {g.index: g for g in make_schedule(config, REGISTRY).games}
    for row in games.itertuples():
        faulty = row.first if row.first in FAULTS else row.second if row.second in FAULTS else None
        if faulty is None:
            assert row.termination == "normal", row.message
            played = moves[moves.game_id == row.game_id]
            game = REGISTRY.game("tictactoe")
            end = game.play(row.opening.split() + list(played.move))
            assert game.is_terminal(end) and game.utility(end, 0) == row.utility_first
            if "vandal" in (row.first, row.second):
                continue
            # games without a fault are exactly as an unsupervised run plays them
            task = replace(schedule[row.game_id], isolate=False)
            _, clean = play_scheduled(task, PLUGINS)
            assert list(played.move) == [m.move for m in clean.moves], row.first + " v " + row.second
            assert row.result == clean.result
            continue
        termination, words = FAULTS[faulty]
        side = 0 if row.first == faulty else 1
        assert (row.termination, row.loser) == (termination.value, side), (faulty, row.message)
        assert row.result == ("0-1" if side == 0 else "1-0")
        for w in words:
            assert w in row.message, (faulty, row.message)


@pytest.mark.processes
def test_a_bot_cannot_change_the_referees_game_or_state():
    game = REGISTRY.game("connect4")
    before = dict(vars(game))
    bots = [RemoteBot("vandal", PLUGINS), RemoteBot("random", PLUGINS)]
    try:
        record = play_game(game, bots, budgets=[Budget(nodes=50)] * 2, seed=4)
    finally:
        for bot in bots:
            bot.release()
    assert record.termination is Termination.NORMAL
    assert vars(game) == before
    end = REGISTRY.game("connect4").play([m.move for m in record.moves])
    assert REGISTRY.game("connect4").is_terminal(end)
    assert record.utilities[0] == game.utility(end, 0)


def test_without_isolation_a_bot_shares_the_referees_process():
    # the documented trade-off of --no-isolation: only trusted bots
    game = REGISTRY.game("connect4")
    record = play_game(game, [REGISTRY.bot("vandal"), REGISTRY.bot("random")], seed=4)
    assert vars(game) != vars(REGISTRY.game("connect4"))
    assert record.termination is not None


@pytest.mark.processes
@pytest.mark.parametrize("executor", ["local", "dask"])
def test_a_dead_worker_is_replaced_and_its_game_replayed(tmp_path, executor):
    if executor == "dask":
        pytest.importorskip("distributed", reason="the dask extra (dask.distributed) is not installed")
    marker = tmp_path / "killed"
    config = TournamentConfig(
        game="tictactoe",
        bots=(Entrant("random", "random"), Entrant("greedy", "greedy"), Entrant("killer", f"workerkiller:marker={marker}")),
        budget=Budget(nodes=100),
        games_per_pairing=2,
        seed=5,
        name="deaths",
    )
    run = RunSettings(tmp_path / "d.db", 2, "local" if executor == "dask" else None, progress=False)
    result = run_tournament(config, run, plugins=PLUGINS, registry=REGISTRY)
    assert marker.exists(), "the killer bot must have killed a worker"
    assert result.complete and not result.failed
    games, _ = results.load(tmp_path / "d.db")
    assert sorted(games.game_id) == list(range(6))
    assert (games.termination == "normal").all()


def _stored_ids(db):
    try:
        with sqlite3.connect(db) as con:
            return [r[0] for r in con.execute("SELECT game_id FROM games")]
    except sqlite3.OperationalError:
        return []


@pytest.mark.processes
@pytest.mark.slow(reason="24 games of connect four played whole, then again under five SIGKILLs and a resume, "
                  "a fresh interpreter each: fewer games leave no moment to kill a run in")
def test_sigkill_at_five_random_moments_then_resume_gives_the_uninterrupted_result(tmp_path):
    base = [
        sys.executable, "-m", "arena", "run", "--game", "connect4", "--bot", "iterative", "--bot", "alphabeta:depth=3",
        "--bot", "greedy", "--budget", "nodes=1500", "--games", "8", "--openings", "2", "--jobs", "2", "--no-progress",
    ]
    clean = tmp_path / "clean.db"
    subprocess.run([*base, "--db", str(clean)], check=True, capture_output=True, timeout=600)
    killed = tmp_path / "killed.db"
    rng = random.Random(2026)
    for attempt in range(5):
        # kill at a random moment after this run has stored at least one more game
        before = len(_stored_ids(killed))
        proc = subprocess.Popen([*base, "--db", str(killed)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 120
        while len(_stored_ids(killed)) <= before and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(rng.uniform(0.0, 0.4))
        assert proc.poll() is None, f"run {attempt + 1} ended before it could be killed"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    assert 5 <= len(_stored_ids(killed)) < 24, "the kills must leave a partly played tournament"
    subprocess.run([*base, "--db", str(killed)], check=True, capture_output=True, timeout=600)
    ids = _stored_ids(killed)
    assert sorted(ids) == list(range(24))
    with sqlite3.connect(killed) as con:
        partial = con.execute(
            "SELECT COUNT(*) FROM games g WHERE moves_first + moves_second != "
            "(SELECT COUNT(*) FROM moves m WHERE m.game_id = g.game_id AND m.tournament_id = g.tournament_id)"
        ).fetchone()[0]
        assert partial == 0
    a, b = results.load(clean), results.load(killed)
    columns = ["games", "wins", "draws", "losses", "score", "elo", "elo_low", "elo_high", "nodes_per_move", "depth"]
    assert standings(*a)[columns].equals(standings(*b)[columns])
    keep = ["game_id", "first", "second", "opening", "result", "plies", "nodes_first", "nodes_second"]
    assert a.games[keep].equals(b.games.sort_values("game_id").reset_index(drop=True)[keep])
