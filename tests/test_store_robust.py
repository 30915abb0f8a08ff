"""The results database stays consistent when the disk fills or another process holds the lock.

Real failures, not mocks: a file-size limit (``ulimit -f``) and a full tmpfs for the disk,
SQLite's own ``max_page_count`` for SQLITE_FULL in-process, and a second connection's
``BEGIN EXCLUSIVE`` for the lock.
"""

import os
import re
import resource
import shutil
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import results
import results.sqlite as sqlite_module
from arena import Budget, get_registry, play_game
from arena.front.settings import RunSettings
from arena.front.run import run_tournament
from arena.front.tournament import Entrant, TournamentConfig
from results.store import Store, StoreError

ARENA = [sys.executable, "-m", "arena", "run"]
REGISTRY = get_registry(entry_points=False)

# 4 bots x 6 pairings x 20 games = 120 quick tic-tac-toe games
TICTACTOE = [
    "--game", "tictactoe", "--bot", "random", "--bot", "greedy", "--bot", "alphabeta:depth=2",
    "--bot", "minimax:depth=1", "--games", "20", "--no-progress", "--name", "default",
]
TICTACTOE_GAMES = 120
# 18 connect-four games of about 0.1-0.3 s each: long enough to lock the database mid-run
CONNECT4 = [
    "--game", "connect4", "--bot", "iterative", "--bot", "alphabeta:depth=4", "--bot", "greedy",
    "--budget", "nodes=3000", "--games", "6", "--openings", "2", "--jobs", "1", "--no-progress", "--name", "default",
]
CONNECT4_GAMES = 18


def stored(db) -> list[int]:
    """The stored game ids (a separate connection, as a report would open)."""
    con = sqlite3.connect(db)
    try:
        return [r[0] for r in con.execute("SELECT game_id FROM games ORDER BY game_id")]
    except sqlite3.OperationalError:  # not created yet
        return []
    finally:
        con.close()


def assert_consistent(db) -> list[int]:
    """integrity_check passes and every stored game has all its moves; returns the game ids."""
    con = sqlite3.connect(db)
    try:
        assert con.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        rows = con.execute(
            "SELECT g.game_id, g.moves_first + g.moves_second, COUNT(m.ply) FROM games g "
            "LEFT JOIN moves m USING (tournament_id, game_id) GROUP BY g.tournament_id, g.game_id"
        ).fetchall()
        orphans = con.execute(
            "SELECT COUNT(*) FROM moves m LEFT JOIN games g USING (tournament_id, game_id) WHERE g.game_id IS NULL"
        ).fetchone()[0]
    finally:
        con.close()
    assert [(gid, n) for gid, n, found in rows if n != found] == [], "a game is stored without all its moves"
    assert orphans == 0, "moves are stored without their game"
    return sorted(gid for gid, _, _ in rows)


def one_error_line(stderr: str) -> str:
    assert "Traceback" not in stderr, stderr
    lines = stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("arena: error: "), stderr
    return lines[0]


