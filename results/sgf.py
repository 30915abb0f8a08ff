"""Games of a stored tournament as SGF (FF[4]), for the games SGF has a number for.

``SGF_GAMES``: OpenSpiel's go (GM[1]), othello (GM[2]), gomoku (GM[4], Gomoku and Renju) and
hex (GM[11]), and the arena's own othello. Seat 0 is Black, who moves first in all of them
(in hex, Black joins top and bottom, as OpenSpiel's first player does). Points are written
as each game's SGF page says: go, othello and gomoku two lowercase letters, column then row
from the top left (https://www.red-bean.com/sgf/go.html), hex a column letter and a row
number (https://www.red-bean.com/sgf/hex.html); a pass is an empty move, ``B[]``.

One file holds every game, a game tree each. The root has FF, GM, CA, AP, SZ (KM in go),
EV (the tournament), RO (the game id + 1, as PGN's Round), DT (when the game finished), PB and
PW (the bots of seats 0 and 1), RE (``B+``, ``W+``, ``0`` for a draw; ``+T`` for a loss on
time, ``+R`` by resign adjudication, ``+F`` for any other forfeit) and GC (how it ended).
Each move's comment is ``C[book]`` for the opening, else the bot's score in the game's
utility units from the mover's view, "/" and the depth it reported, and the seconds it took
(``C[+0.250/12 0.105s]``), the parts not reported left out.
"""

from __future__ import annotations

import math
from typing import Callable, TextIO

import arena
from arena.errors import ArenaError
from arena.opening import OpeningsError, split_text
from arena.params import parse_spec
from results.pgn import count_games, date_of, progress_bar, stored_games

_LETTERS = "abcdefghijklmnopqrstuvwxyz"
_GO_COLUMNS = "abcdefghjklmnopqrstuvwxyz"  # OpenSpiel writes go as GTP does: no column i


def _go(game) -> tuple[dict, Callable[[str], str]]:
    values = _params(game)
    size, handicap = int(values["board_size"]), int(values.get("handicap", 0))
    if handicap > 1:
        raise ArenaError(f"SGF export does not write go with handicap stones ({game.spec!r})")

    def point(text: str) -> str:
        if text.lower() == "pass":
            return ""
        column, row = _GO_COLUMNS.index(text[0].lower()), int(text[1:])
        return _LETTERS[column] + _LETTERS[size - row]

    return {"SZ": str(size), "KM": f"{float(values['komi']):g}"}, point


def _othello(game) -> tuple[dict, Callable[[str], str]]:
    size = int(_params(game).get("size", 8))  # OpenSpiel's othello is 8x8

    def point(text: str) -> str:  # 'd3': column d, row 3 from the top
        return "" if text.lower() == "pass" else text[0].lower() + _LETTERS[int(text[1:]) - 1]

    return {"SZ": str(size)}, point


def _gomoku(game) -> tuple[dict, Callable[[str], str]]:
    values = _params(game)
    if int(values.get("dims", 2)) != 2 or str(values.get("wrap", False)).lower() == "true":
        raise ArenaError(f"SGF export writes gomoku on a flat board of two dimensions, not {game.spec!r}")

    def point(text: str) -> str:  # '7,3': row 7 from the top, column 3, from 0
        row, column = (int(part) for part in text.split(","))
        return _LETTERS[column] + _LETTERS[row]

    return {"SZ": str(int(values["size"]))}, point


def _hex(game) -> tuple[dict, Callable[[str], str]]:
    values = _params(game)
    if str(values.get("swap", False)).lower() == "true":
        raise ArenaError(f"SGF export does not write hex with the swap rule ({game.spec!r})")
    columns, rows = int(values["num_cols"]), int(values["num_rows"])
    size = str(columns) if columns == rows else f"{columns}:{rows}"
    return {"SZ": size}, lambda text: text.lower()  # 'c4': SGF's hex point already


#: The games written as SGF: their game number and how their moves become SGF points.
SGF_GAMES: dict[str, tuple[int, Callable]] = {
    "openspiel.go": (1, _go),
    "othello": (2, _othello),
    "openspiel.othello": (2, _othello),
    "openspiel.gomoku": (4, _gomoku),
    "openspiel.hex": (11, _hex),
}


