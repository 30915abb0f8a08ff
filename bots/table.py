"""A size-limited transposition table for the negamax core."""

from __future__ import annotations

EXACT, LOWER, UPPER = 0, 1, 2
#: Depth recorded for a value that no depth limit touched: it holds at any depth.
SOLVED = 1 << 30


class Table:
    """Search results by position key:
    ``entries[key] = (depth, bound, value, move, generation, plan, state)``.

    ``plan`` is what the game's ``tactics`` said of the position (or None), kept so that a
    position searched again is not analysed again. ``state`` is the position stored: with a
    symmetry-reduced key, an image of it shares the entry's value but not its move or plan.

    A dict, so making one costs nothing and a lookup is one hash probe; the full key is
    the dict key, so two positions are never confused. Replacement: within one search an
    entry is replaced only by one at least as deep; an entry from an earlier search
    (``generation``) is always replaced. When the table holds ``size`` entries, room is
    made by dropping every entry of earlier searches, or if that frees less than a
    quarter of the table, the shallower half.
    """

    __slots__ = ("entries", "size", "generation")

    def __init__(self, size: int = 1 << 18):
        if size < 1:
            raise ValueError(f"table size must be at least 1, got {size}")
        self.size = size
        self.entries: dict = {}
        self.generation = 0

    def new_search(self) -> None:
        """Mark what is stored so far as older than what comes next."""
        self.generation += 1

    def clear(self) -> None:
        self.entries.clear()
        self.generation = 0

    def make_room(self) -> None:
        """Drop entries until at most three quarters of ``size`` remain."""
        entries, generation = self.entries, self.generation
        keep = {k: e for k, e in entries.items() if e[4] == generation}
        if len(keep) > self.size * 3 // 4:
            ranked = sorted(keep.items(), key=lambda item: item[1][0], reverse=True)
            keep = dict(ranked[: self.size // 2])
        entries.clear()
        entries.update(keep)

    def __len__(self) -> int:
        return len(self.entries)
