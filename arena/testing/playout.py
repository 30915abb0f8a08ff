"""What the conformance checks share: random playouts, and where in a game a check failed."""

from __future__ import annotations

import random
from contextlib import contextmanager

from arena.game import CHANCE, Game


class _Place:
    """Where a check is: the game or bot, and the moves that led there (read only on failure)."""

    def __init__(self, what: str, game: Game):
        self.what, self.game = what, game
        self.moves, self.ply = (), 0

    def at(self, moves, ply: int | None = None) -> None:
        self.moves, self.ply = moves, len(moves) if ply is None else ply

    def __str__(self):
        return f"{self.what} after {_line(self.game, self.moves[: self.ply])}"


@contextmanager
def _reporting(place: _Place):
    """Turn an error raised inside a check (by the game, the bot or a hook) into an
    AssertionError naming the place, as every failed check is."""
    try:
        yield
    except AssertionError:
        raise
    except Exception as exc:
        detail = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        raise AssertionError(f"{place}: raised {detail}") from exc


def random_playout(game: Game, rng: random.Random, max_plies: int = 10_000, place: _Place | None = None) -> list:
    """Moves of one random game, start to end; fails if it does not end within ``max_plies``."""
    state = game.initial_state()
    moves = []
    if place is not None:
        place.at(moves)  # the list grows: the place follows the playout
    while not game.is_terminal(state):
        if place is not None:
            place.ply = len(moves)
        assert len(moves) < max_plies, f"{game.name}: random playout still going after {max_plies} plies"
        mover = game.to_move(state)
        assert mover != CHANCE or game.model.chance, (
            f"{game.name}: to_move returned -1 (CHANCE) after {_line(game, moves)}, but its model declares no chance")
        if mover == CHANCE:  # the dice fall as the rule book says
            pairs = list(game.chance_outcomes(state))
            assert pairs and all(isinstance(p, tuple) and len(p) == 2 for p in pairs), (
                f"{game.name}: chance outcome {pairs[:1]!r} is not (outcome, probability) after {_line(game, moves)}")
            outcomes, weights = zip(*pairs)
            move = rng.choices(outcomes, weights)[0]
            moves.append(move)
            state = game.apply(state, move)
            continue
        legal = game.legal_moves(state)
        assert legal, f"{game.name}: non-terminal state without legal moves after {_line(game, moves)}"
        move = rng.choice(list(legal))
        moves.append(move)
        state = game.apply(state, move)
    return moves




def _line(game: Game, moves) -> str:
    if not moves:
        return "no moves"
    try:
        return "moves " + " ".join(game.line_text(game.initial_state(), moves))
    except Exception:
        return f"moves {list(moves)!r}"


def _require(function: str, **arguments) -> None:
    """TypeError naming the first argument that is not of its type, or a count below 0."""
    for name, (value, kind) in arguments.items():
        if not isinstance(value, kind) or isinstance(value, bool) and kind is int:
            raise TypeError(f"{function}: {name} must be {'an' if kind.__name__[0] in 'AEIOUaeiou' else 'a'} {kind.__name__}, got {value!r}")
        if kind is int and name != "seed" and value < 0:
            raise ValueError(f"{function}: {name} must be 0 or more, got {value!r}")


def _transposed(game: Game, moves, states):
    """Swap moves i and i+n of a playout (n: the seats, so both are one seat's moves):
    ``(i, state, original)`` where both orders show the same picture with the same seat to move."""
    gap = game.model.players
    for i in range(len(moves) - gap):
        start = states[i]
        if game.to_move(start) != game.to_move(states[i + gap]):
            continue
        state = start
        for move in (moves[i + gap], *moves[i + 1:i + gap], moves[i]):
            if game.is_terminal(state) or move not in game.choices(state):
                break
            state = game.apply(state, move)
        else:
            original = states[i + gap + 1]
            if game.render(state) == game.render(original) and game.to_move(state) == game.to_move(original):
                yield i, state, original
