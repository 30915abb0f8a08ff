"""The referee's dice: chance outcomes drawn from keyed streams that no bot can foresee.

Every draw is BLAKE2b keyed with a secret (``key``, 32 bytes, kept with the tournament and
never sent to a bot) over the streams' context, the seat the event belongs to and the
draw's number in that seat's stream. Without the key a bot learns nothing of the next draw
from the draws it has seen; with it a resumed or replayed run draws exactly the same.

A pairing's colour-swapped games share a context (``pair_context``): the outcome of the
k-th event of seat 0's stream is the same in both, whichever bot sits there, so the luck
of each seat falls to each bot once and cancels over the pair; a table of more seats shares
one over each round's seatings (``table_context``). ``game_context`` gives each
game streams of its own instead (``--independent-chance``).

Bots' seeds in games with chance come from the same key, one way (``bot_seed``): unlike
``arena.referee.bot_seed``, whose mixing can be inverted, a seed says nothing of the key.

What the key does not stop: a bot in the referee's process can read its memory, and an
isolated bot outside the sandbox runs as the user and can read the results database, key
included. Only a sandboxed bot (bubblewrap) is kept from both.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass, field
from functools import lru_cache
from hashlib import blake2b
from typing import Sequence

KEY_BYTES = 32
_SCALE = float(1 << 53)


def new_key() -> bytes:
    """A fresh secret for a run's dice."""
    return secrets.token_bytes(KEY_BYTES)


def seed_key(seed: int) -> bytes:
    """The key of a game played alone with ``seed`` (``play_game`` without dice): reproducible
    from the seed, so foreseeable by whoever knows it. Tournaments keep a secret instead."""
    return blake2b(f"botarena dice of seed {seed}".encode(), digest_size=KEY_BYTES).digest()


def pair_context(first: str, second: str, round: int) -> str:
    """The streams both games of a pairing's round draw from, whoever moves first."""
    return table_context((first, second), round)


def table_context(names, round: int) -> str:
    """The streams every game of a table's round draws from, however the bots are seated: the
    k-th event of seat s falls the same in each, so each bot meets each seat's luck in turn."""
    return json.dumps(["pair", *sorted(names), round])


def game_context(*seated) -> str:
    """Streams of one game's own (independent chance): ``game_context(*names, round)``."""
    return json.dumps(["game", *seated])


@lru_cache(maxsize=1024)
def _context_hasher(key: bytes, context: str):
    """BLAKE2b keyed with ``key`` over ``context`` and its separator: what every draw of those streams starts with."""
    return blake2b(f"{context}\0".encode(), key=key, digest_size=8, person=b"chance")


def outcome_at(outcomes: Sequence[tuple[object, float]], u: float):
    """The outcome a uniform ``u`` in [0, 1) falls on, the outcomes laid end to end by probability."""
    total = 0.0
    for outcome, probability in outcomes:
        total += float(probability)
        if u < total:
            return outcome
    return outcomes[-1][0]  # u beyond a sum a rounding short of 1


@dataclass(frozen=True)
class Dice:
    """Where a game's chance outcomes come from: the run's key and the streams' context."""

    key: bytes = field(repr=False)
    context: str = ""

    def __post_init__(self):
        if not isinstance(self.key, bytes) or not 16 <= len(self.key) <= 64:
            raise ValueError("the dice's key is 16 to 64 bytes")

    def uniform(self, seat: int, number: int) -> float:
        """Draw ``number`` of ``seat``'s stream: a float in [0, 1), 53 bits of it used."""
        # the keyed hash of the context, copied and continued: the same bytes hashed as
        # blake2b(f"{context}\0{seat}\0{number}", key, person="chance"), in two thirds of the time
        hasher = _context_hasher(self.key, self.context).copy()
        hasher.update(f"{seat}\0{number}".encode())
        word = int.from_bytes(hasher.digest(), "big")
        return (word >> 11) / _SCALE  # 53 bits: exact as a float, and below 1

    def pick(self, outcomes: Sequence[tuple[object, float]], seat: int, number: int):
        """The outcome of draw ``number`` of ``seat``'s stream, each with its probability."""
        return outcome_at(outcomes, self.uniform(seat, number))

    def bot_seed(self, game_seed: int, seat: int) -> int:
        """The seed of the bot in ``seat`` of the game with ``game_seed``: 63 bits, one way."""
        data = f"{self.context}\0{game_seed}\0{seat}".encode()
        return int.from_bytes(blake2b(data, key=self.key, digest_size=8, person=b"bot seed").digest(), "big") >> 1
