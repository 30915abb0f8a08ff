"""Two small games made to show a leak: whatever a seat must not know is text no one could
come upon by accident, so a bot that finds it anywhere has found a hole.

``secret``: two chance draws make the game's public number (its nonce), a third deals the
first seat one of ``cards`` cards; the first seat sees the card as its token, ``SECRET-``
and 32 hex digits hashed from the salt, the nonce and the card, and holds; the second seat,
which sees the nonce only, guesses the card (1 if right, -1 if wrong): right by chance
once in ``cards``. Nothing else in the game writes a token, so one found anywhere is the
dealt card's.

``duel``: two chance draws make the nonce (shown to both), then ``throws`` throws made at
once, each a sign of ``signs`` (three: rock, paper, scissors). A throw is written with the
nonce and the throw's number ("s02.00ab.3"), so a seat that finds the text of the other's
throw of this turn anywhere has read a choice the referee had not yet revealed.
"""

from __future__ import annotations

import re
from hashlib import blake2b

from arena import CHANCE, JOINT, Game, Model, param

NONCE_DRAWS = 2  # draws of a byte each: 65,536 games' numbers
HOLD = "hold"
TOKEN = re.compile(r"SECRET-([0-9a-f]{32})")
"""A card's token as it appears in text; the hex digits are its group."""


def token(salt: str, nonce: int, card: int) -> str:
    """The text of ``card`` in the game numbered ``nonce``: one of 16^32, no accident."""
    return "SECRET-" + blake2b(f"{salt}:{nonce}:{card}".encode(), digest_size=16).hexdigest()


def nonce_of(draws: tuple) -> int | None:
    """The game's number once its draws are made, else None."""
    if len(draws) < NONCE_DRAWS:
        return None
    value = 0
    for byte in draws:
        value = value * 256 + byte
    return value


def _draw(state_draws: tuple):
    return [(("n", b), 1 / 256) for b in range(256)] if len(state_draws) < NONCE_DRAWS else None


class Secret(Game):
    """State: ``(draws, card, token, held, guess)``; ``card``/``token`` None until dealt."""

    name = "secret"
    description = "a card dealt to the first seat, hidden from the second, who guesses it (a test of leaks)"
    bounds = (-1, 1)
    model = Model(chance=True, hidden=True)

    salt: str = param("botarena", "mixed into every card's token")
    cards: int = param(256, "cards in the deck: a guess is right by chance once in so many", min=2, max=256)

    def initial_state(self):
        return ((), None, None, False, None)

    def to_move(self, state):
        draws, card, _, held, guess = state
        if len(draws) < NONCE_DRAWS or card is None:
            return CHANCE
        return 0 if not held else 1

    def chance_outcomes(self, state):
        draws = state[0]
        return _draw(draws) or [(("c", c), 1 / self.cards) for c in range(self.cards)]

    def legal_moves(self, state):
        if self.is_terminal(state) or self.to_move(state) == CHANCE:
            return []
        return [HOLD] if not state[3] else [("g", c) for c in range(self.cards)]

    def apply(self, state, move):
        draws, card, text, held, guess = state
        if move[0] == "n":
            return (draws + (move[1],), card, text, held, guess)
        if move[0] == "c":
            return (draws, move[1], token(self.salt, nonce_of(draws), move[1]), held, guess)
        if move == HOLD:
            return (draws, card, text, True, guess)
        return (draws, card, text, held, move[1])

    def is_terminal(self, state):
        return state[4] is not None

    def utility(self, state, player):
        right = 1.0 if state[4] == state[1] else -1.0
        return right if player == 1 else -right

    def observation(self, state, seat):
        draws, card, text, held, guess = state
        nonce = nonce_of(draws)
        lines = [] if nonce is None else [f"game {nonce:04x}"]
        if card is not None:
            lines.append(f"card {text}" if seat == 0 else "card ?")
        if held:
            lines.append("held")
        if guess is not None:
            lines.append(f"guessed {guess:02x}")
        return "\n".join(lines)

    def public_text(self, state, move):
        if move[0] == "c":
            return "?"
        return self.format_move(move)

    def render(self, state):
        draws, card, text, held, guess = state
        return f"draws {list(draws)}, card {card} ({text}), held {held}, guess {guess}"

    def format_move(self, move):
        if move == HOLD:
            return HOLD
        kind, value = move
        return f"{kind}{value:02x}"

    def parse_move(self, text):
        text = text.strip()
        try:
            if text == HOLD:
                return HOLD
            if text[:1] in ("n", "c", "g") and len(text) == 3:
                return (text[0], int(text[1:], 16))
        except ValueError:
            pass
        raise self.bad_move_text(text, "hold, a guess g00 to gff, a draw n00 to nff or a card c00 to cff")


class Duel(Game):
    """State: ``(draws, turn, lead)``, ``lead`` the first seat's throws won less the second's.

    A throw is one of ``signs`` signs, ``s00`` up; each beats the one before it, cyclically
    (three signs: rock, paper, scissors), and ties with the others. With many signs a throw
    beats the other's by chance only once in so many."""

    name = "duel"
    description = "signs thrown at once, each beating the one before it, written with the game's number (a test of leaks)"
    bounds = (-1, 1)
    model = Model(chance=True, simultaneous=True)

    throws: int = param(8, "throws in a game", min=1)
    signs: int = param(3, "signs to throw", min=2, max=256)

    def initial_state(self):
        return ((), 0, 0)

    def to_move(self, state):
        return CHANCE if len(state[0]) < NONCE_DRAWS else JOINT

    def chance_outcomes(self, state):
        return _draw(state[0])

    def acting(self, state):
        return (0, 1)

    def legal_moves(self, state):
        if self.is_terminal(state) or self.to_move(state) == CHANCE:
            return []
        return list(range(self.signs))

    def beats(self, sign: int) -> int:
        """The sign that beats ``sign``."""
        return (sign + 1) % self.signs

    def apply(self, state, move):
        draws, turn, lead = state
        return (draws + (move[1],), turn, lead)

    def apply_joint(self, state, moves):
        draws, turn, lead = state
        first, second = moves
        lead += 1 if self.beats(second) == first else -1 if self.beats(first) == second else 0
        return (draws, turn + 1, lead)

    def is_terminal(self, state):
        return state[1] >= self.throws

    def utility(self, state, player):
        lead = state[2]
        value = (lead > 0) - (lead < 0)
        return float(value if player == 0 else -value)

    def move_text(self, state, move):
        if isinstance(move, tuple):
            return f"n{move[1]:02x}"
        return f"s{move:02x}.{nonce_of(state[0]):04x}.{state[1]}"

    def parse_move_in(self, state, text):
        move = self.parse_move(text)
        if not isinstance(move, tuple) and text != self.move_text(state, move):
            raise self.bad_move_text(text, f"a throw of this turn, as {self.move_text(state, 0)!r}")
        return move

    def format_move(self, move):
        return f"n{move[1]:02x}" if isinstance(move, tuple) else f"s{move:02x}"

    def parse_move(self, text):
        text = text.strip()
        try:
            if text[:1] == "n" and len(text) == 3:
                return ("n", int(text[1:], 16))
            if text[:1] == "s" and len(text.split(".", 1)[0]) == 3:
                return int(text[1:3], 16)
        except ValueError:
            pass
        raise self.bad_move_text(text, "a sign s00 to sff (with the game's number and the throw's)")
