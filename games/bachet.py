"""Bachet's game (a subtraction game).

A pile of ``matches``; players alternately take between 1 and ``take`` matches (never
more than are left). Whoever takes the last match wins.

State: ``(matches left, player to move)``. Move: the number taken, an int, written ``"2"``.
"""

from __future__ import annotations

from arena import Game, param


class Bachet(Game):
    name = "bachet"
    description = "take 1 to k matches from one pile; whoever takes the last match wins"
    bounds = (-1, 1)

    matches: int = param(21, "matches in the pile at the start", min=1)
    take: int = param(3, "most matches a player may take in one move (k)", min=1)

    def initial_state(self):
        return (self.matches, 0)

    def to_move(self, state):
        return state[1]

    def legal_moves(self, state):
        return list(range(1, min(self.take, state[0]) + 1))

    def apply(self, state, move):
        return (state[0] - move, 1 - state[1])

    def is_terminal(self, state):
        return state[0] == 0

    def utility(self, state, player):
        # The player to move at the end did not take the last match.
        return -1 if player == state[1] else 1

    def heuristic(self, state, player):
        # The player to move loses exactly when the pile is a multiple of take + 1.
        mover_wins = state[0] % (self.take + 1) != 0
        return 0.5 if (player == state[1]) == mover_wins else -0.5

    def render(self, state):
        left, player = state
        pile = "|" * left if left <= 60 else "|" * 60 + "..."
        return (
            f"{pile}\n{left} match{'es' if left != 1 else ''} left; take 1 to {self.take}, "
            f"taking the last wins\n{self.player_name(player)} to move"
        )

    def format_move(self, move):
        return str(move)

    def parse_move(self, text):
        t = text.strip()
        if not (t.isascii() and t.isdigit()) or int(t) < 1:
            raise self.bad_move_text(text, f"a number of matches from 1 (at most {self.take})")
        return int(t)
