"""A game record as flat rows: the one layout shared by the database and the DataFrames."""

from __future__ import annotations

from arena.records import GameRecord

GAME_COLUMNS = (
    "tournament", "game_id", "pairing", "first", "second", "opening", "seed", "result", "score_first",
    "utility_first", "termination", "loser", "message", "plies", "moves_first", "moves_second",
    "nodes_first", "nodes_second", "seconds_first", "seconds_second",
)
MOVE_COLUMNS = ("tournament", "game_id", "ply", "player", "bot", "move", "nodes", "seconds", "depth", "score")


def game_row(record: GameRecord, game_id: int, pairing: int, tournament: str = "") -> dict:
    """The games-table row of a record."""
    totals = [[0, 0, 0.0], [0, 0, 0.0]]  # moves, nodes, seconds per side
    for m in record.moves:
        side = totals[m.player]
        side[0] += 1
        side[1] += m.nodes
        side[2] += m.seconds
    return {
        "tournament": tournament,
        "game_id": game_id,
        "pairing": pairing,
        "first": record.players[0],
        "second": record.players[1],
        "opening": " ".join(record.opening),
        "seed": record.seed,
        "result": record.result,
        "score_first": record.score_first,
        "utility_first": float(record.utilities[0]),
        "termination": record.termination.value,
        "loser": record.loser,
        "message": record.message,
        "plies": record.plies,
        "moves_first": totals[0][0],
        "moves_second": totals[1][0],
        "nodes_first": totals[0][1],
        "nodes_second": totals[1][1],
        "seconds_first": totals[0][2],
        "seconds_second": totals[1][2],
    }


def move_rows(record: GameRecord, game_id: int, tournament: str = "") -> list[dict]:
    """The moves-table rows of a record (with the principal variation under ``pv``)."""
    return [
        {
            "tournament": tournament,
            "game_id": game_id,
            "ply": m.ply,
            "player": m.player,
            "bot": record.players[m.player],
            "move": m.move,
            "nodes": m.nodes,
            "seconds": m.seconds,
            "depth": m.depth,
            "score": m.score,
            "pv": " ".join(m.pv),
        }
        for m in record.moves
    ]