def rerun_completes(args, db, total):
    again = subprocess.run(args, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert assert_consistent(db) == list(range(total))  # every game exactly once


# Disk full


@pytest.mark.processes
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_file_size_limit_stops_the_run_with_a_clear_line_and_a_sound_database(tmp_path, jobs):
    """A real EFBIG: the child's file-size limit is capped (CPython ignores SIGXFSZ).

    In WAL mode SQLite appends each commit's pages to the -wal file and copies them into
    the database only at a checkpoint (every 1000 pages, and when the last connection
    closes), so it is the -wal file that reaches the cap, at some COMMIT: the write fails
    with EFBIG, SQLite reports SQLITE_IOERR_WRITE, and the failed commit's frames have no
    commit mark, so they are ignored. The games of a failed batch are then written one at
    a time, so the error names the first game that does not fit. On close the committed
    frames are checkpointed into the database file (about 60 kB, below the cap).
    With two jobs the worker pool must shut down too (else communicate() would hang on
    the workers' inherited stderr).
    """
    db = tmp_path / "full.db"
    args = [*ARENA, *TICTACTOE, "--jobs", jobs, "--db", str(db)]
    # the new database takes ~41 kB of WAL and each commit ~12 kB more (a batch of games or
    # one game): the first commits fit, and the run's ~5 (0.2 s of play each) do not
    cap = 70_000

    def limit_file_size():
        resource.setrlimit(resource.RLIMIT_FSIZE, (cap, cap))

    marker = f"ARENA_TEST_RUN_{os.getpid()}_{jobs}"
    env = {**os.environ, marker: "1"}
    proc = subprocess.run(args, capture_output=True, text=True, timeout=300, preexec_fn=limit_file_size, env=env)
    assert proc.returncode == 2, proc.stderr
    assert processes_left(marker) == [], "the run's worker (or bot) processes must end with it"
    line = one_error_line(proc.stderr)
    ids = assert_consistent(db)
    assert 0 < len(ids) < TICTACTOE_GAMES
    assert ids == list(range(len(ids))) if jobs == "1" else len(set(ids)) == len(ids)
    assert "file size limit (70,000 bytes, see ulimit -f) reached while writing game " in line
    assert f"of tournament 'default' to '{db}'; {len(ids)} of {TICTACTOE_GAMES} games are stored; " in line
    assert line.endswith("raise the limit and run the same command again to resume")
    rerun_completes(args, db, TICTACTOE_GAMES)


def processes_left(marker, wait=5.0) -> list[str]:
    """Processes still alive whose environment holds ``marker`` (Linux /proc; [] elsewhere)."""
    deadline = time.monotonic() + wait
    while True:
        found = []
        for environ in Path("/proc").glob("[0-9]*/environ"):
            try:
                if marker.encode() in environ.read_bytes():
                    found.append(environ.parent.name)
            except OSError:  # gone meanwhile, or not ours to read
                pass
        if not found or time.monotonic() > deadline:
            return found
        time.sleep(0.1)


def _can_mount_tmpfs() -> bool:
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        return False
    probe = subprocess.run(
        ["unshare", "--mount", "sh", "-c", "d=$(mktemp -d) && mount -t tmpfs -o size=64k tmpfs $d && umount $d"],
        capture_output=True,
    )
    return probe.returncode == 0


@pytest.mark.processes
@pytest.mark.skipif(not _can_mount_tmpfs(), reason="needs root and unshare to mount a small private tmpfs")
def test_a_full_disk_for_real_stops_the_run_with_a_clear_line(tmp_path):
    """ENOSPC on a 112 kB tmpfs in a private mount namespace: SQLite reports SQLITE_FULL.

    The -shm file takes 32 kB of it and the new database ~45 kB: the first commits fit.

    Here the checkpoint at close cannot grow the database file either, so the games stay
    in the -wal file: both files are copied out of the namespace and checked together.
    """
    disk, kept = tmp_path / "disk", tmp_path / "kept"
    disk.mkdir()
    kept.mkdir()
    db = disk / "x.db"
    run = " ".join([*ARENA, *TICTACTOE, "--jobs", "1", "--db", str(db)])
    script = f"mount -t tmpfs -o size=112k tmpfs {disk} && {{ {run}; echo $? > {kept}/rc; cp {disk}/x.db* {kept}/; }}"
    proc = subprocess.run(["unshare", "--mount", "sh", "-c", script], capture_output=True, text=True, timeout=300)
    assert (kept / "rc").read_text().strip() == "2", proc.stderr
    line = one_error_line(proc.stderr)
    ids = assert_consistent(kept / "x.db")
    assert ids == list(range(len(ids))) and 0 < len(ids) < TICTACTOE_GAMES
    assert line == (
        f"arena: error: disk full while writing game {len(ids)} of tournament 'default' to '{db}'; "
        f"{len(ids)} of {TICTACTOE_GAMES} games are stored; free some space and run the same command again to resume"
    )
    rerun_completes([*ARENA, *TICTACTOE, "--jobs", "1", "--db", str(kept / "x.db")], kept / "x.db", TICTACTOE_GAMES)


def records(count, game="tictactoe"):
    g = REGISTRY.game(game)
    return [
        play_game(g, [REGISTRY.bot("random"), REGISTRY.bot("random")], budgets=[Budget()] * 2, seed=seed)
        for seed in range(count)
    ]


@pytest.fixture
def store(tmp_path):
    with Store(tmp_path / "s.db") as s:
        yield s


def test_sqlite_full_rolls_the_game_back_and_the_store_goes_on(store):
    """SQLITE_FULL from SQLite itself: max_page_count caps the database at its current size."""
    t = store.open_tournament("t", "tictactoe", {"seed": 1}, 1, 200, "test")
    games = records(200)
    for i in range(3):
        store.save(t, i, 0, games[i])
    (pages,) = store.db.execute("PRAGMA page_count").fetchone()
    store.db.execute(f"PRAGMA max_page_count = {pages}")
    with pytest.raises(StoreError) as info:
        for i in range(3, 200):
            store.save(t, i, 0, games[i])
    failed = i
    assert str(info.value) == (
        f"disk full while writing game {failed} of tournament 't' to '{store.path}'; "
        f"{failed} of 200 games are stored; free some space and run the same command again to resume"
    )
    assert not store.db.in_transaction
    assert store.finished(t) == set(range(failed))
    store.db.execute(f"PRAGMA max_page_count = {10 * pages}")  # space freed: the same game now fits
    store.save(t, failed, 0, games[failed])
    assert assert_consistent(store.path) == list(range(failed + 1))


def test_a_rollback_sqlite_already_did_does_not_hide_the_error(store):
    """INSERT OR ROLLBACK ends the transaction inside SQLite, as SQLITE_FULL or an I/O error may:
    the error that caused it surfaces, not "cannot rollback - no transaction is active"."""
    with pytest.raises(sqlite3.IntegrityError, match="UNIQUE constraint failed: meta.key"):
        with store._transaction():
            store.db.execute("INSERT INTO meta VALUES ('note', 'lost')")
            store.db.execute("INSERT OR ROLLBACK INTO meta VALUES ('schema', 'x')")
    assert not store.db.in_transaction
    with pytest.raises(KeyboardInterrupt):  # a Ctrl-C mid-write rolls back the whole game
        with store._transaction():
            store.db.execute("INSERT INTO meta VALUES ('note', 'lost')")
            raise KeyboardInterrupt
    assert store.db.execute("SELECT COUNT(*) FROM meta WHERE key='note'").fetchone() == (0,)


def test_a_game_saved_twice_is_a_clear_error_and_changes_nothing(store):
    t = store.open_tournament("t", "tictactoe", {"seed": 1}, 1, 4, "test")
    game = records(1)[0]
    store.save(t, 0, 0, game)
    with pytest.raises(StoreError) as info:
        store.save(t, 0, 0, game)
    assert str(info.value) == (
        f"cannot write game 0 of tournament 't' to '{store.path}': it is already stored "
        "(is another run of it writing?); 1 of 4 games are stored; "
        "run the same command again to resume"
    )
    assert assert_consistent(store.path) == [0]


# Locked by another process


def locker(db):
    """Another process's connection, as a script or a DB browser would hold it."""
    return sqlite3.connect(db, timeout=30, isolation_level=None, check_same_thread=False)


@pytest.mark.parametrize("lock", ["BEGIN EXCLUSIVE", "BEGIN; INSERT INTO meta VALUES ('note', 'x')"])
def test_a_lock_held_past_the_timeout_is_one_clear_error(store, lock):
    t = store.open_tournament("t", "tictactoe", {"seed": 1}, 1, 10, "test")
    games = records(2)
    store.save(t, 0, 0, games[0])
    store.lock_timeout = 0.5
    other = locker(store.path)
    other.executescript(lock)
    started = time.monotonic()
    with pytest.raises(StoreError) as info:
        store.save(t, 1, 0, games[1])
    waited = time.monotonic() - started
    other.execute("ROLLBACK")
    assert 0.45 <= waited < 5
    assert str(info.value) == (
        f"results database '{store.path}' is locked by another process: waited 0.5 s to write game 1 of "
        "tournament 't'; 1 of 10 games are stored; run the same command again to resume once it is free"
    )
    assert not store.db.in_transaction
    store.save(t, 1, 0, games[1])  # the lock is gone: the same store writes again
    assert assert_consistent(store.path) == [0, 1]


def test_a_lock_released_within_the_timeout_only_delays_the_write(store):
    t = store.open_tournament("t", "tictactoe", {"seed": 1}, 1, 10, "test")
    store.lock_timeout = 10
    other = locker(store.path)
    other.execute("BEGIN EXCLUSIVE")
    threading.Timer(0.5, other.execute, ["ROLLBACK"]).start()
    started = time.monotonic()
    store.save(t, 0, 0, records(1)[0])
    assert 0.4 <= time.monotonic() - started < 5
    assert assert_consistent(store.path) == [0]


def test_the_lock_timeout_comes_from_the_argument_the_environment_or_the_module(tmp_path, monkeypatch):
    db = tmp_path / "t.db"
    monkeypatch.delenv("ARENA_DB_LOCK_TIMEOUT", raising=False)
    with Store(db) as s:
        assert s.lock_timeout == 60
    monkeypatch.setattr(sqlite_module, "LOCK_TIMEOUT", 0.25)
    with Store(db) as s:
        assert s.lock_timeout == 0.25
    monkeypatch.setenv("ARENA_DB_LOCK_TIMEOUT", "2.5")
    with Store(db) as s:
        assert s.lock_timeout == 2.5
    with Store(db, lock_timeout=0) as s:
        assert s.lock_timeout == 0
    monkeypatch.setenv("ARENA_DB_LOCK_TIMEOUT", "soon")
    with pytest.raises(StoreError, match=r"^environment variable ARENA_DB_LOCK_TIMEOUT must be a number of "
                                         r"seconds, 0 or more; got 'soon'$"):
        Store(db)
    with pytest.raises(StoreError, match=r"^lock_timeout must be a number of seconds, 0 or more; got -1$"):
        Store(db, lock_timeout=-1)


def lock_mid_run(db, args, env, hold):
    """Start a run, take BEGIN EXCLUSIVE once it has stored two games, hold it ``hold`` seconds
    (None: until the run ends). Returns the process and the games stored when the lock was taken."""
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    deadline = time.monotonic() + 120
    while len(stored(db)) < 2 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.01)
    other = locker(db)
    other.execute("BEGIN EXCLUSIVE")
    at_lock = len(stored(db))
    assert proc.poll() is None and 2 <= at_lock < CONNECT4_GAMES, "the lock must be taken mid-run"
    try:
        if hold is None:
            proc.wait(timeout=120)
        else:
            time.sleep(hold)
            assert len(stored(db)) == at_lock, "no game is written while the lock is held"
            assert proc.poll() is None
    finally:
        other.execute("ROLLBACK")
        other.close()
    return proc, at_lock


