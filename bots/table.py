"""A size-limited transposition table for the negamax core, and the bots that keep one."""

from __future__ import annotations

from operator import itemgetter
from typing import NamedTuple

EXACT, LOWER, UPPER = 0, 1, 2
#: Depth recorded for a value that no depth limit touched: it holds at any depth.
SOLVED = 1 << 30


class Entry(NamedTuple):
    """What the table knows of one position.

    The search core stores entries as plain tuples in this field order and unpacks them
    into these names (building an ``Entry`` costs about 0.15-0.3 µs more a store);
    ``Entry._make`` names one for other readers.
    """

    depth: int
    """Plies searched below the position (``SOLVED``: no depth limit touched the value)."""
    bound: int
    """EXACT, LOWER (the value is at least ``value``) or UPPER (at most)."""
    value: float
    """The value for the player to move."""
    move: object
    """The best move found, or None."""
    generation: int
    """The search (``Table.generation``) that stored it."""
    plan: tuple | None
    """What the game's ``tactics`` said of the position, kept so that a position searched
    again is not analysed again (or None)."""
    state: object
    """The position stored: with a symmetry-reduced key, an image of it shares the
    entry's value but not its move or plan."""


_depth_of = itemgetter(Entry._fields.index("depth"))
_generation_of = itemgetter(Entry._fields.index("generation"))


class Table:
    """Search results by position key: ``entries[key]`` holds an ``Entry``'s fields.

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
        keep = {k: e for k, e in entries.items() if _generation_of(e) == generation}
        if len(keep) > self.size * 3 // 4:
            ranked = sorted(keep.items(), key=lambda item: _depth_of(item[1]), reverse=True)
            keep = dict(ranked[: self.size // 2])
        entries.clear()
        entries.update(keep)

    def __len__(self) -> int:
        return len(self.entries)


class TableOwner:
    """A bot that may keep a transposition table from move to move within a game."""

    table: bool
    table_size: int
    _table: Table | None = None

    def new_game(self, game, player, seed):
        super().new_game(game, player, seed)
        self._table = None  # positions of another game are no use

    def transposition_table(self) -> Table | None:
        if not self.table:
            return None
        if self._table is None:
            self._table = Table(self.table_size)
        return self._table
