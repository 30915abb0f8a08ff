"""A run's finished games on their way into the results database: rows, and batches.

``game_rows`` lays a record out as the database's rows. It has no need of the database,
so the runner has it done where the game was played (a worker process), and only the
rows, plain tuples, travel back. Committing a transaction costs more than a fast game's
moves, so ``GameWriter`` commits a run's games in batches, one transaction per
``BATCH_SECONDS`` of play; a run killed between two commits loses only games that
running it again plays again, identically (per-game seeds make them replay).

Kept free of pandas, like the workers that import it.
"""

from __future__ import annotations

import time
from datetime import datetime, timezone
from itertools import compress, repeat
from operator import not_
from typing import TYPE_CHECKING, NamedTuple

from arena.records import GameRecord

if TYPE_CHECKING:
    from results.store import Store, Tournament

#: GameWriter commits when this many seconds have passed since its last commit...
BATCH_SECONDS = 0.2
#: ...or when this many games wait.
BATCH_GAMES = 1000

# SQLite stores a NaN as NULL; Python's sqlite3 binds None through its adapter lookup,
# several times slower, so rows carry NaN for a missing value.
_NULL = float("nan")


class GameRows(NamedTuple):
    """One finished game as rows of the results database, without the tournament's id."""

    game: tuple
    """Its games row from ``game_id`` on (the columns of ``results.rows.GAME_COLUMNS``, then ``finished``)."""
    moves: list
    """Its moves rows from ``game_id`` on: game_id, ply, player, move, nodes, seconds, depth, score, pv."""

    @property
    def game_id(self) -> int:
        return self.game[0]

    @property
    def first(self) -> str:
        return self.game[2]

    @property
    def second(self) -> str:
        return self.game[3]

    @property
    def score_first(self) -> float:
        return self.game[7]


def game_rows(game_id: int, pairing: int, record: GameRecord) -> GameRows:
    """A game's rows for the database, finished now.

    The same values as ``results.rows`` (which lays them out for DataFrames), built
    column-wise with iterators that run in C.
    """
    moves = record.moves
    if moves:
        plies, players, texts, nodes, seconds, depths, scores, pvs = zip(*moves)
    else:
        plies = players = texts = nodes = seconds = depths = scores = pvs = ()
    firsts = list(map(not_, players))
    row = (
        game_id, pairing, record.players[0], record.players[1], " ".join(record.opening), record.seed,
        record.result, record.score_first, float(record.utilities[0]), record.termination.value,
        _NULL if record.loser is None else record.loser, record.message, record.plies,
        sum(firsts), len(moves) - sum(firsts), sum(compress(nodes, firsts)), sum(compress(nodes, players)),
        sum(compress(seconds, firsts), 0.0), sum(compress(seconds, players), 0.0),
        _now_text(),
    )
    pvs = map(" ".join, pvs) if any(pvs) else repeat("")
    rows = zip(repeat(game_id), plies, players, texts, nodes, seconds, _nulls(depths), _nulls(scores), pvs)
    return GameRows(row, list(rows))


def _nulls(values: tuple) -> tuple | list | repeat:
    """``values`` with None as NaN (stored as NULL)."""
    if None not in values:
        return values
    if values.count(None) == len(values):
        return repeat(_NULL)
    return [_NULL if v is None else v for v in values]


_second = [-1, ""]  # the last whole second formatted, and its text


def _now_text() -> str:
    """The time now in UTC, as ``datetime.isoformat(timespec="milliseconds")`` writes it.

    Formatting a datetime costs several microseconds; the text of the current second
    is kept, and the milliseconds appended.
    """
    now = time.time()
    second = int(now)
    if second != _second[0]:
        _second[:] = second, datetime.fromtimestamp(second, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
    return f"{_second[1]}.{int((now - second) * 1000):03d}+00:00"


class GameWriter:
    """Stores a run's finished games in batches: one transaction per ``interval`` seconds.

    ``add`` commits the waiting games, itself included, once ``interval`` seconds have
    passed since the last commit (or ``max_games`` wait): a game that took longer than
    that is written at once, and fast games share a commit. A process killed between
    two commits loses only games finished within ``interval`` of the last one, which a
    rerun plays again. ``flush`` writes whatever waits; call it before the store closes,
    on every way out (the runner does so in a ``finally``).
    """

    def __init__(
        self, store: Store, tournament: Tournament, interval: float = BATCH_SECONDS, max_games: int = BATCH_GAMES
    ):
        self.store, self.tournament = store, tournament
        self.interval, self.max_games = interval, max_games
        self.pending: list[GameRows] = []
        self.stored = 0
        """Games this writer has committed."""
        self._last = time.monotonic()

    def add(self, rows: GameRows) -> None:
        """Queue one finished game; commit the queue if it is due. StoreError if that fails."""
        self.pending.append(rows)
        if len(self.pending) >= self.max_games or time.monotonic() - self._last >= self.interval:
            self.flush()

    def flush(self) -> None:
        """Commit every queued game; StoreError if it cannot.

        Games a failing commit could not write are dropped from the queue: a rerun plays
        them again.
        """
        pending, self.pending = self.pending, []
        self._last = time.monotonic()
        if pending:
            self.store.save_rows(self.tournament, pending)
            self.stored += len(pending)
