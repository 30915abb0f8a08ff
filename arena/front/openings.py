"""Openings files: one opening per line, played twice with colours swapped.

A line holds the game's move texts separated by spaces (``3 3 4 2`` in Connect Four,
``e2e4 e7e5`` in chess). A game with a position parameter starts the line with it in
brackets, ``[fen=rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1] e7e5``: the
parameters (``key=value``, comma-separated, as in a game spec) replace the tournament
game's for that opening, and the moves follow from there. Blank lines and lines starting
with ``#`` are skipped. Every line is checked before any game is played: a move that is
not legal, or an opening that ends the game, is an error naming the file and the line.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass

from arena.errors import ArenaError, ParameterError
from arena.params import parse_spec
from arena.plugins import Registry


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


@dataclass(frozen=True)
class OpeningBook:
    """An openings file's lines, and what identifies it in a stored tournament."""

    path: str
    openings: tuple[Opening, ...]
    digest: str
    """SHA-256 of the file's bytes, first 16 hex digits: a changed file is another tournament."""
    shuffle: bool = False

    @classmethod
    def read(cls, path: str, shuffle: bool = False) -> "OpeningBook":
        """The lines of ``path`` (not yet checked against a game); OpeningsError if unreadable or empty."""
        try:
            with open(path, "rb") as f:
                data = f.read()
            text = data.decode("utf-8")
        except FileNotFoundError:
            raise OpeningsError(f"openings file {path!r} not found") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise OpeningsError(f"cannot read openings file {path!r}: {exc}") from None
        openings = []
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            try:
                opening = split_text(line)
            except OpeningsError as exc:
                raise OpeningsError(f"openings file {path!r}, line {number}: {exc}") from None
            openings.append(Opening(opening.moves, opening.params, number))
        if not openings:
            raise OpeningsError(f"openings file {path!r} holds no opening (blank lines and '#' comments are skipped)")
        return cls(path, tuple(openings), hashlib.sha256(data).hexdigest()[:16], shuffle)

    def identity(self) -> dict:
        return {"file": self.path, "sha256": self.digest, "shuffle": self.shuffle, "lines": len(self.openings)}

    def check(self, registry: Registry, game: str) -> None:
        """Every line's parameters and moves are legal in ``game`` and leave it unfinished; else OpeningsError."""
        built: dict[tuple, object] = {}
        for opening in self.openings:
            where = f"openings file {self.path!r}, line {opening.line}"
            try:
                if opening.params not in built:
                    built[opening.params] = registry.game(opening.game_spec(game))
                rules = built[opening.params]
                state = rules.play(opening.moves)
            except (ParameterError, ValueError, KeyError) as exc:
                message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
                raise OpeningsError(f"{where}: {message}") from None
            if rules.is_terminal(state):
                raise OpeningsError(
                    f"{where}: the opening {opening.text()!r} ends the game ({rules.result_text(state)}); "
                    "an opening must leave the bots something to play"
                )

    def rounds(self, count: int, seed: int) -> list[Opening]:
        """The openings of rounds 0 to ``count - 1``: the file's order (shuffled by ``seed`` if asked), repeated as needed."""
        order = list(self.openings)
        if self.shuffle:
            random.Random(f"book/{seed}").shuffle(order)
        return [order[r % len(order)] for r in range(count)]
