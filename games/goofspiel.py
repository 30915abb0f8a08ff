"""Goofspiel (the game of pure strategy), as OpenSpiel's ``goofspiel`` plays it by default.

Each seat holds the cards 1 to ``cards``; a prize deck holds the same. Each turn a prize card
is turned up (a chance node, every remaining card alike; or in a fixed ``order``), both seats
bid a card of their hand at once, and the higher bid takes the prize's points; equal bids
discard it. Bid cards are spent and shown to both (OpenSpiel's imp_info=False). When each
seat holds one card the last turn is forced and played at once, as OpenSpiel does. Utility:
1 to the seat with more points, -1 to the other, 0 on equal points (OpenSpiel's win_loss).

State: ``(prize, hand0, hand1, deck, points0, points1)``: the prize card up (0 while it is
being turned), the hands and the prize cards left as bit sets (bit v for card v), so that
turns played in another order that leave the same cards and points give the same state.
Moves: a bid, the card's value (``"7"``); a prize card turned up is written the same way.
"""

from __future__ import annotations

from arena import CHANCE, JOINT, Game, Model, param

_BOTH = (0, 1)


class Goofspiel(Game):
    name = "goofspiel"
    description = "bid a card of your hand at once for each prize card; the higher bid takes it; most points wins"
    bounds = (-1, 1)
    model = Model(simultaneous=True, chance=True)
    """The default's model (random order); an instance with a fixed order has no chance."""

    cards: int = param(13, "cards in each hand and in the prize deck (valued 1 to cards)", min=2, max=52)
    order: str = param("random", "the order the prize cards are turned up", choices=("random", "descending", "ascending"))

    def __init__(self, **params):
        super().__init__(**params)
        self._random = self.order == "random"
        if not self._random:
            self.model = Model(simultaneous=True)
        self._all = ((1 << self.cards) - 1) << 1  # bits 1..cards

    def initial_state(self):
        state = (0, self._all, self._all, self._all, 0, 0)
        return state if self._random else self._turn_up(state)

    def _turn_up(self, state):
        """The next prize card of a fixed order turned up."""
        deck = state[3]
        prize = deck.bit_length() - 1 if self.order == "descending" else (deck & -deck).bit_length() - 1
        return (prize, state[1], state[2], deck & ~(1 << prize), state[4], state[5])

    def to_move(self, state):
        return JOINT if state[0] else CHANCE

    def acting(self, state):
        return _BOTH

    def legal_moves(self, state):
        return ()  # no seat ever moves alone

    def legal_moves_for(self, state, seat):
        if not state[0]:
            return ()
        return _cards(state[1 + seat])

    def chance_outcomes(self, state):
        prizes = _cards(state[3])
        share = 1.0 / len(prizes)
        return [(prize, share) for prize in prizes]

    def chance_seat(self, state, last):
        return 0  # every prize from seat 0's stream: the same prizes in a pair's games, whoever bids what

    def apply(self, state, move):
        if state[0]:
            raise ValueError("goofspiel: bids are made together, with apply_joint")
        return (move, state[1], state[2], state[3] & ~(1 << move), state[4], state[5])

    def apply_joint(self, state, moves):
        prize, hand0, hand1, deck, points0, points1 = state
        bid0, bid1 = moves
        if bid0 > bid1:
            points0 += prize
        elif bid1 > bid0:
            points1 += prize
        hand0 &= ~(1 << bid0)
        hand1 &= ~(1 << bid1)
        if hand0 & (hand0 - 1) == 0 and hand0:  # one card each: the last turn is forced
            last = deck.bit_length() - 1
            return self.apply_joint((last, hand0, hand1, 0, points0, points1),
                                    (hand0.bit_length() - 1, hand1.bit_length() - 1))
        after = (0, hand0, hand1, deck, points0, points1)
        return after if self._random or not hand0 else self._turn_up(after)

    def is_terminal(self, state):
        return not state[1]

    def utility(self, state, player):
        lead = state[4] - state[5]
        won = 1 if lead > 0 else -1 if lead < 0 else 0
        return won if player == 0 else -won

    def information_key(self, state, seat):
        return state  # both seats see everything but the bids being made

    def render(self, state):
        prize, hand0, hand1, deck, points0, points1 = state
        up = f"prize {prize} up" if prize else ("game over" if not hand0 else "a prize card is being turned up")
        return (f"{up}; points: first {points0}, second {points1}\n"
                f"prizes left: {_shown(deck)}\nfirst holds: {_shown(hand0)}\nsecond holds: {_shown(hand1)}")

    def result_text(self, state):
        u = self.utility(state, 0)
        points = f"{state[4]}-{state[5]} in points"
        return f"{self.player_name(0 if u > 0 else 1)} wins, {points}" if u else f"draw, {points}"

    def format_move(self, move):
        return str(move)

    def parse_move(self, text):
        text = text.strip()
        if text.isdigit() and 1 <= int(text) <= self.cards:
            return int(text)
        raise self.bad_move_text(text, f"a card from 1 to {self.cards}")


def _cards(bits: int) -> tuple[int, ...]:
    """The card values in a bit set, lowest first."""
    out = []
    while bits:
        low = bits & -bits
        out.append(low.bit_length() - 1)
        bits ^= low
    return tuple(out)


def _shown(bits: int) -> str:
    return " ".join(map(str, _cards(bits))) or "-"
