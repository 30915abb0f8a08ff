"""SQLite plumbing for ``results.store``: a write is one transaction that never leaves
half of it behind, waits out other processes' locks, and fails with a StoreError that says
what happened, what is stored and what to do.
"""

from __future__ import annotations

import contextlib
import math
import os
import sqlite3
import time
from pathlib import Path
from typing import Callable

from arena.errors import ArenaError

try:
    import resource
except ImportError:  # not on Windows
    resource = None

#: Seconds a write (or read) waits, in all, for a lock held by another process.
LOCK_TIMEOUT = 60.0
#: The environment variable that overrides LOCK_TIMEOUT.
LOCK_TIMEOUT_ENV = "ARENA_DB_LOCK_TIMEOUT"
#: The longest pause between two attempts to write a locked database, seconds.
MAX_BACKOFF = 0.5


class StoreError(ArenaError):
    """A results database that cannot be opened, read or written."""

    locked = False
    """True when another process held the lock for longer than the lock timeout."""


def check_path(path: Path, create: bool) -> None:
    """Refuse, before SQLite creates any file, a path that cannot hold a results database."""
    name = str(path)
    if path.is_dir():
        example = str(path / "arena-results.db")
        raise StoreError(f"{name!r} is a folder, not a results database; give a file path, e.g. {example!r}")
    folder = path.parent
    if not path.exists():
        if not create:
            raise StoreError(f"results database {name!r} not found")
        if not folder.exists():
            raise StoreError(
                f"cannot create results database {name!r}: no folder {str(folder)!r}; "
                "create it first or choose another path"
            )
        if not folder.is_dir():
            raise StoreError(f"cannot create results database {name!r}: {str(folder)!r} is a file, not a folder")
        if not os.access(folder, os.W_OK | os.X_OK):
            raise StoreError(
                f"cannot create results database {name!r}: no permission to write in folder {str(folder)!r}; "
                "choose a path in a writable folder"
            )
    elif create:
        if not os.access(path, os.R_OK | os.W_OK):
            raise StoreError(
                f"results database {name!r} is read-only (no permission to write it); "
                "make it writable or choose another path"
            )
        if not os.access(folder, os.W_OK | os.X_OK):
            raise StoreError(
                f"cannot write results database {name!r}: no permission to write in its folder {str(folder)!r}, "
                "where SQLite keeps the -wal and -shm files; make it writable or choose another path"
            )


def write(
    db: sqlite3.Connection,
    path: Path,
    lock_timeout: float,
    what: str,
    work: Callable[[], object],
    stored: Callable[[], str] | None = None,
):
    """Run ``work`` in one transaction on ``db`` (the database at ``path``), waiting up to
    ``lock_timeout`` seconds for other processes' locks.

    Any failure rolls the transaction back and raises StoreError: ``what`` names what was
    being written, ``stored()`` says what the database holds.
    """
    deadline = time.monotonic() + lock_timeout
    pause = 0.01
    try:
        while True:
            remaining = max(0.0, deadline - time.monotonic())
            try:
                db.execute(f"PRAGMA busy_timeout = {int(remaining * 1000)}")
                with Transaction(db):
                    return work()
            except sqlite3.Error as exc:
                left = deadline - time.monotonic()
                if not _is_locked(exc) or left <= 0:
                    raise write_error(exc, path, lock_timeout, what, stored) from None
            time.sleep(min(pause, left))  # locked without waiting (SQLite skips the busy handler at times)
            pause = min(2 * pause, MAX_BACKOFF)
    finally:
        with contextlib.suppress(sqlite3.Error):  # never over the error being raised
            db.execute(f"PRAGMA busy_timeout = {int(lock_timeout * 1000)}")  # for reads