def _params(game) -> dict:
    """The game's parameters, OpenSpiel's defaults filled in where it is OpenSpiel's."""
    spiel = getattr(game, "spiel", None)
    return dict(spiel.get_parameters()) if spiel is not None else dict(game.params)


def write_sgf(store, tournament, game, out: TextIO, *, progress: bool = False) -> int:
    """Write every stored game of ``tournament`` into ``out`` as one SGF collection; the number
    written. ``game`` is the tournament's game (``arena.Game``); ``progress``: a bar on stderr."""
    name = parse_spec(tournament.game)[0]
    if name not in SGF_GAMES:
        raise ArenaError(f"tournament {tournament.name!r} plays {name!r}, which SGF does not record; "
                         f"SGF records {', '.join(SGF_GAMES)}")
    number, layout = SGF_GAMES[name]
    size, point = layout(game)
    root = {"FF": "4", "GM": str(number), "CA": "UTF-8", "AP": f"botarena:{arena.__version__}", **size}
    written = 0
    with progress_bar(count_games(store, tournament), progress, "SGF") as bar:
        for row, moves in stored_games(store, tournament):
            out.write(game_text(tournament.name, row, moves, root, point))
            written += 1
            bar.update(1)
    return written


def game_text(event: str, row: dict, moves: list[dict], root: dict, point: Callable[[str], str]) -> str:
    """One game as an SGF game tree."""
    try:
        opening = split_text(row["opening"] or "")
    except OpeningsError as exc:
        opening, why = None, str(exc)
    if opening is None or opening.params:
        why = "it sets game parameters" if opening is not None else why
        raise ArenaError(f"game {row['game_id']}: its opening {row['opening']!r} cannot be written as SGF: {why}")
    info = {**root, "EV": event, "RO": str(row["game_id"] + 1), "DT": date_of(row["finished"], "-"),
            "PB": row["first"], "PW": row["second"], "RE": _result(row),
            "GC": f"{row['termination']}: {row['message']}" if row["message"] else row["termination"]}
    nodes = [";" + "".join(f"{key}[{_text(value)}]" for key, value in info.items() if value != "")]
    plies = [(text, None) for text in opening.moves] + [(m["move"], m) for m in moves]
    for ply, (text, record) in enumerate(plies):
        try:
            where = point(text)
        except (ValueError, IndexError):
            raise ArenaError(f"game {row['game_id']}: the stored move {text!r} at ply {ply} is no point of the "
                             "board; the game cannot be written as SGF") from None
        colour = "B" if (record["player"] if record is not None else ply % 2) == 0 else "W"
        comment = "book" if record is None else _comment(record)
        nodes.append(f";{colour}[{where}]" + (f"C[{_text(comment)}]" if comment else ""))
    return "(" + _wrapped(nodes) + ")\n"


def _result(row: dict) -> str:
    result = row["result"]
    if result == "1/2-1/2":
        return "0"
    if result not in ("1-0", "0-1"):
        return "?"
    why = "T" if row["termination"] in ("timeout", "clock") else "R" if row["termination"] == "resign_adjudication" \
        else "F" if row["loser"] is not None else ""
    return ("B+" if result == "1-0" else "W+") + why


def _comment(record: dict) -> str:
    score, depth, seconds = record["score"], record["depth"], record["seconds"]
    text = f"{score:+.3f}" if score is not None and not math.isnan(score) else ""
    if depth is not None:
        text += f"/{int(depth)}"
    if seconds is not None and not math.isnan(seconds):
        text = f"{text} {seconds:.3f}s" if text else f"{seconds:.3f}s"
    return text


def _text(value) -> str:
    """A property value with SGF's escapes: ``\\`` and ``]``."""
    return str(value).replace("\\", "\\\\").replace("]", "\\]")


def _wrapped(nodes: list[str]) -> str:
    """Nodes on lines of about 80 characters (a line breaks between nodes only)."""
    lines, line = [], ""
    for node in nodes:
        if line and len(line) + len(node) > 80:
            lines.append(line)
            line = node
        else:
            line += node
    lines.append(line)
    return "\n".join(lines)