@pytest.mark.processes
def test_a_run_waits_for_a_lock_released_within_the_window(tmp_path):
    db = tmp_path / "l.db"
    args = [*ARENA, *CONNECT4, "--db", str(db)]
    proc, _ = lock_mid_run(db, args, {**os.environ, "ARENA_DB_LOCK_TIMEOUT": "30"}, hold=1.5)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    assert f"{CONNECT4_GAMES} games in '{db}'" in out
    assert assert_consistent(db) == list(range(CONNECT4_GAMES))


@pytest.mark.processes
def test_a_run_stops_cleanly_when_the_lock_is_held_past_the_window(tmp_path):
    db = tmp_path / "l.db"
    args = [*ARENA, *CONNECT4, "--db", str(db)]
    proc, at_lock = lock_mid_run(db, args, {**os.environ, "ARENA_DB_LOCK_TIMEOUT": "1"}, hold=None)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 2
    line = one_error_line(err)
    assert assert_consistent(db) == list(range(at_lock))
    # games finished within 0.2 s of the last commit share the next one: it names them all
    which = rf"(game {at_lock}|games {at_lock}(, \d+)* and \d+|\d+ games \({at_lock}, \d+, \d+, \.\.\.\))"
    assert re.fullmatch(
        rf"arena: error: results database '{re.escape(str(db))}' is locked by another process: waited 1 s to "
        rf"write {which} of tournament 'default'; {at_lock} of {CONNECT4_GAMES} games are stored; "
        r"run the same command again to resume once it is free",
        line,
    ), line
    rerun_completes(args, db, CONNECT4_GAMES)


