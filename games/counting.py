"""Counting games: players alternately add 1, 2 or 3 to a counter that starts at 0.

Variant "21": the total may not pass 21, and whoever reaches 21 loses.
Variant "22": the game ends as soon as the counter reaches 20 or more. Reaching exactly
20 is a draw, 21 wins for the player who reached it, 22 wins double (utility 2).

State: ``(counter, player to move)``. Move: the amount added, an int 1..3, written ``"2"``.
"""

from __future__ import annotations

from arena import Game, param


class Counting(Game):
    name = "counting"
    description = "add 1 to 3 to a counter; '21': reaching 21 loses; '22': 20 draws, 21 wins, 22 wins double"
    bounds = (-1, 1)

    variant: str = param(
        "21", "'21': reaching 21 loses; '22': 20 draws, 21 wins, 22 wins double", choices=("21", "22")
    )

    def __init__(self, **params):
        super().__init__(**params)
        self._end = 21 if self.variant == "21" else 20
        if self.variant == "22":
            self.bounds = (-2, 2)
        # Exact values for the player to move, by backward induction over the few counters.
        value = [0] * 23
        for c in range(22, -1, -1):
            if c >= self._end:
                value[c] = self._mover_value(c)
            else:
                value[c] = max(-value[c + m] for m in self._moves(c))
        self._value = value

    def _moves(self, counter):
        top = 21 - counter if self.variant == "21" else 3
        return range(1, min(3, top) + 1)

    def _mover_value(self, counter):
        """Utility of a terminal counter for the player to move (who did not reach it)."""
        if self.variant == "21":
            return 1
        return -(counter - 20)  # 20: draw, 21: -1, 22: -2

    def initial_state(self):
        return (0, 0)

    def to_move(self, state):
        return state[1]

    def legal_moves(self, state):
        if state[0] >= self._end:
            return []
        return list(self._moves(state[0]))

    def apply(self, state, move):
        return (state[0] + move, 1 - state[1])

    def is_terminal(self, state):
        return state[0] >= self._end

    def utility(self, state, player):
        u = self._mover_value(state[0])
        return u if player == state[1] else -u

    def heuristic(self, state, player):
        # Half the exact game value: strictly inside the bounds in both variants.
        v = 0.5 * self._value[state[0]]
        return v if player == state[1] else -v

    def render(self, state):
        counter, player = state
        rule = "reaching 21 loses" if self.variant == "21" else "20 draws, 21 wins, 22 wins double"
        return f"counter: {counter}\nadd 1 to 3; {rule}\n{self.player_name(player)} to move"

    def result_text(self, state):
        text = super().result_text(state)
        return text + " double" if abs(self.utility(state, 0)) == 2 else text

    def format_move(self, move):
        return str(move)

    def parse_move(self, text):
        t = text.strip()
        if t not in ("1", "2", "3"):
            raise self.bad_move_text(text, "1, 2 or 3")
        return int(t)
