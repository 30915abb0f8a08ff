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

from arena.errors import ParameterError
from arena.game import CHANCE, JOINT, Game
from arena.opening import Opening, OpeningsError, split_text
from arena.plugins import Registry


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


def make_openings(game: Game, count: int, plies: int, seed: int, attempts: int = 50) -> list[tuple[str, ...]]:
    """``count`` openings of ``plies`` random legal moves that never end the game.

    Openings are kept distinct while fresh ones can be found in a few attempts.
    """
    if plies == 0:
        return [()] * count
    rng = random.Random(f"openings/{seed}")
    out: list[tuple[str, ...]] = []
    seen: set[tuple[str, ...]] = set()
    for _ in range(count):
        opening = ()
        for _ in range(attempts):
            opening = _random_opening(game, plies, rng)
            if opening not in seen:
                break
        seen.add(opening)
        out.append(opening)
    return out


def _random_opening(game: Game, plies: int, rng: random.Random, tries: int = 100) -> tuple[str, ...]:
    model = getattr(game, "model", None)  # stand-ins for games in tests have no model
    chance, hidden = getattr(model, "chance", False), getattr(model, "hidden", False)
    joint = getattr(model, "simultaneous", False)
    for _ in range(tries):
        state, moves = game.initial_state(), []
        while len(moves) < plies:
            mover = game.to_move(state) if chance or joint else 0
            if hidden and mover == CHANCE:
                return tuple(moves)  # a deal comes from the run's secret dice, never from the seed
            if joint and mover == JOINT:  # a random move for each acting seat
                choice = tuple(rng.choice(list(game.legal_moves_for(state, s))) for s in game.acting(state))
                after = game.apply_joint(state, choice)
                if game.is_terminal(after):
                    break
                moves.extend(game.move_text(state, m) for m in choice)
                state = after
                continue
            if chance and mover == CHANCE:  # outcomes drawn by their probabilities
                drawn = [(o, float(p)) for o, p in game.chance_outcomes(state) if not game.is_terminal(game.apply(state, o))]
                options, weights = [o for o, _ in drawn], [p for _, p in drawn]
            else:
                options = [m for m in game.legal_moves(state) if not game.is_terminal(game.apply(state, m))]
                weights = None
            if not options:
                break  # a dead end: every move ends the game; start again
            move = rng.choices(options, weights)[0] if weights else rng.choice(options)
            moves.append(game.move_text(state, move))
            state = game.apply(state, move)
        else:
            return tuple(moves)
    raise ParameterError(f"cannot find {plies} opening plies in {game.name} that do not end the game; use fewer")