# Readers


@pytest.mark.processes
def test_a_report_reads_while_a_tournament_writes(tmp_path):
    db = tmp_path / "r.db"
    proc = subprocess.Popen([*ARENA, *CONNECT4, "--db", str(db)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while not stored(db) and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.01)
    seen = []
    while proc.poll() is None:
        games, moves = results.load(db)  # never "database is locked", never a partial game
        assert sorted(games.game_id) == list(range(len(games)))
        per_game = moves.groupby("game_id").size()
        assert all(per_game.get(g.game_id, 0) == g.moves_first + g.moves_second for g in games.itertuples())
        seen.append(len(games))
        time.sleep(0.05)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert seen == sorted(seen) and any(0 < n < CONNECT4_GAMES for n in seen), seen
    assert len(results.load(db).games) == CONNECT4_GAMES


@pytest.mark.processes
def test_an_open_read_transaction_does_not_block_the_writer(tmp_path, monkeypatch):
    monkeypatch.setattr(sqlite_module, "LOCK_TIMEOUT", 2)  # a blocked writer would fail fast
    db = tmp_path / "w.db"
    bots = (Entrant("random", "random"), Entrant("greedy", "greedy"))
    config = TournamentConfig(game="tictactoe", bots=bots, games_per_pairing=10, name="ttt")
    settings = RunSettings(db, 1, progress=False)
    config_first = TournamentConfig(game="tictactoe", bots=bots, games_per_pairing=2, name="first")
    run_tournament(config_first, settings, registry=REGISTRY)
    reader = sqlite3.connect(db, isolation_level=None)
    reader.execute("BEGIN")
    assert reader.execute("SELECT COUNT(*) FROM games").fetchone() == (2,)  # holds this snapshot
    result = run_tournament(config, settings, registry=REGISTRY)
    assert result.complete and result.played == 10
    assert reader.execute("SELECT COUNT(*) FROM games").fetchone() == (2,)  # its snapshot is stable
    reader.execute("COMMIT")
    assert reader.execute("SELECT COUNT(*) FROM games").fetchone() == (12,)
    reader.close()
    assert_consistent(db)
