"""SQLite storage of tournaments: a game and its moves are written in one transaction.

The database runs in WAL mode, so reports can read while a tournament writes, and a
game committed before the runner is killed is never lost. A run writes its games in
batches (see ``results.writer``).

A write never leaves part of a game behind. If the disk fills, or the file reaches the
process's size limit (``ulimit -f``), the game's transaction is rolled back and StoreError
says which game, how many are stored, and that running the same command again resumes.
If another process holds the database's write lock (a long transaction in another
connection), a write waits for it, retrying with a short backoff, for up to
``LOCK_TIMEOUT`` seconds in all (60), then raises StoreError. The environment variable
``ARENA_DB_LOCK_TIMEOUT`` (seconds, 0 or more) or ``Store(path, lock_timeout=...)`` sets
another wait. Readers never block the writer, nor it them.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import sqlite3
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from itertools import chain
from pathlib import Path
from typing import Callable

from arena.errors import ArenaError
from arena.records import GameRecord
from results.writer import GameRows, game_rows

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

SCHEMA = "botarena-results/1"

_DDL = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tournaments (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    game TEXT NOT NULL,
    config TEXT NOT NULL,
    seed INTEGER NOT NULL,
    scheduled INTEGER NOT NULL,
    version TEXT NOT NULL,
    started TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS games (
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    game_id INTEGER NOT NULL,
    pairing INTEGER NOT NULL,
    first TEXT NOT NULL,
    second TEXT NOT NULL,
    opening TEXT NOT NULL,
    seed INTEGER NOT NULL,
    result TEXT NOT NULL,
    score_first REAL NOT NULL,
    utility_first REAL NOT NULL,
    termination TEXT NOT NULL,
    loser INTEGER,
    message TEXT NOT NULL,
    plies INTEGER NOT NULL,
    moves_first INTEGER NOT NULL,
    moves_second INTEGER NOT NULL,
    nodes_first INTEGER NOT NULL,
    nodes_second INTEGER NOT NULL,
    seconds_first REAL NOT NULL,
    seconds_second REAL NOT NULL,
    finished TEXT NOT NULL,
    PRIMARY KEY (tournament_id, game_id)
);
CREATE TABLE IF NOT EXISTS moves (
    tournament_id INTEGER NOT NULL,
    game_id INTEGER NOT NULL,
    ply INTEGER NOT NULL,
    player INTEGER NOT NULL,
    move TEXT NOT NULL,
    nodes INTEGER NOT NULL,
    seconds REAL NOT NULL,
    depth INTEGER,
    score REAL,
    pv TEXT NOT NULL,
    PRIMARY KEY (tournament_id, game_id, ply)
) WITHOUT ROWID;
"""

# The moves table is clustered on its key (WITHOUT ROWID: one b-tree, not a table and an
# index); databases made before keep their rowid table, with the same columns.



class StoreError(ArenaError):
    """A results database that cannot be opened, read or written."""

    locked = False
    """True when another process held the lock for longer than the lock timeout."""


class ConfigMismatch(StoreError, ValueError):
    """A tournament name that already exists in the database with other settings."""


@dataclass(frozen=True)
class Tournament:
    """A tournament row."""

    id: int
    name: str
    game: str
    config: dict
    seed: int
    scheduled: int
    version: str
    started: str


