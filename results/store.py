"""SQLite storage of tournaments: a game and its moves are written in one transaction.

The database runs in WAL mode, so reports can read while a tournament writes, and a
game committed before the runner is killed is never lost. A run writes its games in
batches (see ``results.writer``).

A write never leaves part of a game behind. If the disk fills, or the file reaches the
process's size limit (``ulimit -f``), the game's transaction is rolled back and StoreError
says which game, how many are stored, and that running the same command again resumes.
If another process holds the database's write lock (a long transaction in another
connection), a write waits for it, retrying with a short backoff, for up to
``results.sqlite.LOCK_TIMEOUT`` seconds in all (60), then raises StoreError. The environment variable
``ARENA_DB_LOCK_TIMEOUT`` (seconds, 0 or more) or ``Store(path, lock_timeout=...)`` sets
another wait. Readers never block the writer, nor it them. The transactions, the waiting
and the error messages are in ``results.sqlite``.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from datetime import datetime, timezone
from itertools import chain
from pathlib import Path
from typing import Callable

from arena.dice import new_key
from arena.records import GameRecord
from results.sqlite import (
    StoreError,
    Transaction,
    check_path,
    damaged,
    lock_timeout_from,
    read_error,
    write,
)
from results.rows import GameRow, GameRows, MoveRow, SeatRow, game_rows, sql_columns
from results.runlock import RUN_LOCK_SUFFIX, DatabaseBusy, RunLock  # noqa: F401 (imported from here too)

SCHEMA = "botarena-results/5"
_SEATS_TABLE = f"""CREATE TABLE IF NOT EXISTS seats (
    tournament_id INTEGER NOT NULL,
    {sql_columns(SeatRow)},
    PRIMARY KEY (tournament_id, game_id, seat)
) WITHOUT ROWID"""
#: 4 added the seats table: its rows of the games stored before, two each, derived from theirs
_SEATS = (
    _SEATS_TABLE,
    *(f"""INSERT OR IGNORE INTO seats SELECT tournament_id, game_id, {seat}, {name}, {utility}, {points},
          CASE WHEN {points} = 1 THEN 1.0 WHEN {points} = 0 THEN 2.0 ELSE 1.5 END,
          moves_{side}, nodes_{side}, seconds_{side} FROM games"""
      for seat, side, name, utility, points in ((0, "first", "first", "utility_first", "score_first"),
                                                (1, "second", "second", "-utility_first", "1.0 - score_first"))),
)
#: 5 added the clock after each move (NULL in the games stored before, and without a time control)
_CLOCK = ("ALTER TABLE moves ADD COLUMN clock REAL",)
#: 3 added the moves' CPU seconds (NULL in the games stored before)
_CPU = ("ALTER TABLE moves ADD COLUMN cpu REAL", *_SEATS, *_CLOCK)
#: Older schemas this version opens, each with the statements that bring it up to date.
_MIGRATIONS = {
    # 2 added the moves' reported and over_budget flags (engines' own node counts)
    "botarena-results/1": (
        "ALTER TABLE moves ADD COLUMN reported INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE moves ADD COLUMN over_budget INTEGER NOT NULL DEFAULT 0",
        *_CPU,
    ),
    "botarena-results/2": _CPU,
    "botarena-results/3": (*_SEATS, *_CLOCK),
    "botarena-results/4": _CLOCK,
}

_DDL = f"""
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
    {sql_columns(GameRow)},
    PRIMARY KEY (tournament_id, game_id)
);
CREATE TABLE IF NOT EXISTS moves (
    tournament_id INTEGER NOT NULL,
    {sql_columns(MoveRow)},
    PRIMARY KEY (tournament_id, game_id, ply)
) WITHOUT ROWID;
{_SEATS_TABLE};
"""

# The moves table is clustered on its key (WITHOUT ROWID: one b-tree, not a table and an
# index); databases made before keep their rowid table, with the same columns.


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
        self.lock_timeout = lock_timeout_from(lock_timeout)
        check_path(self.path, create)
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
            if "malformed" in str(exc):  # a database, damaged
                raise damaged(self.path, exc) from None
            raise self._not_ours(str(exc), create) from None  # not a database
        except BaseException:
            self.close()
            raise

    def _check_or_create(self, create: bool) -> None:
        tables = {r[0] for r in self.db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if tables:
            row = self.db.execute("SELECT value FROM meta WHERE key='schema'").fetchone() if "meta" in tables else None
            if row is not None and row[0] in _MIGRATIONS:
                self._migrate(row[0])
            elif row is None or row[0] != SCHEMA:
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

    def _migrate(self, schema: str) -> None:
        """Bring a database of an older schema up to date, in one transaction."""

        def migrate():
            (now,) = self.db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
            if now == SCHEMA:  # another process got there first
                return
            for statement in _MIGRATIONS[schema]:
                self.db.execute(statement)
            self.db.execute("UPDATE meta SET value=? WHERE key='schema'", (SCHEMA,))

        self._write(f"the update of a {schema} database to {SCHEMA}", migrate)

    def _not_ours(self, detail: str, create: bool) -> StoreError:
        fix = "; give a new file name or an existing results database" if create else ""
        return StoreError(f"{str(self.path)!r} is not a botarena results database ({detail}){fix}")

    def _transaction(self):
        return Transaction(self.db)

    def _write(self, what: str, work: Callable[[], object], stored: Callable[[], str] | None = None):
        """Run ``work`` in one transaction (see ``results.sqlite.write``)."""
        return write(self.db, self.path, self.lock_timeout, what, work, stored)

    def _read_error(self, exc: sqlite3.Error, verb: str) -> StoreError:
        return read_error(exc, self.path, self.lock_timeout, verb)

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

    def grow_tournament(self, tournament: Tournament, config: dict, scheduled: int) -> Tournament:
        """Store a tournament's grown config and schedule size; its stored games stay."""
        text = json.dumps(config, sort_keys=True)
        self._write(
            f"the grown settings of tournament {tournament.name!r}",
            lambda: self.db.execute("UPDATE tournaments SET config=?, scheduled=? WHERE id=?", (text, scheduled, tournament.id)),
            lambda: self._stored(tournament),
        )
        return Tournament(tournament.id, tournament.name, tournament.game, config, tournament.seed, scheduled,
                          tournament.version, tournament.started)

    def chance_key(self, tournament: Tournament) -> bytes:
        """The secret the tournament's dice are keyed with (``arena.dice``), made on first use and
        kept here, so that a resumed or grown run draws as the first did. It is never sent to a
        bot, and a sandboxed bot cannot read this file."""

        def key() -> bytes:
            # a table of its own, made when first needed: databases without it open as before
            self.db.execute(
                "CREATE TABLE IF NOT EXISTS secrets (tournament_id INTEGER PRIMARY KEY, chance_key BLOB NOT NULL)"
            )
            row = self.db.execute("SELECT chance_key FROM secrets WHERE tournament_id=?", (tournament.id,)).fetchone()
            if row is not None:
                return bytes(row[0])
            made = new_key()
            self.db.execute("INSERT INTO secrets VALUES (?, ?)", (tournament.id, made))
            return made

        return self._write(f"the key of tournament {tournament.name!r}'s dice", key, lambda: "no game needed it yet")

    def keyed(self) -> set[int]:
        """The tournaments whose dice have a key: those of games with chance."""
        try:
            return {r[0] for r in self.db.execute("SELECT tournament_id FROM secrets")}
        except sqlite3.OperationalError:  # no secrets table: no game with chance was played here
            return set()

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
            self.db.executemany(f"INSERT INTO games VALUES ({tid},{','.join('?' * len(GameRow._fields))})", [g.game for g in games])
            moves = chain.from_iterable(g.moves for g in games)
            self.db.executemany(f"INSERT INTO moves VALUES ({tid},{','.join('?' * len(MoveRow._fields))})", moves)
            seats = chain.from_iterable(g.seats for g in games)
            self.db.executemany(f"INSERT INTO seats VALUES ({tid},{','.join('?' * len(SeatRow._fields))})", seats)

        try:
            self._write(_games_text([g.game.game_id for g in games], tournament), write, lambda: self._stored(tournament))
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
        if not tournament.scheduled:  # a ladder: no number is set in advance
            return f"{count} games are stored"
        return f"{count} of {tournament.scheduled} games are stored"

    def game(self, tournament: Tournament, game_id: int) -> tuple[dict, list[dict]]:
        """One stored game and its moves, as dicts keyed by column name; the game's ``seats``: the
        bot in each seat."""
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
            moves = [dict(zip(names, r)) for r in cur.fetchall()]
            seated = self.db.execute(
                "SELECT bot FROM seats WHERE tournament_id=? AND game_id=? ORDER BY seat", (tournament.id, game_id)
            ).fetchall()
            game["seats"] = [bot for (bot,) in seated] or [game["first"], game["second"]]
            return game, moves
        except sqlite3.Error as exc:
            raise self._read_error(exc, "read") from None


    # Listings (read only)

    def counts(self) -> dict[int, int]:
        """Games stored, per tournament id."""
        return dict(self._query("SELECT tournament_id, COUNT(*) FROM games GROUP BY tournament_id"))

    def summaries(self, tournament: Tournament) -> list[dict]:
        """Every stored game of ``tournament`` in a few columns (game_id, first, second, result,
        termination, loser, plies; for a game of more seats, ``seats``: (bot, points) per seat), by game id."""
        columns = ("game_id", "first", "second", "result", "termination", "loser", "plies")
        rows = self._query(
            f"SELECT {', '.join(columns)} FROM games WHERE tournament_id=? ORDER BY game_id", (tournament.id,)
        )
        out = [dict(zip(columns, row)) for row in rows]
        # games of more than two seats: each seat's bot and points too, under "seats"
        tables: dict[int, list] = {}
        for game_id, bot, points in self._query(
            "SELECT game_id, bot, points FROM seats WHERE tournament_id=? AND game_id IN "
            "(SELECT game_id FROM seats WHERE tournament_id=? AND seat=2) ORDER BY game_id, seat",
            (tournament.id, tournament.id),
        ):
            tables.setdefault(game_id, []).append((bot, points))
        if tables:
            for row in out:
                if row["game_id"] in tables:
                    row["seats"] = tables[row["game_id"]]
        return out


def _games_text(ids: list[int], tournament: Tournament) -> str:
    """``game 5 of tournament 't'``, ``games 5 and 7 of ...``, ``12 games (5, 7, 8, ...) of ...``."""
    if len(ids) == 1:
        which = f"game {ids[0]}"
    elif len(ids) <= 3:
        which = f"games {', '.join(map(str, ids[:-1]))} and {ids[-1]}"
    else:
        which = f"{len(ids)} games ({', '.join(map(str, ids[:3]))}, ...)"
    return f"{which} of tournament {tournament.name!r}"
