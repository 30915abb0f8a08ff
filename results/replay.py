"""Stored games replayed for the HTML report: the board at every ply, drawn by the game.

A game is replayed from its opening and stored moves (``turns``: a joint move, stored as a
ply per acting seat, is one turn, and every ply of it shows the position after it). Each board is the game's ``svg`` (or, for a game without one, its text
``render``). Boards one ply apart differ in a few pieces, so a game's boards are stored
as a table of distinct fragments (the SVG cut after each tag, or the text cut into lines)
and each board as the list of its fragments' numbers; the whole is gzipped and base64'd.
The page decompresses a game when it is opened (``DecompressionStream``). A game with hidden
information also holds what each seat saw: every ply's public text and each seat's observation
after every ply, in the same table of fragments.
"""

from __future__ import annotations

import base64
import gzip
import json
import math
import numbers
import re
from typing import Iterable, Sequence

from arena.game import Game, State
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
    ``parts``; the plies of a joint move are marked ``joint`` (the first and last ply's board
    numbers) and each shows the position after the whole move. A game with hidden information
    adds ``public`` (each ply as every seat saw it) and ``seen`` (per seat, its observation
    after ``k`` plies, as fragment numbers). If a move cannot be replayed, the boards stop
    before it and ``error`` says why.
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
    hidden = game.model.hidden
    count = len(seats) if seats is not None else game.model.players
    public: list[str] = []
    seen: list[list[list[int]]] = [[] for _ in range(count)] if hidden else []

    def text_parts(text: str) -> list[int]:
        return [parts.setdefault(f, len(parts)) for f in _fragments(text, False)]

    def draw(state: State, times: int = 1) -> None:
        picture = game.svg(state) if svg else game.render(state)
        observed = [game.observation(state, seat) for seat in range(len(seen))]  # all or none: boards and views in step
        boards.extend([[parts.setdefault(f, len(parts)) for f in _fragments(picture, svg)]] * times)
        for views, text in zip(seen, observed):
            views.extend([text_parts(text)] * times)

    try:
        if opening.params:  # the game as this opening's position parameters make it
            _, values = parse_spec(opening.game_spec(game.spec))
            game = type(game)(**type(game).parse_params(values))
        state = game.initial_state()
        svg = game.svg(state) is not None
        draw(state)
        for before, played, after in game.turns([entry["move"] for entry in listed]):
            first = len(boards)
            if len(played) > 1:
                for entry in listed[first - 1:first - 1 + len(played)]:
                    entry["joint"] = [first, first + len(played) - 1]
            said = [game.public_text(before, move) for _, move in played] if hidden else []
            draw(after, len(played))
            public += said
    except Exception as exc:  # a game that cannot replay its own record: the page says so
        error = f"the boards stop at ply {max(len(boards) - 1, 0)}: {type(exc).__name__}: {exc}"
    seated = {} if seats is None else {"seats": [str(bot) for bot in seats]}
    views = {"public": public, "seen": seen} if hidden else {}
    return {
        "id": int(row["game_id"]), "first": row["first"], "second": row["second"], **seated,
        "names": [game.player_name(s) for s in range(len(seats) if seats is not None else 2)], "result": row["result"],
        "termination": row["termination"], "message": row["message"], "opening": len(opening.moves),
        "moves": listed, "kind": "svg" if svg else "text", "parts": list(parts), "boards": boards, "error": error,
        **views,
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


def seen(data: dict, seat: int, ply: int) -> str:
    """What ``seat`` saw after ``ply`` plies of an unpacked replay of a game with hidden information."""
    return "".join(data["parts"][i] for i in data["seen"][seat][ply])
