"""A fixed-size transposition table for the negamax core."""

from __future__ import annotations

EXACT, LOWER, UPPER = 0, 1, 2
#: Depth recorded for a value that no depth limit touched: it holds at any depth.
SOLVED = 1 << 30


class Table:
    """Search results by position: ``slots[hash(key) % size]`` holds one entry.

    An entry is ``(key, depth, bound, value, move, generation)``. The full key is kept, so
    two positions sharing a slot are never confused. Replacement keeps the deeper of two
    entries from the same search and always replaces an entry from an earlier one.
    """

    __slots__ = ("slots", "size", "generation")

    def __init__(self, size: int = 1 << 18):
        if size < 1:
            raise ValueError(f"table size must be at least 1, got {size}")
        self.size = size
        self.slots: list = [None] * size
        self.generation = 0

    def new_search(self) -> None:
        """Mark what is stored so far as older than what comes next."""
        self.generation += 1

    def clear(self) -> None:
        self.slots = [None] * self.size
        self.generation = 0

    def __len__(self) -> int:
        return sum(entry is not None for entry in self.slots)
