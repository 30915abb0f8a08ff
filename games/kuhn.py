"""Kuhn poker (H. W. Kuhn, "A simplified two-person poker", Contributions to the Theory of
Games I, 1950): three cards, two seats, one card each, one round of betting.

Each seat antes 1 and is dealt one of J, Q, K. Seat 0 acts first: pass (check) or bet 1.
After a check seat 1 may check (showdown for 1) or bet; facing a bet a seat passes (folds,
losing its stake) or bets (calls, showdown for 2). The higher card wins the showdown.
Utility: chips won, -2 to 2. The game's value is -1/18 for seat 0 (Kuhn 1950).

Hidden information (``Model(hidden=True)``): a seat sees its own card and every action, not
the other's card. Each card is drawn from the stream of the seat it is dealt to
(``chance_seat``), so the two games of a pair with seats swapped deal the same cards to the
same seats. The rules are OpenSpiel's ``kuhn_poker`` (its actions 0 pass, 1 bet; cards 0-2 J-K).

State: one string, the cards dealt (seat 0's, then seat 1's) then the actions, e.g. ``"KQpb"``.
Moves: ``"p"`` (pass: check or fold) and ``"b"`` (bet: bet or call); the deals ``"J"``, ``"Q"``, ``"K"``.
Information key: ``(card, actions)``, e.g. ``("J", "pb")``, once both cards are dealt
(``(card, cards dealt)`` while they are; the other's card is added at a showdown).
"""

from __future__ import annotations

from arena import CHANCE, Game, Model

CARDS = "JQK"
MOVES = ("p", "b")
_ENDS = {"pp": 1, "bp": 1, "bb": 2, "pbp": 1, "pbb": 2}  # the stake at each end
_FOLDED = {"bp": 1, "pbp": 0}  # who folded, where someone did
_WORDS = {"pass": "p", "check": "p", "fold": "p", "bet": "b", "call": "b"}


class KuhnPoker(Game):
    name = "kuhn_poker"
    description = "three-card poker (Kuhn 1950): ante 1, one card each, pass or bet 1; higher card wins"
    bounds = (-2, 2)
    model = Model(chance=True, hidden=True)

    def initial_state(self):
        return ""

    def to_move(self, state):
        n = len(state)
        return CHANCE if n < 2 else n & 1

    def legal_moves(self, state):
        return MOVES if len(state) >= 2 and state[2:] not in _ENDS else ()

    def chance_outcomes(self, state):
        left = [c for c in CARDS if c not in state]
        share = 1.0 / len(left)
        return [(c, share) for c in left]

    def chance_seat(self, state, last):
        return len(state)  # the seat the card is dealt to

    def apply(self, state, move):
        return state + move

    def is_terminal(self, state):
        return state[2:] in _ENDS

    def utility(self, state, player):
        actions = state[2:]
        stake = _ENDS[actions]
        folded = _FOLDED.get(actions)
        if folded is None:
            won = stake if CARDS.index(state[0]) > CARDS.index(state[1]) else -stake
        else:
            won = stake if folded == 1 else -stake
        return won if player == 0 else -won

    def observation(self, state, seat):
        card = state[seat] if len(state) > seat else None
        lines = [f"You are {self.player_name(seat)} and hold {card}." if card else
                 f"You are {self.player_name(seat)} and have no card yet."]
        if len(state) >= 2:
            actions = state[2:]
            lines.append(f"Play: {_play(actions)}." if actions else "Play: nothing yet.")
            first, second = _pot(actions)
            lines.append(f"Pot {first + second}: first {first}, second {second}.")
            if self.is_terminal(state) and actions not in _FOLDED:
                lines.append(f"Showdown: {self.player_name(1 - seat)} holds {state[1 - seat]}.")
        return "\n".join(lines)

    def information_key(self, state, seat):
        card = state[seat] if len(state) > seat else ""
        if len(state) < 2:
            return (card, len(state))
        actions = state[2:]
        if actions in _ENDS and actions not in _FOLDED:
            return (card, actions, state[1 - seat])
        return (card, actions)

    def sample_state(self, view, rng):
        """A deal consistent with the view, the other's card uniform among the cards left: the
        chance probabilities only. A bet or a pass tells something of the other's card in a
        real opponent's hands; weighting by such a policy is the sampling bot's business."""
        key, seat = view.key, view.seat
        card = key[0]
        dealt = key[1] if len(key) == 2 and isinstance(key[1], int) else 2
        actions = "" if dealt < 2 else key[1]
        if len(key) == 3:  # a showdown: nothing is hidden any more
            return (card + key[2] if seat == 0 else key[2] + card) + actions
        left = [c for c in CARDS if c != card]
        cards = "".join(card if i == seat else left.pop(rng.randrange(len(left))) for i in range(dealt))
        return cards + actions

    def render(self, state):
        if len(state) < 2:
            return f"dealing: {'first holds ' + state if state else 'no cards yet'}"
        text = f"first holds {state[0]}, second holds {state[1]}; "
        actions = state[2:]
        return text + (f"{_play(actions)}" if actions else "no bets yet")

    def result_text(self, state):
        u = self.utility(state, 0)
        winner, loser = (0, 1) if u > 0 else (1, 0)
        how = "folds" if state[2:] in _FOLDED else f"shows {state[loser]} against {state[winner]}"
        return f"{self.player_name(winner)} wins {abs(u)}: {self.player_name(loser)} {how}"

    def format_move(self, move):
        return move

    def parse_move(self, text):
        word = text.strip()
        low, up = word.lower(), word.upper()
        if low in MOVES or low in _WORDS:
            return _WORDS.get(low, low)
        if up in CARDS and len(up) == 1:
            return up
        raise self.bad_move_text(text, "p (pass, check or fold) or b (bet or call); a deal: J, Q or K")

def _play(actions: str) -> str:
    """The actions in words: "first checks, second bets, first folds"."""
    words = []
    for i, a in enumerate(actions):
        facing = i > 0 and actions[i - 1] == "b"
        verb = ("calls" if facing else "bets") if a == "b" else ("folds" if facing else "checks")
        words.append(f"{('first', 'second')[i & 1]} {verb}")
    return ", ".join(words)


def _pot(actions: str) -> tuple[int, int]:
    """What each seat has put in: the ante, and 1 for each bet or call."""
    stakes = [1, 1]
    for i, a in enumerate(actions):
        if a == "b":
            stakes[i & 1] = 2
    return stakes[0], stakes[1]
