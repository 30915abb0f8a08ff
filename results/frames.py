"""Game records as pandas DataFrames, one row per game or per move."""

from __future__ import annotations

from typing import Iterable

import pandas as pd

from arena.records import GameRecord

GAME_COLUMNS = [
    "game_id", "game", "first", "second", "seed", "opening", "plies", "result",
    "utility_first", "termination", "loser", "message",
]
MOVE_COLUMNS = ["game_id", "ply", "player", "bot", "move", "nodes", "seconds", "depth", "score"]


def games_frame(records: Iterable[GameRecord]) -> pd.DataFrame:
    """One row per game; ``game_id`` is the record's position in ``records``."""
    rows = [
        {
            "game_id": i,
            "game": r.game,
            "first": r.players[0],
            "second": r.players[1],
            "seed": r.seed,
            "opening": " ".join(r.opening),
            "plies": r.plies,
            "result": r.result,
            "utility_first": r.utilities[0],
            "termination": r.termination.value,
            "loser": r.loser,
            "message": r.message,
        }
        for i, r in enumerate(records)
    ]
    frame = pd.DataFrame(rows, columns=GAME_COLUMNS)
    return frame.astype({"loser": "Int64"})


def moves_frame(records: Iterable[GameRecord]) -> pd.DataFrame:
    """One row per move a bot made; ``bot`` is the mover's display name."""
    rows = [
        {
            "game_id": i,
            "ply": m.ply,
            "player": m.player,
            "bot": r.players[m.player],
            "move": m.move,
            "nodes": m.nodes,
            "seconds": m.seconds,
            "depth": m.depth,
            "score": m.score,
        }
        for i, r in enumerate(records)
        for m in r.moves
    ]
    frame = pd.DataFrame(rows, columns=MOVE_COLUMNS)
    return frame.astype({"depth": "Int64", "score": "float64"})
