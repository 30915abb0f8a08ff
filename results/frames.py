"""Game records held in memory as the same DataFrames ``results.load`` gives."""

from __future__ import annotations

from typing import Iterable

import pandas as pd

from arena.records import GameRecord
from results.about import About
from results.rows import GAME_COLUMNS, MOVE_COLUMNS, game_row, move_rows
from results.tables import Tables, typed_games, typed_moves


def frames(records: Iterable[GameRecord], tournament: str = "") -> Tables:
    """Games and moves of ``records``; ``game_id`` is the position in ``records``, and
    ``pairing`` numbers each pair of players in order of first appearance; ``about`` says
    what the records tell (game, players, budgets, how many)."""
    records = list(records)
    pairings: dict[frozenset, int] = {}
    games, moves = [], []
    for i, record in enumerate(records):
        pairing = pairings.setdefault(frozenset(record.players), len(pairings))
        games.append(game_row(record, i, pairing, tournament))
        moves.extend(move_rows(record, i, tournament))
    return Tables(
        typed_games(pd.DataFrame(games, columns=list(GAME_COLUMNS))),
        typed_moves(pd.DataFrame(moves, columns=list(MOVE_COLUMNS))),
        About.from_records(records, tournament),
    )
