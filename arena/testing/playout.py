"""What the conformance checks share: random playouts, and where in a game a check failed."""

from __future__ import annotations

import random
from contextlib import contextmanager
from dataclasses import replace

from arena.game import CHANCE, JOINT, Game


class _Place:
    """Where a check is: the game or bot, and the moves that led there. Written only when a
    failed check shows it: writing a long game's line costs more than checking a position."""

    def __init__(self, what: str, game: Game, moves=(), tail: str = ""):
        self.what, self.game, self.tail = what, game, tail
        self.moves, self.ply = moves, len(moves)

    def at(self, moves, ply: int | None = None) -> None:
        self.moves, self.ply = moves, len(moves) if ply is None else ply

    def __str__(self):
        return f"{self.what} after {_line(self.game, self.moves[: self.ply])}{self.tail}"


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
    """Moves of one random game, start to end; fails if it does not end within ``max_plies``.
    A joint move is one move per acting seat, in ``acting`` order, as ``Game.play`` reads them."""
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
        if mover == JOINT:
            assert game.model.simultaneous, (f"{game.name}: to_move returned -2 (JOINT) after {_line(game, moves)}, "
                                             "but its model declares no simultaneous moves")
            joint = _random_joint(game, state, rng, moves)
            moves.extend(joint)
            state = game.apply_joint(state, joint)
            continue
        legal = game.legal_moves(state)
        assert legal, f"{game.name}: non-terminal state without legal moves after {_line(game, moves)}"
        move = rng.choice(list(legal))
        moves.append(move)
        state = game.apply(state, move)
    return moves


def _random_joint(game: Game, state, rng: random.Random, moves) -> tuple:
    """A random move for each seat acting at a ``JOINT`` state, in ``acting`` order."""
    seats = game.acting(state)
    players = game.model.players
    fine = isinstance(seats, tuple) and seats and list(seats) == sorted(set(seats)) and 0 <= seats[0] and seats[-1] < players
    assert fine, (f"{game.name}: acting gave {seats!r} after {_line(game, moves)}: a tuple of distinct seats "
                  f"0 to {players - 1}, in order")
    joint = []
    for seat in seats:
        legal = game.legal_moves_for(state, seat)
        assert legal, f"{game.name}: seat {seat} acts with no legal moves after {_line(game, moves)}"
        joint.append(rng.choice(list(legal)))
    return tuple(joint)


class OneSeatAtATime:
    """``game`` with each joint move made one seat at a time, the choices so far held in the
    state ``(game's state, choices)``: for checks that walk a playout ply by ply with ``apply``
    (``check_sampling``). Only what those checks ask is here."""

    def __init__(self, game: Game):
        self.game, self.name = game, game.name
        self.model = replace(game.model, simultaneous=False)

    def initial_state(self):
        return (self.game.initial_state(), ())

    def is_terminal(self, state) -> bool:
        return not state[1] and self.game.is_terminal(state[0])

    def to_move(self, state) -> int:
        inner, made = state
        mover = self.game.to_move(inner)
        return self.game.acting(inner)[len(made)] if mover == JOINT else mover

    def legal_moves(self, state):
        inner, made = state
        if self.game.to_move(inner) == JOINT:
            return self.game.legal_moves_for(inner, self.game.acting(inner)[len(made)])
        return self.game.legal_moves(inner)

    def chance_outcomes(self, state):
        return self.game.chance_outcomes(state[0])

    def apply(self, state, move):
        inner, made = state
        if self.game.to_move(inner) != JOINT:
            return (self.game.apply(inner, move), ())
        made += (move,)
        if len(made) < len(self.game.acting(inner)):
            return (inner, made)
        return (self.game.apply_joint(inner, made), ())

    def move_text(self, state, move) -> str:
        return self.game.move_text(state[0], move)


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


def _joint_transposed(game: Game, steps):
    """Swap one seat's moves in a joint turn and the next joint turn of the same seats (the turns
    between replayed as they were): ``(first ply, later ply, the ply after it, seat, state,
    original)`` where both orders show the same picture with the same seat to move. ``steps``: a
    playout's turns, each ``(ply, state before, mover, move)`` (a joint move one turn, its moves a
    tuple), then ``(final state,)``."""
    *played, (final,) = steps
    after = [s[1] for s in played[1:]] + [final]  # the state after each turn
    for k, (ply, start, mover, joint) in enumerate(played):
        if mover != JOINT:
            continue
        m = next((i for i in range(k + 1, len(played)) if played[i][2] == JOINT), None)
        if m is None or game.acting(played[m][1]) != game.acting(start):
            continue
        later = played[m][3]
        for j, seat in enumerate(game.acting(start)):
            state = _swapped_replay(game, played[k:m + 1], j, joint[j], later[j])
            original = after[m]
            if state is not None and game.render(state) == game.render(original) and (
                    game.is_terminal(state) == game.is_terminal(original)) and (
                    game.is_terminal(state) or game.to_move(state) == game.to_move(original)):
                yield ply, played[m][0], played[m][0] + len(later), seat, state, original


def _swapped_replay(game: Game, played, j: int, first, second):
    """Replay ``played`` (turns, the first and last joint) with the ``j``-th acting seat's moves of
    the two joint turns swapped; None where a move is not legal where it lands."""
    state = played[0][1]
    for n, (_, _, mover, move) in enumerate(played):
        if game.is_terminal(state) or game.to_move(state) != mover:
            return None
        if mover == JOINT:
            swapped = move[:j] + ((second if n == 0 else first),) + move[j + 1:]
            seats = game.acting(state)
            if len(seats) != len(swapped) or any(m not in game.legal_moves_for(state, s) for s, m in zip(seats, swapped)):
                return None
            state = game.apply_joint(state, swapped)
        else:
            if move not in game.choices(state):
                return None
            state = game.apply(state, move)
    return state
