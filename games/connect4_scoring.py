"""Connect Four's scoring: what a win is worth, and what that bounds before the end."""

from __future__ import annotations

from games.connect4_board import Board

RULES = ("win", "moves")


class Scoring:
    """The value of a win under one scoring rule, and the bounds it puts on the game value.

    'win': every win scores 1. 'moves' (Pascal Pons's score): a win with the winner's k-th
    stone scores (most stones + 1) - k, which is 22 - k on 7x6 (blog.gamesolver.org,
    part 2); nobody wins before k = connect.
    """

    def __init__(self, board: Board, rule: str):
        self.rule = rule
        self._base = base = (board.cells + 1) // 2 + 1
        if rule == "moves":
            top = max(1, base - board.connect)
            self.bounds = (-top, top)
        else:
            self.bounds = (-1, 1)
        plies = range(board.cells + 1)
        # by moves played: the mover's value if it wins with its next stone (or the one
        # after), and if the opponent wins with its next stone (or the one after)
        if rule == "moves":
            self.win_next = tuple(base - (m // 2 + 1) for m in plies)
            self.win_later = tuple(base - (m // 2 + 2) for m in plies)
            self.loss_next = tuple(-(base - ((m + 1) // 2 + 1)) for m in plies)
            self.loss_later = tuple(-(base - ((m + 1) // 2 + 2)) for m in plies)
        else:
            self.win_next = self.win_later = (1,) * len(plies)
            self.loss_next = self.loss_later = (-1,) * len(plies)

    @property
    def bounds_by_ply(self) -> bool:
        """Whether ``value_bounds`` says more than ``bounds`` ('moves': a later win scores less)."""
        return self.rule == "moves"

    def win(self, moves: int) -> int:
        """The winner's score when the game was won with move number ``moves`` (counted from 1)."""
        return 1 if self.rule == "win" else self._base - (moves + 1) // 2

    def value_bounds(self, state, player: int) -> tuple[float, float]:
        """The lowest and highest value ``player`` (to move) can still get."""
        moves = state[2]
        low, high = self.bounds
        return (max(self.loss_next[moves], low), min(self.win_next[moves], high))
