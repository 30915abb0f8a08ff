"""Round-robin: every pair of bots meets, each game of a pairing's round with colours swapped;
in a game of more seats, every table of the field meets (``arena.seating``)."""

from __future__ import annotations

from dataclasses import dataclass

from arena.formats.base import Format
from arena.seating import tables


@dataclass(frozen=True)
class RoundRobin(Format):
    """Every pair of bots plays ``games_per_pairing`` games, half with each moving first."""

    name = "round-robin"

    def pairings(self, bots, challengers):
        n = len(bots)
        return [(i, j) for i in range(n) for j in range(i + 1, n)]

    def tables(self, bots, challengers, seats):
        return tables(len(bots), seats)