def write_error(
    exc: sqlite3.Error, path: Path, lock_timeout: float, what: str, stored: Callable[[], str] | None
) -> StoreError:
    """The StoreError for a failed write: the problem, what is stored, and the fix."""
    db, code, again = str(path), _code(exc), "run the same command again to resume"
    limit = size_limit(path) if code == _IOERR else None
    if _is_locked(exc):
        problem = f"results database {db!r} is locked by another process: waited {lock_timeout:g} s"
        problem += f" to write {what}"
        fix = f"{again} once it is free"
    elif code == _FULL:
        problem, fix = f"disk full while writing {what} to {db!r}", f"free some space and {again}"
    elif limit is not None:
        problem = f"file size limit ({limit:,} bytes, see ulimit -f) reached while writing {what} to {db!r}"
        fix = f"raise the limit and {again}"
    elif code == _IOERR:
        problem, fix = f"disk I/O error while writing {what} to {db!r} ({exc})", f"check the disk and {again}"
    elif code == _READONLY:
        problem = f"cannot write {what} to {db!r}: the database is read-only ({exc})"
        fix = f"make it writable and {again}"
    elif isinstance(exc, sqlite3.IntegrityError):
        problem = f"cannot write {what} to {db!r}: it is already stored (is another run of it writing?)"
        fix = again
    else:
        problem, fix = f"cannot write {what} to {db!r}: {exc}", again
    error = StoreError("; ".join(p for p in (problem, stored() if stored else None, fix) if p))
    error.locked = _is_locked(exc)
    return error


def damaged(path, exc: BaseException) -> StoreError:
    """The StoreError for a results database SQLite finds damaged: it is left as it is."""
    db = str(path)
    return StoreError(
        f"results database {db!r} is damaged ({exc}); it was left as it is: restore it from a copy, "
        f"or recover what SQLite can still read with: sqlite3 {db!r} .recover | sqlite3 recovered.db"
    )


def read_error(exc: sqlite3.Error, path: Path, lock_timeout: float, verb: str) -> StoreError:
    """The StoreError for a failed open or read (``verb``)."""
    db = str(path)
    if _is_locked(exc):
        return StoreError(
            f"results database {db!r} is locked by another process: waited {lock_timeout:g} s to {verb} it; "
            "run the same command again once it is free"
        )
    return StoreError(f"cannot {verb} results database {db!r}: {exc}")


def size_limit(path: Path) -> int | None:
    """The process's file size limit if one of the database's files has (nearly) reached it."""
    if resource is None:
        return None
    soft = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
    if soft == resource.RLIM_INFINITY:
        return None
    files = [str(path) + suffix for suffix in ("", "-wal", "-shm", "-journal")]
    sizes = [os.path.getsize(p) for p in files if os.path.exists(p)]
    return soft if sizes and max(sizes) + 65536 + 24 >= soft else None  # within a WAL frame of it


class Transaction:
    """BEGIN IMMEDIATE ... COMMIT, rolled back on any error; the rollback never hides the error."""

    def __init__(self, db: sqlite3.Connection):
        self.db = db

    def __enter__(self):
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind, exc, tb):
        if kind is None:
            try:
                self.db.execute("COMMIT")
            except BaseException:
                self._rollback()
                raise
        else:
            self._rollback()
        return False

    def _rollback(self) -> None:
        # SQLite may have rolled back already (after SQLITE_FULL, an I/O error, OR ROLLBACK):
        # a second ROLLBACK would raise "no transaction is active" over the real error.
        if self.db.in_transaction:
            try:
                self.db.execute("ROLLBACK")
            except sqlite3.Error:
                pass


# SQLite's primary result codes (the low byte of an extended code)
_BUSY, _LOCKED, _READONLY, _IOERR, _FULL = 5, 6, 8, 10, 13


def _code(exc: sqlite3.Error) -> int | None:
    code = getattr(exc, "sqlite_errorcode", None)
    return None if code is None else code & 0xFF


def _is_locked(exc: sqlite3.Error) -> bool:
    code = _code(exc)
    if code is None:
        return "database is locked" in str(exc) or "busy" in str(exc)
    return code in (_BUSY, _LOCKED)


def lock_timeout_from(value: float | None) -> float:
    """``value``, or the environment's override, or LOCK_TIMEOUT; StoreError if it is not a number of seconds."""
    where = "lock_timeout"
    if value is None:
        text = os.environ.get(LOCK_TIMEOUT_ENV, "").strip()
        if not text:
            return float(LOCK_TIMEOUT)
        where = f"environment variable {LOCK_TIMEOUT_ENV}"
        try:
            value = float(text)
        except ValueError:
            value = text
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise StoreError(f"{where} must be a number of seconds, 0 or more; got {value!r}")
    return float(value)
