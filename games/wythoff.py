"""Wythoff's game, played as a queen race to the corner.

A queen stands on a ``size`` x ``size`` board. Players alternately move it any number of
squares right, down, or diagonally down-right (at least one square). Whoever moves the
queen onto the bottom-right corner wins.

Squares are ``(row, column)`` counted from the top-left corner ``(0, 0)``; in text a
square is a column letter and a row number counted from the top, so ``(2, 1)`` is "b3".
State: ``(row, column, player to move)``. Move: the destination square ``(row, column)``.
"""

from __future__ import annotations

import math
import re

from arena import Game, param

_SQUARE = re.compile(r"([a-z])\s*([0-9]+)")
_LETTERS = "abcdefghijklmnopqrstuvwxyz"


class Wythoff(Game):
    name = "wythoff"
    description = "move a queen right, down or diagonally; whoever reaches the far corner wins"
    bounds = (-1, 1)

    size: int = param(8, "squares along each side of the board", min=2, max=26)
    row: int = param(1, "starting row, counted from 0 at the top", min=0)
    column: int = param(0, "starting column, counted from 0 at the left", min=0)

    def __init__(self, **params):
        super().__init__(**params)
        last = self.size - 1
        if self.row > last:
            raise self.bad_parameter("row", f"must be at most size - 1 = {last}")
        if self.column > last:
            raise self.bad_parameter("column", f"must be at most size - 1 = {last}")
        if self.row == self.column == last:
            raise self.bad_parameter("row", "the queen may not start on the corner (row = column = size - 1)")
        # Losing distances to the corner for the player to move: (a_k, a_k + k), a_k = floor(k * phi).
        self._losing = set()
        for k in range(self.size):
            a = (k + math.isqrt(5 * k * k)) // 2
            self._losing.update({(a, a + k), (a + k, a)})

    def initial_state(self):
        return (self.row, self.column, 0)

    def to_move(self, state):
        return state[2]

    def legal_moves(self, state):
        r, c, _ = state
        n = self.size
        moves = [(r, j) for j in range(c + 1, n)]  # right, then row by row below
        for i in range(1, n - r):
            moves.append((r + i, c))
            if c + i < n:
                moves.append((r + i, c + i))
        return moves

    def apply(self, state, move):
        return (move[0], move[1], 1 - state[2])

    def is_terminal(self, state):
        return state[0] == state[1] == self.size - 1

    def utility(self, state, player):
        # The player to move at the end did not reach the corner.
        return -1 if player == state[2] else 1

    def heuristic(self, state, player):
        last = self.size - 1
        mover_wins = (last - state[0], last - state[1]) not in self._losing
        return 0.5 if (player == state[2]) == mover_wins else -0.5

    def render(self, state):
        r, c, player = state
        n = self.size
        lines = ["    " + " ".join(_LETTERS[:n])]
        for i in range(n):
            cells = ["Q" if (i, j) == (r, c) else "*" if i == j == n - 1 else "." for j in range(n)]
            lines.append(f"{i + 1:>3} " + " ".join(cells))
        lines.append(f"queen on {self.format_move((r, c))}; {self.player_name(player)} to move")
        return "\n".join(lines)

    def format_move(self, move):
        return f"{_LETTERS[move[1]]}{move[0] + 1}"

    def parse_move(self, text):
        m = _SQUARE.fullmatch(text.strip().lower())
        if not m or int(m.group(2)) < 1:
            raise self.bad_move_text(text, "a square such as 'b3' (column letter, row number from 1 at the top)")
        return (int(m.group(2)) - 1, _LETTERS.index(m.group(1)))
