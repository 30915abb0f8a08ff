"""A game record as rows: the one layout of the games and moves tables.

``GameRow``, ``SeatRow`` and ``MoveRow`` name the columns, in order, of the database's
``games``, ``seats`` and ``moves`` tables (after the tournament's id); the tables' SQL is derived from their
annotations, and the DataFrames of ``results.load`` and ``results.frames`` take their
columns from them too. ``game_rows`` lays a record out as these rows. It needs no
database, so a run has it done where the game was played (a worker process), and only
plain tuples travel back.

Kept free of pandas, like the workers that import it.
"""

from __future__ import annotations

import math
import time
from datetime import datetime, timezone
from itertools import compress, repeat
from operator import not_
from typing import NamedTuple

from arena.records import GameRecord, result_text

# SQLite stores a NaN as NULL; Python's sqlite3 binds None through its adapter lookup,
# several times slower, so rows carry NaN for a missing value (the ``| None`` columns).
NULL = float("nan")


class GameRow(NamedTuple):
    """One finished game: a row of the ``games`` table."""

    game_id: int
    """Index of the game in the tournament's schedule."""
    pairing: int
    """Which pair of bots played it."""
    first: str
    """Display name of the bot that moved first (seat 0)."""
    second: str
    """Display name of the other bot (seat 1; with more seats, the ``seats`` table has them all)."""
    opening: str
    """Moves played before the bots took over, space-separated."""
    seed: int
    """Seed the bots' randomness derived from."""
    result: str
    """``1-0``, ``0-1`` or ``1/2-1/2``; with more seats, each seat's points (``1-0-0``)."""
    score_first: float
    """Points of the first player: 1, 0.5 or 0."""
    utility_first: float
    """Final utility of the first player."""
    termination: str
    """Why the game ended: a ``Termination`` value."""
    loser: int | None
    """The seat that forfeited, else NULL."""
    message: str
    """How the game ended, in words."""
    plies: int
    """Moves played in all, the opening included."""
    moves_first: int
    """Moves the first player's bot made."""
    moves_second: int
    """Moves the second player's bot made."""
    nodes_first: int
    """Nodes the first player's bot searched in all."""
    nodes_second: int
    """Nodes the second player's bot searched in all."""
    seconds_first: float
    """Seconds the first player's bot took in all."""
    seconds_second: float
    """Seconds the second player's bot took in all."""
    finished: str
    """When the game ended: UTC, ISO 8601 with milliseconds."""


class SeatRow(NamedTuple):
    """One seat of a finished game: a row of the ``seats`` table (two or more per game)."""

    game_id: int
    """The game it belongs to."""
    seat: int
    """The seat, 0 (moved first) to n-1."""
    bot: str
    """Display name of the bot in it."""
    utility: float
    """Its final utility."""
    points: float
    """Its points: 1 shared among the seats of the best utility, else 0."""
    rank: float
    """Its place by utility, 1 for the best; tied seats share the mean of their places."""
    moves: int
    """Moves its bot made."""
    nodes: int
    """Nodes its bot searched in all."""
    seconds: float
    """Seconds its bot took in all."""


class MoveRow(NamedTuple):
    """One move of a bot: a row of the ``moves`` table."""

    game_id: int
    """The game it belongs to."""
    ply: int
    """Moves played before it, the opening included."""
    player: int
    """Who moved: 0 or 1."""
    move: str
    """The move, in the game's notation."""
    nodes: int
    """Nodes searched, as the arena counted them."""
    seconds: float
    """Wall-clock time the bot took."""
    depth: int | None
    """Depth the bot reported having completed, else NULL."""
    score: float | None
    """The bot's value of the position for itself, else NULL."""
    pv: str
    """The bot's principal variation, space-separated ("" if none)."""
    reported: int
    """1 when ``nodes`` is what the bot's own search reported (an engine), 0 when the arena counted them."""
    over_budget: int
    """1 when the reported nodes exceed the node budget, else 0."""
    cpu: float | None
    """CPU seconds of the move, measured outside the bot (see ``arena.MoveRecord.cpu``), else NULL."""
    clock: float | None
    """Seconds left on the mover's clock after the move, increment included (a time control), else NULL."""


_SQL_TYPES = {
    "int": "INTEGER NOT NULL",
    "float": "REAL NOT NULL",
    "str": "TEXT NOT NULL",
    "int | None": "INTEGER",
    "float | None": "REAL",
}


def sql_columns(row: type[NamedTuple]) -> str:
    """The column definitions of a row type, for CREATE TABLE."""
    # with postponed annotations a NamedTuple keeps each type as a ForwardRef of its text
    kinds = {name: getattr(kind, "__forward_arg__", kind) for name, kind in row.__annotations__.items()}
    return ",\n    ".join(f"{name} {_SQL_TYPES[kind]}" for name, kind in kinds.items())


#: Columns of ``results.load(...).games``.
GAME_COLUMNS = ("tournament",) + tuple(f for f in GameRow._fields if f != "finished")
#: Columns of ``results.load(...).seats``.
SEAT_COLUMNS = ("tournament",) + SeatRow._fields
#: Columns of ``results.load(...).moves``: the moving bot's name is joined in, the PV left out.
MOVE_COLUMNS = ("tournament", "game_id", "ply", "player", "bot") + tuple(
    f for f in MoveRow._fields[MoveRow._fields.index("move"):] if f != "pv"
)


