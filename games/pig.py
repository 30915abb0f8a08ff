"""Pig, the dice game (Neller and Presser, "Optimal Play of the Dice Game Pig", UMAP Journal
25(1), 2004).

Each turn a player rolls a die as often as it likes. A 1 ends the turn and loses the turn's
total; any other face adds to it. Holding banks the turn's total and passes the die. The
first to bank ``goal`` points wins; a player whose turn total reaches the goal can only hold
(as in Neller and Presser's analysis, which ends the game there).

State: ``(player, own score, other's score, turn total, rolling)``, the scores those of the
player on turn and of the other; ``rolling`` is True while the die is in the air (a chance
node). Moves: ``"roll"``, ``"hold"``; outcomes: the faces ``1`` to ``die``, written as
digits. A state recurs when both players roll a 1 (or hold at 0) in turn, so the game tree
has cycles; a random playout still ends with probability 1.
"""

from __future__ import annotations

from arena import CHANCE, Game, Model, param

ROLL, HOLD = "roll", "hold"


class Pig(Game):
    name = "pig"
    description = "roll a die as often as you dare: a 1 loses the turn's points; first to the goal wins"
    bounds = (-1, 1)
    model = Model(chance=True)

    goal: int = param(100, "points that win", min=1)
    die: int = param(6, "faces of the die", min=2)

    def initial_state(self):
        return (0, 0, 0, 0, False)

    def to_move(self, state):
        return CHANCE if state[4] else state[0]

    def legal_moves(self, state):
        if state[4] or self.is_terminal(state):
            return []
        if state[1] + state[3] >= self.goal:  # holding wins: rolling on could only lose it (and the states would never end)
            return [HOLD]
        return [ROLL, HOLD]

    def chance_outcomes(self, state):
        share = 1.0 / self.die
        return [(face, share) for face in range(1, self.die + 1)]

    def apply(self, state, move):
        player, own, other, turn, rolling = state
        if rolling:
            if move == 1:  # the turn's points are lost and the die passes
                return (1 - player, other, own, 0, False)
            return (player, own, other, turn + move, False)
        if move == ROLL:
            return (player, own, other, turn, True)
        return (1 - player, other, own + turn, 0, False)  # hold: bank and pass

    def is_terminal(self, state):
        return state[2] >= self.goal  # only a hold ends the game: the winner just passed the die

    def utility(self, state, player):
        winner = 1 - state[0]
        return 1.0 if player == winner else -1.0

    def heuristic(self, state, player):
        """The lead, the turn's points counted as banked, over the goal; where the die is in
        the air, the mean over its faces. One ply on, this is "hold at 20" (with a six-sided
        die, rolling is worth more while the turn holds less than 20 points)."""
        mover, own, other, turn, rolling = state
        if rolling:  # a 1 loses the turn's points; face f adds f to them (written out: no apply to count)
            value = (_lead(own, other, 0, self.goal) + sum(_lead(own, other, turn + f, self.goal)
                                                           for f in range(2, self.die + 1))) / self.die
        else:
            value = _lead(own, other, turn, self.goal)
        return value if player == mover else -value

    def chance_seat(self, state, last):
        return state[0]  # the die belongs to the player whose turn it is

    def render(self, state):
        player, own, other, turn, rolling = state
        scores = (own, other) if player == 0 else (other, own)
        line = f"scores {scores[0]}-{scores[1]} (goal {self.goal}); player {player + 1}'s turn, {turn} this turn"
        return line + (", the die is rolling" if rolling else "")

    def format_move(self, move):
        return str(move)

    def parse_move(self, text):
        text = text.strip().lower()
        if text in (ROLL, HOLD):
            return text
        if text.isdigit() and 1 <= int(text) <= self.die:
            return int(text)
        raise self.bad_move_text(text, f"roll, hold, or a face from 1 to {self.die}")


def _lead(own: int, other: int, turn: int, goal: int) -> float:
    """The heuristic for the player on turn: 0.9 times the lead, turn points banked, over the goal, within -0.9..0.9."""
    return 0.9 * max(-1.0, min(1.0, (own + turn - other) / goal))
