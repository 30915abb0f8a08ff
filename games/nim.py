"""Nim.

Several heaps of objects. A move takes one or more objects from a single heap. Under
normal play whoever takes the last object wins; under misère play whoever takes the last
object loses.

With ``players`` above 2 (normal play only) the seats take turns in order and whoever takes
the last object wins: utility 1 for the winner, 0 for the others (``model.total`` 1).

State: ``(heaps, player to move, objects left)``, ``heaps`` a tuple of ints.
Move: ``(heap index from 0, count)``, written ``"2:3"`` for "take 3 from heap 2" (heaps
are numbered from 1 in text).
"""

from __future__ import annotations

import re

from arena import Game, param
from arena.game import Model

_MOVE = re.compile(r"([0-9]+)\s*:\s*([0-9]+)")
_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")


class Nim(Game):
    name = "nim"
    description = "take objects from one heap; whoever takes the last one wins (or loses, misère)"
    bounds = (-1, 1)

    heaps: tuple[int, ...] = param((3, 4, 5), "heap sizes", min=0)
    misere: bool = param(False, "whoever takes the last object loses")
    players: int = param(2, "number of players, taking turns (above 2: normal play only)", min=2, max=8)

    def __init__(self, **params):
        super().__init__(**params)
        if not self.heaps:
            raise self.bad_parameter("heaps", "give at least one heap")
        if not any(self.heaps):
            raise self.bad_parameter("heaps", "at least one heap must be non-empty (all empty is a finished game)")
        if self.players > 2:  # two players keep the class's model, bounds and rules exactly
            if self.misere:
                raise self.bad_parameter("players", "misère play is for two players only")
            self.model = Model(players=self.players, total=1.0)
            self.bounds = (0.0, 1.0)

    def initial_state(self):
        return (self.heaps, 0, sum(self.heaps))

    def to_move(self, state):
        return state[1]

    def legal_moves(self, state):
        return [(i, n) for i, h in enumerate(state[0]) for n in range(1, h + 1)]

    def apply(self, state, move):
        heaps, player, left = state
        i, n = move
        return (heaps[:i] + (heaps[i] - n,) + heaps[i + 1 :], (player + 1) % self.players, left - n)

    def is_terminal(self, state):
        return state[2] == 0

    def utility(self, state, player):
        if self.players > 2:  # the seat before the one to move took the last object
            return 1.0 if (player + 1) % self.players == state[1] else 0.0
        # At the end the player to move did not take the last object.
        mover_wins = self.misere
        return 1 if (player == state[1]) == mover_wins else -1

    def heuristic(self, state, player):
        heaps = state[0]
        if self.players > 2:  # one heap left: the mover takes it; else no theory, an even split
            if sum(1 for h in heaps if h) == 1:
                return 0.9 if player == state[1] else 0.1 / (self.players - 1)
            return 1.0 / self.players
        # Bouton's theory (misère: play as normal until only heaps of 0 or 1 remain).
        if self.misere and max(heaps) <= 1:
            mover_wins = sum(heaps) % 2 == 0
        else:
            x = 0
            for h in heaps:
                x ^= h
            mover_wins = x != 0
        return 0.5 if (player == state[1]) == mover_wins else -0.5

    def render(self, state):
        heaps, player, _ = state
        width = len(str(len(heaps)))
        lines = [
            f"heap {i:>{width}}: {h:>3} " + ("|" * h if h <= 40 else "|" * 40 + "...")
            for i, h in enumerate(heaps, 1)
        ]
        rule = "misère: taking the last object loses" if self.misere else "taking the last object wins"
        lines.append(f"{rule}; {self.player_name(player)} to move")
        return "\n".join(lines)

    def player_name(self, player):
        return _ORDINALS[player]

    def result_text(self, state):
        if self.players == 2:
            return super().result_text(state)
        return f"{self.player_name((state[1] - 1) % self.players)} wins"

    def format_move(self, move):
        return f"{move[0] + 1}:{move[1]}"

    def parse_move(self, text):
        m = _MOVE.fullmatch(text.strip())
        if not m or int(m.group(1)) < 1 or int(m.group(2)) < 1:
            raise self.bad_move_text(text, "HEAP:COUNT with both numbers from 1, e.g. '2:3'")
        return (int(m.group(1)) - 1, int(m.group(2)))