class GameRows(NamedTuple):
    """One finished game as rows of the results database, without the tournament's id."""

    game: GameRow
    moves: list
    """Its moves, each a tuple laid out as ``MoveRow``."""
    seats: list = []
    """Its seats, each a tuple laid out as ``SeatRow``."""


CHANCE_SEAT = -1
"""The seat of a chance ply: the referee's draw (``arena.game.CHANCE``)."""
CHANCE_BOT = "chance"
"""The ``bot`` of a chance ply (seat -1): the referee's draw, nobody's move."""

_new_game_row = tuple.__new__  # a GameRow from a tuple, without its __new__ written in Python


def game_rows(game_id: int, pairing: int, record: GameRecord) -> GameRows:
    """A game's rows for the database, finished now (built column-wise with iterators that run in C)."""
    moves = record.moves
    if moves:
        plies, players, texts, nodes, seconds, depths, scores, pvs, reported, over, cpus, clocks = zip(*moves)
    else:
        plies = players = texts = nodes = seconds = depths = scores = pvs = reported = over = cpus = clocks = ()
    names, utilities = record.players, record.utilities
    if len(names) == 2:
        firsts = list(map(not_, players))
        # seat 1's moves: the seats themselves (1 is true, 0 false) unless chance plies (seat -1, neither seat's) are among them
        seconds_ = list(map((1).__eq__, players)) if CHANCE_SEAT in players else players
        result, score = record.result, record.score_first
        per_seat = [(sum(firsts), sum(compress(nodes, firsts)), sum(compress(seconds, firsts), 0.0)),
                    (sum(seconds_), sum(compress(nodes, seconds_)), sum(compress(seconds, seconds_), 0.0))]
        rank = 1.0 if score == 1 else 2.0 if score == 0 else 1.5
        seat_points, ranks = (score, 1.0 - score), (rank, 3.0 - rank)
    else:
        per_seat = []
        for seat in range(len(names)):
            mine = [p == seat for p in players]
            per_seat.append((sum(mine), sum(compress(nodes, mine)), sum(compress(seconds, mine), 0.0)))
        seat_points, ranks = record.points, record.ranks
        result, score = result_text(seat_points), seat_points[0]
    row = _new_game_row(GameRow, (
        game_id, pairing, names[0], names[1], " ".join(record.opening), record.seed,
        result, score, float(utilities[0]), record.termination.value,
        NULL if record.loser is None else record.loser, record.message, record.plies,
        per_seat[0][0], per_seat[1][0], per_seat[0][1], per_seat[1][1], per_seat[0][2], per_seat[1][2],
        _now_text(),
    ))  # fmt: skip
    seats = [(game_id, seat, name, float(u), p, rank, *per_seat[seat])
             for seat, (name, u, p, rank) in enumerate(zip(names, utilities, seat_points, ranks))]
    pvs = map(" ".join, pvs) if any(pvs) else repeat("")
    if any(reported):  # SQLite stores a bool as 1 or 0 anyway; ints keep the rows plain
        reported, over = map(int, reported), map(int, over)
    else:
        reported = over = repeat(0)
    rows = zip(
        repeat(game_id), plies, players, texts, nodes, seconds, _nulls(depths), _nulls(scores), pvs, reported, over,
        _nulls(cpus), _nulls(clocks),
    )
    return GameRows(row, list(rows), seats)


def game_row(record: GameRecord, game_id: int, pairing: int, tournament: str = "") -> dict:
    """The games-table row of a record as a dict of ``GAME_COLUMNS``, with None for NULL."""
    row = game_rows(game_id, pairing, record).game._asdict()
    return {"tournament": tournament, **{c: _none(row[c]) for c in GAME_COLUMNS[1:]}}


def seat_rows(record: GameRecord, game_id: int, tournament: str = "") -> list[dict]:
    """The seats-table rows of a record as dicts of ``SEAT_COLUMNS``."""
    return [{"tournament": tournament, **dict(zip(SeatRow._fields, row))} for row in game_rows(game_id, 0, record).seats]


def move_rows(record: GameRecord, game_id: int, tournament: str = "") -> list[dict]:
    """The moves-table rows of a record as dicts (``MOVE_COLUMNS`` and ``pv``), with None for NULL."""
    rows = game_rows(game_id, 0, record).moves
    return [
        {"tournament": tournament, "bot": CHANCE_BOT if row[2] < 0 else record.players[row[2]],
         **{k: _none(v) for k, v in zip(MoveRow._fields, row)}}
        for row in rows
    ]


def _none(value):
    return None if isinstance(value, float) and math.isnan(value) else value


def _nulls(values: tuple) -> tuple | list | repeat:
    """``values`` with None as NaN (stored as NULL)."""
    if None not in values:
        return values
    if values.count(None) == len(values):
        return repeat(NULL)
    return [NULL if v is None else v for v in values]


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
