"""The rule-book interface every game implements."""

from __future__ import annotations

import typing
from typing import Any, Hashable, Sequence

from arena.errors import IllegalMoveError
from arena.params import Configurable

State = Hashable
Move = Hashable


class Game(Configurable):
    """A two-player, zero-sum, perfect-information, deterministic game.

    A game object is a stateless rule book built from declared parameters; a state is an
    immutable, hashable value. ``apply`` returns a new state, so a search may explore
    freely and states can key transposition tables. Players are numbered 0 (moves first)
    and 1.

    Subclasses set ``name``, ``description`` and ``bounds`` and implement the methods
    below. ``heuristic`` must stay strictly inside ``bounds`` so that a proven result
    always outranks an estimate, and be zero-sum like ``utility``.

    The search bots also use these methods when a game defines them (see bots/search.py):
    ``key(state)``, ``tactics(state, rank)``, ``move_priorities(state, moves)`` and
    ``value_bounds(state, player)``.
    """

    kind: typing.ClassVar[str] = "game"
    bounds: tuple[float, float] = (-1, 1)
    """Lowest and highest utility a player can get (set per instance if parameters change it)."""

    def initial_state(self) -> State:
        """The position before the first move."""
        raise NotImplementedError

    def to_move(self, state: State) -> int:
        """The player to move: 0 or 1."""
        raise NotImplementedError

    def legal_moves(self, state: State) -> Sequence[Move]:
        """The legal moves, in a fixed order (searches rely on it to be reproducible)."""
        raise NotImplementedError

    def apply(self, state: State, move: Move) -> State:
        """The state after ``move``; ``state`` itself is never changed."""
        raise NotImplementedError

    def is_terminal(self, state: State) -> bool:
        """True when the game is over."""
        raise NotImplementedError

    def utility(self, state: State, player: int) -> float:
        """The final value of a terminal state for ``player``; the other gets its negation."""
        raise NotImplementedError

    def heuristic(self, state: State, player: int) -> float:
        """An estimate of a non-terminal state for ``player``, strictly inside ``bounds``."""
        return 0.0

    def render(self, state: State) -> str:
        """A text picture of the state for a terminal."""
        return repr(state)

    def format_move(self, move: Move) -> str:
        """Text for a move; ``parse_move(format_move(m)) == m``."""
        return str(move)

    def parse_move(self, text: str) -> Move:
        """The move written as ``text``; raise IllegalMoveError if it cannot be one.

        Parsing checks the form only; whether the move is legal in a position is the
        caller's business (see ``legal_moves``).
        """
        raise NotImplementedError

    # Conveniences built on the methods above.

    def player_name(self, player: int) -> str:
        """How a player is called in this game (e.g. 'X', 'black')."""
        return ("first", "second")[player]

    def bad_move_text(self, text: str, expected: str) -> IllegalMoveError:
        """The error ``parse_move`` raises for text that is not a move."""
        return IllegalMoveError(f"cannot read {text!r} as a move in {self.name}; expected {expected}")

    def result_text(self, state: State) -> str:
        """One line saying how a terminal state ended."""
        u = self.utility(state, 0)
        if u > 0:
            return f"{self.player_name(0)} wins"
        if u < 0:
            return f"{self.player_name(1)} wins"
        return "draw"

    def play(self, moves: Sequence[Any], state: State | None = None) -> State:
        """The state after playing ``moves`` (values or text) from ``state`` or the start."""
        state = self.initial_state() if state is None else state
        for ply, move in enumerate(moves):
            if isinstance(move, str):
                move = self.parse_move(move)
            legal = self.legal_moves(state)
            if move not in legal:
                shown = ", ".join(self.format_move(m) for m in legal)
                raise IllegalMoveError(
                    f"illegal move {self.format_move(move)!r} in {self.name} at ply {ply}; legal: {shown}"
                )
            state = self.apply(state, move)
        return state
