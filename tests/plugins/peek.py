"""``peek``, a small game of joint moves and hidden information for tests/test_hidden_show.py: each
seat is dealt a hidden card, both bid at once, then the first shows or folds. Its cards are words
no other text holds, so a test finds any leak of a hidden card by looking for the word. ``first``
plays the first legal move of whatever it is handed.
"""

from __future__ import annotations

from fractions import Fraction

from arena import Bot, Game, hookimpl
from arena.game import CHANCE, JOINT, Model

CARDS = ("Jack", "Queen", "King")
BIDS = ("hi", "lo")
ENDS = ("show", "fold")


class Peek(Game):
    """A card each (hidden), a bid at once (hi or lo), then the first seat shows or folds."""

    name = "peek"
    description = "a test game: a hidden card each, a bid at once, then show or fold"
    model = Model(chance=True, simultaneous=True, hidden=True)
    bounds = (-2, 2)

    def initial_state(self):
        return ((), (), None)  # cards dealt, the bids, the first seat's last word

    def to_move(self, state):
        cards, bids, _ = state
        return CHANCE if len(cards) < 2 else JOINT if not bids else 0

    def chance_outcomes(self, state):
        left = [c for c in CARDS if c not in state[0]]
        return [(c, Fraction(1, len(left))) for c in left]

    def acting(self, state):
        return (0, 1)

    def legal_moves_for(self, state, seat):
        return BIDS if self.to_move(state) == JOINT else self.legal_moves(state)

    def legal_moves(self, state):
        return ENDS

    def apply(self, state, move):
        cards, bids, end = state
        return (cards + (move,), bids, end) if len(cards) < 2 else (cards, bids, move)

    def apply_joint(self, state, moves):
        return (state[0], tuple(moves), None)

    def is_terminal(self, state):
        return state[2] is not None

    def utility(self, state, player):
        cards, bids, end = state
        if end == "fold":
            first = -1
        else:
            first = (1 if CARDS.index(cards[0]) > CARDS.index(cards[1]) else -1) * (2 if bids == ("hi", "hi") else 1)
        return first if player == 0 else -first

    def observation(self, state, seat):
        cards, bids, end = state
        lines = [f"you hold {cards[seat]}" if len(cards) > seat else "no card yet"]
        if bids:
            lines.append("bids " + " ".join(bids))
        if end == "show":
            lines.append("shown " + " ".join(cards))
        return "\n".join(lines)

    def render(self, state):
        cards, bids, end = state
        return f"cards {' '.join(cards) or '-'}\nbids {' '.join(bids) or '-'}\n{end or 'playing'}"

    def format_move(self, move):
        return move

    def parse_move(self, text):
        if text in CARDS + BIDS + ENDS:
            return text
        raise self.bad_move_text(text, "a card, hi, lo, show or fold")


class First(Bot):
    """Plays the first legal move of whatever it is handed."""

    name = "first"
    description = "the first legal move (a test bot)"
    handles = frozenset({"chance", "simultaneous", "hidden"})

    def choose(self, game, view, budget):
        return view.legal[0] if hasattr(view, "legal") else game.legal_moves(view)[0]


@hookimpl
def register_games(register):
    register(Peek)


@hookimpl
def register_bots(register):
    register(First)
