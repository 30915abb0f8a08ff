"""One run at a time writes a results database; readers are never kept out."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from results.store import RUN_LOCK_SUFFIX, DatabaseBusy, RunLock
from tests.helpers import stored

pytest.importorskip("fcntl", reason="the run lock uses fcntl.flock (not on Windows)")

ARENA = [sys.executable, "-m", "arena"]
# 18 connect-four games of about 0.1-0.3 s each: a run that lasts a few seconds
LONG = ["--game", "connect4", "--bot", "iterative", "--bot", "alphabeta:depth=4", "--bot", "greedy",
        "--budget", "nodes=3000", "--games", "6", "--openings", "2", "--jobs", "1", "--no-progress"]


def wait_for_games(db, proc, count, timeout=60):
    deadline = time.monotonic() + timeout
    while stored(db) < count and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.02)
    assert proc.poll() is None and stored(db) >= count, "the first run must be mid-way"


@pytest.mark.processes
def test_a_second_run_on_a_database_being_written_is_refused_and_readers_are_not(tmp_path):
    db = tmp_path / "r.db"
    first = subprocess.Popen([*ARENA, "run", *LONG, "--db", str(db)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
    try:
        wait_for_games(db, first, 2)
        lock = json.loads((tmp_path / ("r.db" + RUN_LOCK_SUFFIX)).read_text())
        second = subprocess.run([*ARENA, "run", "--game", "tictactoe", "--bot", "random", "--bot", "greedy",
                                 "--jobs", "1", "--no-progress", "--db", str(db)], capture_output=True, text=True,
                                timeout=60)
        assert second.returncode == 2 and second.stdout == ""
        assert second.stderr == (
            f"arena: error: results database '{db}' is being written by another run (process {first.pid}, "
            f"tournament '{lock['tournament']}', since {lock['since']}); wait for it to end, or use another database\n"
        )
        assert lock["tournament"].startswith("connect4-nodes=3000-")
        report = subprocess.run([*ARENA, "report", str(db)], capture_output=True, text=True, timeout=60)
        assert report.returncode == 0 and report.stdout.startswith(f"Tournament '{lock['tournament']}'"), report.stderr
        assert "Standings" in report.stdout
        assert first.poll() is None, "the report must not wait for the run"
        out, err = first.communicate(timeout=300)
    finally:
        if first.poll() is None:
            first.kill()
    assert first.returncode == 0, err
    assert "18 of 18 games" in out
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT COUNT(*) FROM tournaments").fetchone() == (1,)  # the refused run added nothing
    assert not (tmp_path / ("r.db" + RUN_LOCK_SUFFIX)).exists(), "a run removes its lock file"


@pytest.mark.processes
def test_a_run_after_a_sigkilled_one_takes_the_lock_over(tmp_path):
    db = tmp_path / "k.db"
    args = [*ARENA, "run", *LONG, "--db", str(db)]
    first = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_for_games(db, first, 2)
    os.kill(first.pid, signal.SIGKILL)
    first.wait()
    lock_file = tmp_path / ("k.db" + RUN_LOCK_SUFFIX)
    assert json.loads(lock_file.read_text())["pid"] == first.pid  # left behind, but no longer locked
    again = subprocess.run(args, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert "18 of 18 games" in again.stdout
    assert not lock_file.exists()


def test_the_lock_in_one_process(tmp_path):
    db = tmp_path / "x.db"
    with RunLock(db) as held:
        held.note("t1")
        with pytest.raises(DatabaseBusy, match=rf"\(process {os.getpid()}, tournament 't1', since "):
            RunLock(db).acquire()
    assert not held.path.exists()
    held.path.write_text("not json")  # a stale file of any content is taken over
    with RunLock(db):
        with pytest.raises(DatabaseBusy, match=r"\(process \d+, choosing its tournament, since "):
            RunLock(db).acquire()
