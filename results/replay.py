"""Stored games replayed for the HTML report: the board at every ply, drawn by the game.

A game is replayed from its opening and stored moves with ``game.parse_move`` and
``game.apply``. Each board is the game's ``svg`` (or, for a game without one, its text
``render``). Boards one ply apart differ in a few pieces, so a game's boards are stored
as a table of distinct fragments (the SVG cut after each tag, or the text cut into lines)
and each board as the list of its fragments' numbers; the whole is gzipped and base64'd.
The page decompresses a game when it is opened (``DecompressionStream``).
"""

from __future__ import annotations

import base64
import gzip
import json
import math
import numbers
import re
from typing import Iterable, Sequence

from arena.game import Game
from arena.opening import split_text
from arena.params import parse_spec

_TAG_END = re.compile(r"(?<=>)")


def _fragments(picture: str, svg: bool) -> list[str]:
    return _TAG_END.split(picture) if svg else picture.splitlines(keepends=True)


def _number(value):
    """A plain int or float for JSON (numpy's too); None for a missing one (None, NaN, pandas' NA)."""
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real) and not math.isnan(value):
        return float(value)
    return None


def replay(game: Game, row: dict, moves: Iterable[dict], seats: Sequence[str] | None = None) -> dict:
    """The replay of one stored game: players, result, its moves and the board at every ply.

    ``row`` is the game's row (first, second, opening, result, termination, message, ...),
    ``moves`` its move rows in ply order (move, ply, player, nodes, seconds, depth, score).
    ``seats``: the bots in seat order, for a game of more than two seats; the replay then
    holds them (``seats``) and the game's name of every seat (``names``), not only the first two.
    Boards are ``boards[k]``: the position after ``k`` plies, as fragment numbers into
    ``parts``. If a move cannot be replayed, the boards stop before it and ``error`` says why.
    """
    opening = split_text(row["opening"])  # "[fen=...] e7e5": a position of an openings file, then moves
    listed = [
        {"ply": i, "player": None, "move": text} for i, text in enumerate(opening.moves)
    ] + [
        {"ply": int(m["ply"]), "player": int(m["player"]), "move": m["move"], "nodes": _number(m["nodes"]),
         "depth": _number(m["depth"]), "score": _number(m["score"]), "seconds": _number(m["seconds"])}
        for m in moves
    ]
    parts: dict[str, int] = {}
    boards: list[list[int]] = []
    error, svg = None, True

    def draw(state) -> None:
        text = game.svg(state) if svg else game.render(state)
        boards.append([parts.setdefault(f, len(parts)) for f in _fragments(text, svg)])

    try:
        if opening.params:  # the game as this opening's position parameters make it
            _, values = parse_spec(opening.game_spec(game.spec))
            game = type(game)(**type(game).parse_params(values))
        state = game.initial_state()
        svg = game.svg(state) is not None
        draw(state)
        for entry in listed:
            state = game.apply(state, game.parse_move_in(state, entry["move"]))
            draw(state)
    except Exception as exc:  # a game that cannot replay its own record: the page says so
        error = f"the boards stop at ply {max(len(boards) - 1, 0)}: {type(exc).__name__}: {exc}"
    seated = {} if seats is None else {"seats": [str(bot) for bot in seats]}
    return {
        "id": int(row["game_id"]), "first": row["first"], "second": row["second"], **seated,
        "names": [game.player_name(s) for s in range(len(seats) if seats is not None else 2)], "result": row["result"],
        "termination": row["termination"], "message": row["message"], "opening": len(opening.moves),
        "moves": listed, "kind": "svg" if svg else "text", "parts": list(parts), "boards": boards, "error": error,
    }


def pack(data: dict) -> str:
    """``data`` as JSON, gzipped (no timestamp, so equal data packs equally) and base64'd."""
    raw = json.dumps(data, separators=(",", ":"), allow_nan=False).encode()
    return base64.b64encode(gzip.compress(raw, compresslevel=9, mtime=0)).decode("ascii")


def unpack(text: str) -> dict:
    """The data ``pack`` packed (for tests and tools)."""
    return json.loads(gzip.decompress(base64.b64decode(text)))


def board(data: dict, ply: int) -> str:
    """The picture (SVG or text) of the board after ``ply`` plies of an unpacked replay."""
    return "".join(data["parts"][i] for i in data["boards"][ply])
