"""Leduc hold'em (Southey et al., "Bayes' Bluff: Opponent Modelling in Poker", UAI 2005), as
OpenSpiel's ``leduc_poker`` plays it with two seats.

Six cards: J, Q, K in two suits (spades and hearts). Each seat antes 1 and is dealt one card;
a betting round follows, then one public card is turned up and a second round follows. In a
round seat 0 acts first; a seat may fold (only facing a raise), call (check when nothing is
owed) or raise (at most two raises a round; a raise is 2 in the first round, 4 in the second).
A round ends when a raise is called or both check. At the showdown a private card that pairs
the public card wins, else the higher rank; equal ranks split the pot. Utility: chips won,
-13 to 13.

Hidden information (``Model(hidden=True)``): a seat sees its card, the public card and every
action. Each private card is drawn from the stream of the seat it is dealt to, the public card
from seat 0's, so the games of a pair with seats swapped deal alike (``chance_seat``).

State: ``(cards, first, second)``: the cards dealt (seat 0's, seat 1's, the public card) as
OpenSpiel numbers them (0 J spades, 1 J hearts, 2 Q spades, ... 5 K hearts; rank = card // 2)
and each round's actions as a string, e.g. ``((4, 1, 3), "rc", "cr")``. Moves: ``"f"``, ``"c"``,
``"r"``; cards ``"Js"``, ``"Jh"``, ... ``"Kh"``. Information key: ``(card, public card or "",
first round, second round)``, e.g. ``("Ks", "Qh", "rc", "c")`` (``(card, cards dealt)`` during
the deal; the other's card is added at a showdown).
"""

from __future__ import annotations

from arena import CHANCE, Game, Model

CARD_TEXTS = ("Js", "Jh", "Qs", "Qh", "Ks", "Kh")
_CARD = {t.lower(): c for c, t in enumerate(CARD_TEXTS)}
_WORDS = {"f": "f", "fold": "f", "c": "c", "call": "c", "check": "c", "r": "r", "raise": "r", "bet": "r"}
_RAISES = (2, 4)  # a raise in the first round, in the second
_SEATS = ("first", "second")


