"""An opening as a game record stores it: ``[key=value,...] moves``.

Most openings are move texts separated by spaces. One that starts from another position
(an openings file's line for chess, with its ``fen``) leads with the game parameters it
sets, in brackets, as in a game spec. Tournaments write it (``stored_text``), and ``arena
show`` and the HTML report read it back (``split_text``) to replay a game from its start.
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.errors import ArenaError, ParameterError
from arena.params import parse_spec


class OpeningsError(ArenaError, ValueError):
    """An openings file that cannot be used."""


@dataclass(frozen=True)
class Opening:
    """One line of an openings file."""

    moves: tuple[str, ...]
    """Move texts, played from the (possibly replaced) start position."""
    params: tuple[tuple[str, str], ...] = ()
    """Game parameters the line sets, e.g. ``(("fen", "..."),)``; empty for most lines."""
    line: int = 0
    """Line number in the file, from 1."""

    def game_spec(self, game: str) -> str:
        """``game`` with this line's parameters in place of its own."""
        if not self.params:
            return game
        name, values = parse_spec(game)
        values.update(self.params)
        return name + ":" + ",".join(f"{k}={v}" for k, v in values.items())

    def text(self) -> str:
        """The line as stored with each game: ``[fen=...] e7e5``, or just the moves."""
        prefix = "[" + ",".join(f"{k}={v}" for k, v in self.params) + "]" if self.params else ""
        return " ".join(filter(None, (prefix, *self.moves)))


def split_text(text: str) -> Opening:
    """An opening from its stored or written text (``[key=value,...] moves``); OpeningsError if malformed."""
    text = text.strip()
    params: tuple[tuple[str, str], ...] = ()
    if text.startswith("["):
        inside, closed, rest = text[1:].partition("]")
        if not closed:
            raise OpeningsError("no ']' closes the '[' of the position parameters")
        try:
            _, values = parse_spec("game:" + inside)
        except ParameterError as exc:
            raise OpeningsError(f"bad position parameters [{inside}]: {exc}") from None
        params, text = tuple(values.items()), rest
    return Opening(tuple(text.split()), params)


def stored_text(game: str, played: str, moves: str) -> str:
    """The opening column of a game played as ``played`` in a tournament of ``game``:
    the parameters ``played`` sets beyond ``game``'s, in brackets, then the moves."""
    base = parse_spec(game)[1]
    params = tuple((k, v) for k, v in parse_spec(played)[1].items() if base.get(k) != v)
    return Opening(tuple(moves.split()), params).text()
