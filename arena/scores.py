"""Centipawns and the game's utility units, one curve both ways.

A bot's score (``MoveRecord.score``) is in its game's utility units, within the bounds.
Chess engines speak centipawns; the ``uci`` bot maps them into the bounds through Lichess's
win-probability curve (https://lichess.org/page/accuracy), and adjudication and PGN comments
read scores back through the same curve, for every game alike. The bounds themselves are a
proven result (a mate), past any centipawn value.
"""

from __future__ import annotations

import math

#: Lichess's win-probability slope per centipawn: 2 / (1 + exp(-K * cp)) - 1 maps centipawns into (-1, 1).
LICHESS_K = 0.00368208
#: How close to a bound a centipawn score may come: the bounds stay a mate's.
MOST_SHARE = 0.999


def from_centipawns(cp: float, low: float, high: float) -> float:
    """A centipawn score in utility units, strictly inside the bounds ``(low, high)``."""
    middle, half = (low + high) / 2, (high - low) / 2
    share = math.tanh(LICHESS_K * cp / 2)  # = 2 / (1 + exp(-K * cp)) - 1, without overflow at huge cp
    return middle + half * max(-MOST_SHARE, min(MOST_SHARE, share))


def to_centipawns(score: float, low: float, high: float) -> float:
    """A score in utility units as centipawns; a score at (or past) a bound is a mate: +-inf."""
    middle, half = (low + high) / 2, (high - low) / 2
    share = (score - middle) / half
    if share >= 1:
        return math.inf
    if share <= -1:
        return -math.inf
    return 2 * math.atanh(share) / LICHESS_K
