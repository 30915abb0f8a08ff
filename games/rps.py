"""Repeated Rock-Paper-Scissors: a match of ``throws`` throws, both seats choosing at once.

One throw has no best choice (the uniform mix is its only equilibrium, worth 0), so a match
of many throws is won by reading the other's patterns and hiding one's own, as in Kaggle's
Rock-Paper-Scissors contest (2020-21).

Scoring: a seat wins the match when it has won at least ``margin`` more throws than the other
(utility 1, the other -1), else the match is a draw (0); the default margin 1 is "whoever won
more throws". The utility is the match's outcome, not the lead in throws, because that is what
the contest ranked by and what the arena's points and ratings count: a scaled lead would let
one lopsided match against a weak bot outweigh several narrow losses. ``rps:throws=999,margin=20``
is the contest's match (kaggle-environments, envs/rps/rps.json: 999 throws, reward -1, 0 or 1,
a draw below a lead of 20).

Nothing is hidden: after each throw both choices are shown (``Model(simultaneous=True)``).
State: the throws made so far as one string, two letters a throw (seat 0's, then seat 1's),
e.g. ``"RSPP"``; it never holds a choice of the throw being made. Moves: ``"R"``, ``"P"``, ``"S"``.
"""

from __future__ import annotations

from arena import JOINT, Game, Model, param

SIGNS = ("R", "P", "S")
_NAMES = {"rock": "R", "paper": "P", "scissors": "S"}
_BEATS = frozenset({"RS", "PR", "SP"})  # the first letter beats the second
_BOTH = (0, 1)


class RockPaperScissors(Game):
    name = "rps"
    description = "Rock-Paper-Scissors over many throws, both choosing at once: win more throws than the other"
    bounds = (-1, 1)
    model = Model(simultaneous=True)

    throws: int = param(100, "throws in a match", min=1, max=10_000)
    margin: int = param(1, "throws a seat must win more than the other to win the match (else a draw)", min=1)

    def __init__(self, **params):
        super().__init__(**params)
        if self.margin > self.throws:
            raise self.bad_parameter("margin", f"at most the {self.throws} throws of the match")
        self._end = 2 * self.throws

    def initial_state(self):
        return ""

    def to_move(self, state):
        return JOINT

    def acting(self, state):
        return _BOTH

    def legal_moves(self, state):
        return ()  # no seat ever moves alone

    def legal_moves_for(self, state, seat):
        return SIGNS if len(state) < self._end else ()

    def apply_joint(self, state, moves):
        first, second = moves
        return state + first + second

    def is_terminal(self, state):
        return len(state) >= self._end

    def utility(self, state, player):
        lead = self.lead(state)
        won = 1 if lead >= self.margin else -1 if -lead >= self.margin else 0
        return won if player == 0 else -won

    def lead(self, state) -> int:
        """Throws seat 0 has won minus those seat 1 has won."""
        wins, losses, _ = _tally(state)
        return wins - losses

    def information_key(self, state, seat):
        return state  # both seats have seen every throw

    def render(self, state):
        wins, losses, draws = _tally(state)
        done = len(state) // 2
        return (f"after {done} of {self.throws} throws: first has won {wins}, second {losses}, {draws} drawn\n"
                f"first  {state[0::2] or '-'}\nsecond {state[1::2] or '-'}")

    def result_text(self, state):
        wins, losses, draws = _tally(state)
        score = f"{wins}-{losses} in throws ({draws} drawn)"
        u = self.utility(state, 0)
        if u:
            return f"{self.player_name(0 if u > 0 else 1)} wins, {score}"
        if wins != losses:
            return f"draw, {score}: a lead below the margin of {self.margin}"
        return f"draw, {score}"

    def format_move(self, move):
        return move

    def parse_move(self, text):
        word = text.strip().lower()
        sign = _NAMES.get(word) or (word.upper() if word in ("r", "p", "s") else None)
        if sign is None:
            raise self.bad_move_text(text, "R, P or S (rock, paper, scissors)")
        return sign


def _tally(state: str) -> tuple[int, int, int]:
    """Throws won by seat 0, won by seat 1, drawn."""
    wins = losses = 0
    for i in range(0, len(state), 2):
        pair = state[i:i + 2]
        if pair in _BEATS:
            wins += 1
        elif pair[0] != pair[1]:
            losses += 1
    return wins, losses, len(state) // 2 - wins - losses
