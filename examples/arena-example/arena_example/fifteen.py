"""Number Scrabble ("fifteen") and its generalisation.

Rules: the numbers 1 to ``largest`` lie on the table. Two players take turns taking one
number each. The first player to hold ``count`` of their numbers that add up to
``target`` wins at once; if the numbers run out first, the game is a draw. The defaults
(9, 15, 3) give Number Scrabble, which is tic-tac-toe in disguise: the eight triples of
1-9 summing to 15 are the lines of the 3x3 magic square.

States are ``Position(first, second, winner)``: the frozensets of numbers each player
holds, and the player who has won (None while playing and for a draw). A move is the
number taken, an int, written ``"5"``.
"""

from __future__ import annotations

from itertools import combinations
from typing import NamedTuple

from arena import Game, param


class Position(NamedTuple):
    """A position of the game: immutable and hashable, so searches can key tables on it."""

    first: frozenset[int]
    """Numbers the first player holds."""
    second: frozenset[int]
    """Numbers the second player holds."""
    winner: int | None = None
    """0 or 1 once that player holds a winning set; None otherwise."""


class Fifteen(Game):
    """Take numbers in turn; the first to hold ``count`` of them summing to ``target`` wins."""

    name = "fifteen"
    description = "Number Scrabble: take numbers 1-9 in turn; first to hold three summing to 15 wins"
    bounds = (-1, 1)

    largest: int = param(9, "the numbers on the table run from 1 to largest", min=1, max=20)
    target: int = param(15, "the sum a winning set adds up to", min=1)
    count: int = param(3, "how many numbers a winning set has", min=1, max=5)

    def __init__(self, **params):
        super().__init__(**params)
        if self.count > self.largest:
            raise self.bad_parameter("count", "must be at most largest")
        numbers = range(1, self.largest + 1)
        # Every winning set: ``count`` distinct numbers summing to ``target``.
        self.lines = tuple(
            frozenset(c) for c in combinations(numbers, self.count) if sum(c) == self.target
        )
        # For each number, the winning sets containing it: only the number just taken
        # can complete a set, so the end is detected from the last move.
        self._through = {n: tuple(s for s in self.lines if n in s) for n in numbers}

    def initial_state(self):
        return Position(frozenset(), frozenset())

    def to_move(self, state) -> int:
        return 0 if len(state.first) == len(state.second) else 1

    def legal_moves(self, state):
        if self.is_terminal(state):
            return []
        taken = state.first | state.second
        return [n for n in range(1, self.largest + 1) if n not in taken]

    def apply(self, state, move):
        first, second, _ = state
        if len(first) == len(second):
            player, first = 0, first | {move}
            hand = first
        else:
            player, second = 1, second | {move}
            hand = second
        won = any(s <= hand for s in self._through[move])
        return Position(first, second, player if won else None)

    def is_terminal(self, state) -> bool:
        return state.winner is not None or len(state.first) + len(state.second) == self.largest

    def utility(self, state, player: int) -> float:
        if state.winner is None:
            return 0
        return 1 if state.winner == player else -1

    def heuristic(self, state, player: int) -> float:
        """Numbers in winning sets still open to their holder, first's minus second's, in (-0.9, 0.9)."""
        if not self.lines:
            return 0.0
        score = 0
        for s in self.lines:
            mine, theirs = s & state.first, s & state.second
            if not theirs:
                score += len(mine)
            elif not mine:
                score -= len(theirs)
        value = 0.9 * score / (len(self.lines) * self.count)
        return value if player == 0 else -value

    def render(self, state) -> str:
        taken = state.first | state.second
        free = [n for n in range(1, self.largest + 1) if n not in taken]

        def show(numbers) -> str:
            return " ".join(str(n) for n in sorted(numbers)) or "-"

        lines = [
            f"first:  {show(state.first)}",
            f"second: {show(state.second)}",
            f"free:   {show(free)}",
        ]
        if self.is_terminal(state):
            lines.append(self.result_text(state))
        else:
            lines.append(
                f"{self.player_name(self.to_move(state))} to move; "
                f"hold {self.count} numbers summing to {self.target} to win"
            )
        return "\n".join(lines)

    def format_move(self, move) -> str:
        return str(move)

    def parse_move(self, text: str):
        t = text.strip()
        if t.isascii() and t.isdigit() and 1 <= int(t) <= self.largest:
            return int(t)
        raise self.bad_move_text(text, f"a number from 1 to {self.largest}")
