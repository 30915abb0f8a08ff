"""Gauntlet: the challengers play every other bot of the field, not each other, nor the field
itself; in a game of more seats, each challenger sits at a table with every set of others."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

from arena.errors import ParameterError
from arena.formats.base import Format, Setting


@dataclass(frozen=True)
class Gauntlet(Format):
    """Each challenger plays every bot that is not one, ``games_per_pairing`` games a pairing."""

    challengers: tuple[str, ...] = ()
    """Display names of the challengers, among the tournament's bots."""

    name = "gauntlet"
    settings = (
        Setting("challengers", "texts", [], "gauntlet challenger (repeat; default {default})", flag="--challenger",
                metavar="NAME", stored=("challengers",), grows=True),
    )

    @classmethod
    def misplaced(cls, keys: list[str]) -> str:
        return "challengers are only for the gauntlet format"

    @classmethod
    def build(cls, values: dict) -> "Gauntlet":
        v = values.get("challengers") or []
        if not isinstance(v, (list, tuple)) or not all(isinstance(x, str) for x in v):
            raise ParameterError(f"challengers must be a list of names, got {v!r}")
        return cls(tuple(x.strip() for x in v))

    def stored(self) -> dict:
        return {"challengers": list(self.challengers)}

    def check(self, config) -> None:
        names = [e.name for e in config.bots]
        unknown = [c for c in self.challengers if c not in names]
        if not self.challengers or unknown:
            raise ParameterError(
                f"a gauntlet needs challengers among the bots ({', '.join(names)}); got {list(self.challengers)}"
            )
        if len(self.challengers) == len(names):
            raise ParameterError("a gauntlet needs at least one bot that is not a challenger")

    def pairings(self, bots, challengers):
        chosen = [i for i, b in enumerate(bots) if b in challengers]
        return [(c, f) for c in chosen for f in range(len(bots)) if f not in chosen]

    def tables(self, bots, challengers, seats):
        chosen = [i for i, b in enumerate(bots) if b in challengers]
        field = [i for i in range(len(bots)) if i not in chosen]
        return [(c, *others) for c in chosen for others in combinations(field, seats - 1)]
