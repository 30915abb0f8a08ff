"""SQLite storage of tournaments: each finished game is written in one transaction.

The database runs in WAL mode, so reports can read while a tournament writes, and a
game committed before the runner is killed is never lost.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from arena.errors import ArenaError
from arena.records import GameRecord
from results.rows import GAME_COLUMNS, game_row, move_rows

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
);
"""


# the moves table holds every move column but the bot's name (it follows from games)
_STORED_MOVE_COLUMNS = ("game_id", "ply", "player", "move", "nodes", "seconds", "depth", "score", "pv")


class StoreError(ArenaError):
    """A results database that cannot be opened, read or written."""


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
    """A results database, opened for reading and writing."""

    def __init__(self, path: str | Path, *, create: bool = True):
        self.path = Path(path)
        if not self.path.exists():
            if not create:
                raise StoreError(f"results database {str(self.path)!r} not found")
            if not self.path.parent.is_dir():
                raise StoreError(f"cannot create results database {str(self.path)!r}: no folder {str(self.path.parent)!r}")
        elif self.path.is_dir():
            raise StoreError(f"{str(self.path)!r} is a folder, not a results database")
        try:
            self.db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
            self._check_or_create(create)
        except sqlite3.OperationalError as exc:
            raise StoreError(f"cannot open results database {str(self.path)!r}: {exc}") from None
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{str(self.path)!r} is not a botarena results database ({exc})") from None

    def _check_or_create(self, create: bool) -> None:
        tables = {r[0] for r in self.db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if tables:
            row = self.db.execute("SELECT value FROM meta WHERE key='schema'").fetchone() if "meta" in tables else None
            if row is None or row[0] != SCHEMA:
                found = row[0] if row else "no botarena schema"
                raise StoreError(f"{str(self.path)!r} is not a botarena results database ({found}; expected {SCHEMA})")
        elif not create:
            raise StoreError(f"{str(self.path)!r} is not a botarena results database (it is empty)")
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        if not tables:
            with self._transaction():
                for statement in _DDL.split(";"):
                    if statement.strip():
                        self.db.execute(statement)
                self.db.execute("INSERT INTO meta VALUES ('schema', ?)", (SCHEMA,))

    def _transaction(self):
        return _Transaction(self.db)

    def close(self) -> None:
        self.db.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # Tournaments

    def tournaments(self) -> list[Tournament]:
        rows = self.db.execute("SELECT * FROM tournaments ORDER BY started, id").fetchall()
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
        with self._transaction():
            cur = self.db.execute(
                "INSERT INTO tournaments (name, game, config, seed, scheduled, version, started) VALUES (?,?,?,?,?,?,?)",
                (name, game, json.dumps(config, sort_keys=True), seed, scheduled, version, started),
            )
        return Tournament(cur.lastrowid, name, game, config, seed, scheduled, version, started)

    # Games

    def finished(self, tournament: Tournament) -> set[int]:
        rows = self.db.execute("SELECT game_id FROM games WHERE tournament_id=?", (tournament.id,))
        return {r[0] for r in rows}

    def save(self, tournament: Tournament, game_id: int, pairing: int, record: GameRecord) -> None:
        """Write one finished game and its moves in a single transaction."""
        row = game_row(record, game_id, pairing)
        finished = datetime.now(timezone.utc).isoformat(timespec="milliseconds")
        games = [tournament.id] + [row[c] for c in GAME_COLUMNS[1:]] + [finished]
        moves = [
            [tournament.id] + [m[c] for c in _STORED_MOVE_COLUMNS] for m in move_rows(record, game_id)
        ]
        with self._transaction():
            self.db.execute(f"INSERT INTO games VALUES ({','.join('?' * len(games))})", games)
            self.db.executemany(f"INSERT INTO moves VALUES ({','.join('?' * 10)})", moves)

    def game(self, tournament: Tournament, game_id: int) -> tuple[dict, list[dict]]:
        """One stored game and its moves, as dicts keyed by column name."""
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


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT, rolled back on any error."""

    def __init__(self, db: sqlite3.Connection):
        self.db = db

    def __enter__(self):
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind, exc, tb):
        if kind is None:
            self.db.execute("COMMIT")
        else:
            self.db.execute("ROLLBACK")
        return False
