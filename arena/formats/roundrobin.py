"""Round-robin: every pair of bots meets, each game of a pairing's round with colours swapped."""

from __future__ import annotations

from dataclasses import dataclass

from arena.formats.base import Format


@dataclass(frozen=True)
class RoundRobin(Format):
    """Every pair of bots plays ``games_per_pairing`` games, half with each moving first."""

    name = "round-robin"

    def pairings(self, bots, challengers):
        n = len(bots)
        return [(i, j) for i in range(n) for j in range(i + 1, n)]
