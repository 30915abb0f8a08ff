"""The run lock in one process: what its file says, who is refused and how, a stale file taken
over, a file removed under a run that waits, and release (tests/test_run_lock.py: across runs)."""

import json
import os
import re

import pytest

from results.runlock import RUN_LOCK_SUFFIX, DatabaseBusy, RunLock
from results.sqlite import StoreError

fcntl = pytest.importorskip("fcntl", reason="the run lock uses fcntl.flock (not on Windows)")


@pytest.fixture(autouse=True)
def bounded(monkeypatch):
    """A lock that tries again and again fails the test instead of hanging it."""
    flock, calls = fcntl.flock, []

    def counted(fd, op):
        calls.append(fd)
        if len(calls) > 50:
            raise AssertionError("the lock is tried again and again")
        return flock(fd, op)

    monkeypatch.setattr(fcntl, "flock", counted)


def holder(db):
    return json.loads(open(str(db) + RUN_LOCK_SUFFIX).read())


def test_the_lock_file_names_the_process_then_its_tournament_and_goes_with_the_run(tmp_path):
    db = tmp_path / "r.db"
    with RunLock(db) as lock:
        assert lock.path == tmp_path / ("r.db" + RUN_LOCK_SUFFIX) and lock.fd is not None
        first = holder(db)
        assert first["pid"] == os.getpid() and first["tournament"] is None
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", first["since"])
        lock.note("a-much-longer-tournament-name")
        lock.note("t")  # the file is rewritten, not written over
        assert holder(db) == {**first, "tournament": "t"}
    assert lock.fd is None and not lock.path.exists()
    lock.release()  # twice: nothing more to do
    lock.note("t")
    assert not lock.path.exists()


def test_a_second_run_is_refused_with_who_holds_the_database(tmp_path):
    db = tmp_path / "r.db"
    first = RunLock(db).acquire()
    try:
        with pytest.raises(DatabaseBusy) as busy:
            RunLock(db).acquire()
        since = holder(db)["since"]
        assert str(busy.value) == (
            f"results database '{db}' is being written by another run (process {os.getpid()}, choosing its "
            f"tournament, since {since}); wait for it to end, or use another database")
        first.note("t1")
        with pytest.raises(DatabaseBusy, match=re.escape(f"(process {os.getpid()}, tournament 't1', since {since})")):
            RunLock(db).acquire()
        # a lock file that says nothing readable: the message points to it
        os.ftruncate(first.fd, 0)
        os.pwrite(first.fd, b"{not json", 0)
        with pytest.raises(DatabaseBusy, match=re.escape(f"another run (see '{first.path}')")):
            RunLock(db).acquire()
        os.pwrite(first.fd, b'{"pid": 1}', 0)
        os.ftruncate(first.fd, 10)
        with pytest.raises(DatabaseBusy, match=re.escape(f"another run (see '{first.path}')")):
            RunLock(db).acquire()
    finally:
        first.release()
    assert isinstance(DatabaseBusy("x"), StoreError)


def test_a_stale_lock_file_is_taken_over(tmp_path):
    db = tmp_path / "r.db"
    (tmp_path / ("r.db" + RUN_LOCK_SUFFIX)).write_text("x" * 500)  # a run killed with SIGKILL left it
    with RunLock(db):
        assert holder(db)["pid"] == os.getpid()


def test_a_lock_file_removed_between_open_and_lock_is_opened_again(tmp_path, monkeypatch):
    db = tmp_path / "r.db"
    path = str(db) + RUN_LOCK_SUFFIX
    flock, calls = fcntl.flock, []

    def released_meanwhile(fd, op):
        calls.append(fd)
        if len(calls) == 1:
            os.unlink(path)  # the run before let go: its file is gone, ours is a stale handle
        elif len(calls) > 5:
            raise AssertionError("the lock is tried again and again")
        return flock(fd, op)

    monkeypatch.setattr(fcntl, "flock", released_meanwhile)
    with RunLock(db) as lock:
        assert len(calls) == 2 and os.fstat(lock.fd).st_ino == os.stat(path).st_ino
        assert holder(db)["pid"] == os.getpid()


def test_a_lock_file_that_cannot_be_made_is_one_clear_error(tmp_path):
    with pytest.raises(StoreError, match=r"^cannot create the lock file '.*missing/r.db-run.lock': No such file"):
        RunLock(tmp_path / "missing" / "r.db").acquire()


def test_a_lock_not_taken_notes_and_releases_nothing(tmp_path):
    lock = RunLock(tmp_path / "r.db")
    lock.note("t")
    lock.release()
    assert lock.fd is None and not lock.path.exists()


def test_the_lock_file_is_readable_by_all_and_writable_by_its_owner(tmp_path):
    old = os.umask(0)
    try:
        with RunLock(tmp_path / "r.db") as lock:
            assert os.stat(lock.path).st_mode & 0o777 == 0o644
    finally:
        os.umask(old)


def test_only_the_first_4096_bytes_of_a_lock_file_are_read(tmp_path):
    db = tmp_path / "r.db"
    first = RunLock(db).acquire()
    try:
        text = b'{"pid": 1, "tournament": null, "since": "x"' + b" " * 4096
        text = text[:4096] + b"}"  # valid JSON only with its 4097th byte
        os.pwrite(first.fd, text, 0)
        with pytest.raises(DatabaseBusy, match=re.escape(f"another run (see '{first.path}')")):
            RunLock(db).acquire()
        os.ftruncate(first.fd, 0)
        os.pwrite(first.fd, text[:4095] + b"}", 0)  # the same in 4096 bytes: read
        with pytest.raises(DatabaseBusy, match=re.escape("another run (process 1, choosing its tournament, since x)")):
            RunLock(db).acquire()
    finally:
        first.release()
