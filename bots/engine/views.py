"""What an engine is told in a game of hidden information or simultaneous moves (docs/protocol.md):
its seat's view as protocol lines, never the state.

Before each ``go`` it gets the ``position`` line with the public history (``public``, where a
ply hidden from it shows as the game shows it, "?" by default; ``moves`` where nothing is
hidden), its observation on one ``observation`` line, and its legal moves on a ``legal`` line.
"""

from __future__ import annotations

from arena.game import Game
from arena.view import View, move_text

#: How an observation's characters that would end or garble its line are written.
ESCAPES = str.maketrans({"\\": "\\\\", "\n": "\\n", "\r": "\\r"})


def escape(text: str) -> str:
    """``text`` on one line: a backslash as ``\\\\``, a line feed as ``\\n``, a carriage return as ``\\r``."""
    return text.translate(ESCAPES)


def unescape(text: str) -> str:
    """The text ``escape`` wrote (for tests and engines written in Python)."""
    out, chars = [], iter(text)
    for c in chars:
        if c == "\\":
            c = {"n": "\n", "r": "\r", "\\": "\\"}.get(next(chars, ""), "")
        out.append(c)
    return "".join(out)


def view_lines(game: Game, view: View) -> list[str]:
    """The lines that tell an engine its ``view``: ``position``, ``observation`` and ``legal``."""
    word = "public" if game.model.hidden else "moves"
    position = "position start" + (f" {word} " + " ".join(view.history) if view.history else "")
    observed = escape(view.observation)
    return [position, "observation" + (" " + observed if observed else ""), "legal " + " ".join(legal_texts(game, view))]


def legal_texts(game: Game, view: View) -> tuple[str, ...]:
    """The seat's legal moves as the engine is told them (and must answer one)."""
    return tuple(move_text(game, view, m) for m in view.legal)


def view_move(game: Game, view: View, text: str):
    """The legal move of ``view`` that ``text`` names, or None: one of the ``legal`` line's texts,
    or a text the game reads as one of them."""
    texts = legal_texts(game, view)
    if text in texts:
        return view.legal[texts.index(text)]
    try:
        move = game.parse_move(text) if view.state is None else game.parse_move_in(view.state, text)
    except Exception:
        return None
    return move if move in view.legal else None
