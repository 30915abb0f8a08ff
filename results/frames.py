"""Game records held in memory as the same DataFrames ``results.load`` gives."""

from __future__ import annotations

from typing import Iterable

import pandas as pd

from arena.records import GameRecord
from results.about import About
from results.rows import GAME_COLUMNS, MOVE_COLUMNS, SEAT_COLUMNS, game_row, move_rows, seat_rows
from results.tables import Tables, typed_games, typed_moves, typed_seats


def frames(records: Iterable[GameRecord], tournament: str = "") -> Tables:
    """Games and moves of ``records``; ``game_id`` is the position in ``records``, and
    ``pairing`` numbers each pair of players in order of first appearance; ``about`` says
    what the records tell (game, players, budgets, how many)."""
    records = list(records)
    for i, record in enumerate(records):
        if not isinstance(record, GameRecord):
            raise TypeError(f"results.frames: records[{i}] is not an arena GameRecord: {type(record).__name__}")
    pairings: dict[frozenset, int] = {}
    games, moves, seats = [], [], []
    for i, record in enumerate(records):
        pairing = pairings.setdefault(frozenset(record.players), len(pairings))
        games.append(game_row(record, i, pairing, tournament))
        moves.extend(move_rows(record, i, tournament))
        seats.extend(seat_rows(record, i, tournament))
    return Tables(
        typed_games(pd.DataFrame(games, columns=list(GAME_COLUMNS))),
        typed_moves(pd.DataFrame(moves, columns=list(MOVE_COLUMNS))),
        About.from_records(records, tournament),
        typed_seats(pd.DataFrame(seats, columns=list(SEAT_COLUMNS))),
    )


#: Columns of ``search_nodes``.
NODE_COLUMNS = (
    "search", "index", "parent", "path", "ply", "player", "kind", "alpha", "beta", "value",
    "root_value", "bound", "cut", "pruned", "repeat",
)


def search_nodes(recording) -> pd.DataFrame:
    """One row per recorded node of an ``arena.searchtree.Recording``: ``search`` numbers the
    root searches from 0, ``index`` and ``parent`` the nodes within one; ``path`` and ``pruned``
    are the moves as the game writes them, space-separated; ``alpha``, ``beta`` and ``value``
    are for the player to move, ``root_value`` for the root player; ``bound`` is exact, lower
    or upper; ``cut`` the children searched before a cut-off (<NA> without one)."""
    fmt = recording.game.format_move
    rows = [
        (
            number, n.index, n.parent, " ".join(map(fmt, n.path)), n.ply, n.mover, n.kind, n.alpha, n.beta,
            n.value, n.root_value, n.bound, n.cut, " ".join(map(fmt, n.pruned)), n.repeat,
        )
        for number, tree in enumerate(recording.trees)
        for n in tree.nodes
    ]
    frame = pd.DataFrame(rows, columns=list(NODE_COLUMNS))
    for column in ("parent", "cut"):
        frame[column] = frame[column].astype("Int64")
    return frame.astype({"value": float, "root_value": float, "alpha": float, "beta": float})
