"""How a report shows ratings (``--anchor``, ``--los``): a small value, read from the command
line before any game, so it imports no table library."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from arena.errors import ParameterError


@dataclass(frozen=True)
class View:
    """How a report shows ratings: bots held at a fixed Elo (``anchors``: (bot, Elo) pairs;
    none: mean 0), and how many of the best-rated bots the superiority table shows."""

    anchors: tuple[tuple[str, float], ...] = ()
    top: int = 10

    @classmethod
    def parse(cls, anchors: Sequence[str] = (), top: int = 10) -> "View":
        """From ``BOT=ELO`` texts (``--anchor``); ParameterError names a malformed one."""
        pairs = []
        for text in anchors:
            bot, sep, value = text.rpartition("=")
            try:
                elo = float(value)
            except ValueError:
                elo = math.nan
            if not sep or not bot or not math.isfinite(elo):
                raise ParameterError(f"--anchor takes BOT=ELO (e.g. random=0), not {text!r}")
            if bot in dict(pairs):
                raise ParameterError(f"--anchor {bot} is given twice")
            pairs.append((bot, elo))
        if top < 0 or top == 1:
            raise ParameterError(f"--los takes 0 (no table) or a number of bots from 2, not {top}")
        return cls(tuple(pairs), top)