class Store:
    """A results database, opened for reading and writing (``create=False``: an existing one).

    Every error is a StoreError with a one-line message; ``lock_timeout`` (seconds) is how
    long a write waits for another process's lock (default: see the module docstring).
    """

    def __init__(self, path: str | Path, *, create: bool = True, lock_timeout: float | None = None):
        self.path = Path(path)
        self.lock_timeout = _lock_timeout(lock_timeout)
        self._check_path(create)
        try:
            self.db = sqlite3.connect(self.path, timeout=self.lock_timeout, isolation_level=None)
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open results database {str(self.path)!r}: {exc}") from None
        try:
            self._check_or_create(create)
        except sqlite3.Error as exc:
            self.close()
            if isinstance(exc, sqlite3.OperationalError):  # locked, I/O error, cannot open
                raise self._read_error(exc, "open") from None
            raise self._not_ours(str(exc), create) from None  # not a database, or a corrupt one
        except BaseException:
            self.close()
            raise

    def _check_path(self, create: bool) -> None:
        """Refuse, before SQLite creates any file, a path that cannot hold a results database."""
        path, name = self.path, str(self.path)
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

    def _check_or_create(self, create: bool) -> None:
        tables = {r[0] for r in self.db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if tables:
            row = self.db.execute("SELECT value FROM meta WHERE key='schema'").fetchone() if "meta" in tables else None
            if row is None or row[0] != SCHEMA:
                raise self._not_ours(f"{row[0] if row else 'no botarena schema'}; expected {SCHEMA}", create)
        elif not create:
            raise self._not_ours("it is empty", create)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        if not tables:

            def create_tables():
                for statement in _DDL.split(";"):
                    if statement.strip():
                        self.db.execute(statement)
                self.db.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (SCHEMA,))

            self._write("the tables of a new results database", create_tables)

    def _not_ours(self, detail: str, create: bool) -> StoreError:
        fix = "; give a new file name or an existing results database" if create else ""
        return StoreError(f"{str(self.path)!r} is not a botarena results database ({detail}){fix}")

    def _transaction(self):
        return _Transaction(self.db)

    def _write(self, what: str, work: Callable[[], object], stored: Callable[[], str] | None = None):
        """Run ``work`` in one transaction, waiting up to lock_timeout for other processes' locks.

        Any failure rolls the transaction back and raises StoreError: ``what`` names what was
        being written, ``stored()`` says what the database holds.
        """
        deadline = time.monotonic() + self.lock_timeout
        pause = 0.01
        try:
            while True:
                remaining = max(0.0, deadline - time.monotonic())
                try:
                    self.db.execute(f"PRAGMA busy_timeout = {int(remaining * 1000)}")
                    with self._transaction():
                        return work()
                except sqlite3.Error as exc:
                    left = deadline - time.monotonic()
                    if not _is_locked(exc) or left <= 0:
                        raise self._write_error(exc, what, stored) from None
                time.sleep(min(pause, left))  # locked without waiting (SQLite skips the busy handler at times)
                pause = min(2 * pause, MAX_BACKOFF)
        finally:
            with contextlib.suppress(sqlite3.Error):  # never over the error being raised
                self.db.execute(f"PRAGMA busy_timeout = {int(self.lock_timeout * 1000)}")  # for reads

    def _write_error(self, exc: sqlite3.Error, what: str, stored: Callable[[], str] | None) -> StoreError:
        db, code, again = str(self.path), _code(exc), "run the same command again to resume"
        limit = self._size_limit() if code == _IOERR else None
        if _is_locked(exc):
            problem = f"results database {db!r} is locked by another process: waited {self.lock_timeout:g} s"
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

    def _read_error(self, exc: sqlite3.Error, verb: str) -> StoreError:
        """``verb``: open or read."""
        db = str(self.path)
        if _is_locked(exc):
            return StoreError(
                f"results database {db!r} is locked by another process: waited {self.lock_timeout:g} s to {verb} it; "
                "run the same command again once it is free"
            )
        return StoreError(f"cannot {verb} results database {db!r}: {exc}")

    def _size_limit(self) -> int | None:
        """The process's file size limit if one of the database's files has (nearly) reached it."""
        if resource is None:
            return None
        soft = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
        if soft == resource.RLIM_INFINITY:
            return None
        sizes = [os.path.getsize(p) for p in self._files() if os.path.exists(p)]
        return soft if sizes and max(sizes) + 65536 + 24 >= soft else None  # within a WAL frame of it

    def _files(self) -> list[str]:
        return [str(self.path) + suffix for suffix in ("", "-wal", "-shm", "-journal")]

    def _query(self, sql: str, params=()) -> list[tuple]:
        try:
            return self.db.execute(sql, params).fetchall()
        except sqlite3.Error as exc:
            raise self._read_error(exc, "read") from None

    def close(self) -> None:
        try:
            self.db.close()
        except sqlite3.Error:  # nothing is pending: every write is committed or rolled back
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # Tournaments

    def tournaments(self) -> list[Tournament]:
        rows = self._query("SELECT * FROM tournaments ORDER BY started, id")
        return [Tournament(r[0], r[1], r[2], json.loads(r[3]), *r[4:]) for r in rows]

    def tournament(self, name: str | None = None) -> Tournament:
        """The tournament called ``name``, or the most recently started one."""
        found = self.tournaments()
        if not found:
            raise StoreError(f"results database {str(self.path)!r} holds no tournament yet")
        if name is None:
            return found[-1]
        for t in found:
            if t.name == name:
                return t
        names = ", ".join(t.name for t in found)
        raise StoreError(f"no tournament {name!r} in {str(self.path)!r}; tournaments: {names}")

    def open_tournament(self, name: str, game: str, config: dict, seed: int, scheduled: int, version: str) -> Tournament:
        """Create the tournament, or return it if it exists with the same config; else ConfigMismatch."""
        for t in self.tournaments():
            if t.name == name:
                if t.config != config:
                    diff = [k for k in sorted(set(config) | set(t.config)) if config.get(k) != t.config.get(k)]
                    raise ConfigMismatch(
                        f"tournament {name!r} in {str(self.path)!r} was started with other settings "
                        f"({', '.join(diff)} differ); give a new name with --name, or use another database"
                    )
                return t
        started = datetime.now(timezone.utc).isoformat(timespec="seconds")
        row = (name, game, json.dumps(config, sort_keys=True), seed, scheduled, version, started)
        cur = self._write(
            f"tournament {name!r}",
            lambda: self.db.execute(
                "INSERT INTO tournaments (name, game, config, seed, scheduled, version, started) VALUES (?,?,?,?,?,?,?)",
                row,
            ),
            lambda: "no game is stored yet",
        )
        return Tournament(cur.lastrowid, name, game, config, seed, scheduled, version, started)

    # Games

    def finished(self, tournament: Tournament) -> set[int]:
        rows = self._query("SELECT game_id FROM games WHERE tournament_id=?", (tournament.id,))
        return {r[0] for r in rows}

    def scores(self, tournament: Tournament) -> list[tuple[str, str, float]]:
        """(first, second, score of first) for every stored game."""
        return self._query("SELECT first, second, score_first FROM games WHERE tournament_id=?", (tournament.id,))

    def save(self, tournament: Tournament, game_id: int, pairing: int, record: GameRecord) -> None:
        """Write one finished game and its moves in a single transaction; StoreError if it cannot."""
        self.save_rows(tournament, [game_rows(game_id, pairing, record)])

    def save_rows(self, tournament: Tournament, games: list[GameRows]) -> None:
        """Write games laid out by ``game_rows`` in one transaction; StoreError if it cannot.

        If they do not all fit (disk full, file size limit, one already stored), they are
        written one at a time, so every game before the first that fails is kept and the
        error names that game.
        """
        tid = int(tournament.id)  # in the statements: the rows leave it out

        def write():
            self.db.executemany(f"INSERT INTO games VALUES ({tid},{','.join('?' * 20)})", [g.game for g in games])
            moves = chain.from_iterable(g.moves for g in games)
            self.db.executemany(f"INSERT INTO moves VALUES ({tid},{','.join('?' * 9)})", moves)

        try:
            self._write(_games_text([g.game_id for g in games], tournament), write, lambda: self._stored(tournament))
            return
        except StoreError as exc:
            if len(games) == 1 or exc.locked:
                raise
        for one in games:
            self.save_rows(tournament, [one])

    def _stored(self, tournament: Tournament) -> str:
        try:
            (count,) = self.db.execute("SELECT COUNT(*) FROM games WHERE tournament_id=?", (tournament.id,)).fetchone()
        except sqlite3.Error:
            return "the games stored before are kept"
        return f"{count} of {tournament.scheduled} games are stored"

    def game(self, tournament: Tournament, game_id: int) -> tuple[dict, list[dict]]:
        """One stored game and its moves, as dicts keyed by column name."""
        try:
            cur = self.db.execute("SELECT * FROM games WHERE tournament_id=? AND game_id=?", (tournament.id, game_id))
            row = cur.fetchone()
            if row is None:
                count = self.db.execute("SELECT COUNT(*) FROM games WHERE tournament_id=?", (tournament.id,)).fetchone()[0]
                raise StoreError(
                    f"no game {game_id} in tournament {tournament.name!r}; it has {count} finished games "
                    f"of {tournament.scheduled} scheduled, numbered from 0"
                )
            game = dict(zip([d[0] for d in cur.description], row))
            cur = self.db.execute(
                "SELECT * FROM moves WHERE tournament_id=? AND game_id=? ORDER BY ply", (tournament.id, game_id)
            )
            names = [d[0] for d in cur.description]
            return game, [dict(zip(names, r)) for r in cur.fetchall()]
        except sqlite3.Error as exc:
            raise self._read_error(exc, "read") from None


def _games_text(ids: list[int], tournament: Tournament) -> str:
    """``game 5 of tournament 't'``, ``games 5 and 7 of ...``, ``12 games (5, 7, 8, ...) of ...``."""
    if len(ids) == 1:
        which = f"game {ids[0]}"
    elif len(ids) <= 3:
        which = f"games {', '.join(map(str, ids[:-1]))} and {ids[-1]}"
    else:
        which = f"{len(ids)} games ({', '.join(map(str, ids[:3]))}, ...)"
    return f"{which} of tournament {tournament.name!r}"


class _Transaction:
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


def _lock_timeout(value: float | None) -> float:
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