class LeducPoker(Game):
    name = "leduc_poker"
    description = "six-card hold'em (Leduc): one private and one public card, two betting rounds; a pair wins"
    bounds = (-13, 13)
    model = Model(chance=True, hidden=True)

    def initial_state(self):
        return ((), "", "")

    def to_move(self, state):
        cards, first, second = state
        n = len(cards)
        if n < 2 or n == 2 and _closed(first):
            return CHANCE
        return len(second if n == 3 else first) & 1

    def legal_moves(self, state):
        cards, first, second = state
        n = len(cards)
        if n < 2 or n == 2 and _closed(first) or self.is_terminal(state):
            return ()
        actions = second if n == 3 else first
        raises = actions.count("r")
        if actions.endswith("r"):
            return ("f", "c", "r") if raises < 2 else ("f", "c")
        return ("c", "r")

    def chance_outcomes(self, state):
        cards = state[0]
        share = 1.0 / (6 - len(cards))
        return [(c, share) for c in range(6) if c not in cards]

    def chance_seat(self, state, last):
        n = len(state[0])
        return n if n < 2 else 0  # a private card: its seat's stream; the public card: seat 0's

    def apply(self, state, move):
        cards, first, second = state
        if type(move) is int:
            return (cards + (move,), first, second)
        if len(cards) == 3:
            return (cards, first, second + move)
        return (cards, first + move, second)

    def is_terminal(self, state):
        first, second = state[1], state[2]
        return first.endswith("f") or second.endswith("f") or _closed(second)

    def utility(self, state, player):
        cards, first, second = state
        stakes, folded = _stakes(first, second)
        if folded is not None:
            won = stakes[1] if folded == 1 else -stakes[0]
        else:
            mine, theirs = _strength(cards[0], cards[2]), _strength(cards[1], cards[2])
            won = stakes[0] if mine > theirs else -stakes[0] if mine < theirs else 0
        return won if player == 0 else -won

    def public_text(self, state, move):
        if type(move) is int:
            return CARD_TEXTS[move] if len(state[0]) == 2 else "?"  # the public card is public
        return move

    def observation(self, state, seat):
        cards, first, second = state
        lines = [f"You are {_SEATS[seat]} and hold {CARD_TEXTS[cards[seat]]}." if len(cards) > seat else
                 f"You are {_SEATS[seat]} and have no card yet."]
        if len(cards) >= 2:
            lines.append(f"Public card: {CARD_TEXTS[cards[2]]}." if len(cards) == 3 else "Public card: not yet turned up.")
            lines.append(f"Round 1: {_play(first)}.")
            if len(cards) == 3:
                lines.append(f"Round 2: {_play(second)}.")
            stakes, folded = _stakes(first, second)
            lines.append(f"Pot {sum(stakes)}: first {stakes[0]}, second {stakes[1]}.")
            if folded is None and self.is_terminal(state):
                lines.append(f"Showdown: {_SEATS[1 - seat]} holds {CARD_TEXTS[cards[1 - seat]]}.")
        return "\n".join(lines)

    def information_key(self, state, seat):
        cards, first, second = state
        if len(cards) < 2:
            return (CARD_TEXTS[cards[seat]] if len(cards) > seat else "", len(cards))
        key = (CARD_TEXTS[cards[seat]], CARD_TEXTS[cards[2]] if len(cards) == 3 else "", first, second)
        if _closed(second) and not second.endswith("f"):
            return key + (CARD_TEXTS[cards[1 - seat]],)
        return key

    def sample_state(self, view, rng):
        """A deal consistent with the view, the other's card uniform among the cards neither
        held nor public: the chance probabilities only, not weighted by how the other's play
        would have differed with each card (that is the sampling bot's business)."""
        key, seat = view.key, view.seat
        if len(key) == 2:  # during the deal
            mine, dealt = (_CARD[key[0].lower()] if key[0] else None), key[1]
            left = [c for c in range(6) if c != mine]
            return (tuple(mine if i == seat else left.pop(rng.randrange(len(left))) for i in range(dealt)), "", "")
        mine, public = _CARD[key[0].lower()], _CARD[key[1].lower()] if key[1] else None
        if len(key) == 5:  # a showdown: nothing is hidden any more
            other = _CARD[key[4].lower()]
        else:
            left = [c for c in range(6) if c != mine and c != public]
            other = left[rng.randrange(len(left))]
        cards = (mine, other) if seat == 0 else (other, mine)
        return (cards + (() if public is None else (public,)), key[2], key[3])

    def render(self, state):
        cards, first, second = state
        if len(cards) < 2:
            return "dealing: " + (f"first holds {CARD_TEXTS[cards[0]]}" if cards else "no cards yet")
        out = [f"first holds {CARD_TEXTS[cards[0]]}, second holds {CARD_TEXTS[cards[1]]}",
               f"round 1: {_play(first)}"]
        if len(cards) == 3:
            out.append(f"public card {CARD_TEXTS[cards[2]]}; round 2: {_play(second)}")
        return "\n".join(out)

    def result_text(self, state):
        u = self.utility(state, 0)
        _, folded = _stakes(state[1], state[2])
        if not u:
            return "draw: equal hands split the pot"
        winner, loser = (0, 1) if u > 0 else (1, 0)
        if folded is not None:
            return f"{_SEATS[winner]} wins {abs(u)}: {_SEATS[loser]} folds"
        cards = state[0]
        return (f"{_SEATS[winner]} wins {abs(u)} at the showdown: {CARD_TEXTS[cards[winner]]} against "
                f"{CARD_TEXTS[cards[loser]]}, public card {CARD_TEXTS[cards[2]]}")

    def format_move(self, move):
        return CARD_TEXTS[move] if type(move) is int else move

    def parse_move(self, text):
        word = text.strip().lower()
        if word in _WORDS:
            return _WORDS[word]
        if word in _CARD:
            return _CARD[word]
        raise self.bad_move_text(text, "f (fold), c (call or check) or r (raise); a card: Js, Jh, Qs, Qh, Ks or Kh")


def _closed(actions: str) -> bool:
    """Whether a round's betting is over: a call of a raise, two checks, or a fold."""
    return len(actions) >= 2 and actions[-1] == "c" or actions.endswith("f")


def _stakes(first: str, second: str) -> tuple[list[int], int | None]:
    """What each seat has put in, and the seat that folded (None: none did)."""
    stakes, level = [1, 1], 1
    for actions, size in ((first, _RAISES[0]), (second, _RAISES[1])):
        for i, a in enumerate(actions):
            if a == "f":
                return stakes, i & 1
            if a == "r":
                level += size
            stakes[i & 1] = level
    return stakes, None


def _strength(card: int, public: int) -> int:
    """A hand's rank at the showdown: a pair above every rank."""
    rank = card >> 1
    return rank + 3 if rank == public >> 1 else rank


def _play(actions: str) -> str:
    """A round's actions in words: "first checks, second bets, first calls"."""
    if not actions:
        return "nothing yet"
    words, raised = [], False
    for i, a in enumerate(actions):
        if a == "r":
            verb, raised = ("raises" if raised else "bets"), True
        else:
            verb = "folds" if a == "f" else "calls" if raised else "checks"
        words.append(f"{_SEATS[i & 1]} {verb}")
    return ", ".join(words)
