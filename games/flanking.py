"""Bitboard kernels of the outflanking games, Othello (games/othello.py) and Rolit
(games/rolit.py): placements that capture, squares next to a piece, and the pieces a
placement flips.

A board of side n (4, 6 or 8) is a Python int of n * n bits, square ``row * n + column``,
row 0 at the top. ``own`` is the mover's pieces, ``other`` every piece it may outflank: the
opponent's in Othello, in Rolit the pieces of all other colours, neutral ones included.
"""

from __future__ import annotations


class FlankBoard:
    """Masks and kernels for one board size; built once per game, read on every ply."""

    def __init__(self, size: int):
        n = self.size = size
        self.cells = n * n
        self.full = (1 << self.cells) - 1
        col0 = sum(1 << (r * n) for r in range(n))
        self.not_left = self.full & ~col0  # squares with a neighbour to their left
        self.not_right = self.full & ~(col0 << (n - 1))
        inner = self.not_left & self.not_right  # neither edge column
        # (shift, mask of pieces that can be outflanked along that axis): a run along a row
        # or diagonal may not touch an edge column, or a shift would wrap to the next row.
        self.axes = ((1, inner), (n - 1, inner), (n, self.full), (n + 1, inner))
        self.corners = 1 | 1 << (n - 1) | 1 << (self.cells - n) | 1 << (self.cells - 1)

    def captures(self, own: int, other: int) -> int:
        """Empty squares where the owner of ``own`` outflanks pieces of ``other``: a fill in
        8 directions by shifts and masks."""
        moves = 0
        for d, mask in self.axes:
            p = other & mask
            left = p & (own << d)
            left |= p & (left << d)
            right = p & (own >> d)
            right |= p & (right >> d)
            # Runs are now found 2 deep; each step over pairs adds 2 more, and 6 is the
            # longest run on 8x8 (the extra steps are harmless on smaller boards).
            pl = p & (p << d)
            pr = p & (p >> d)
            d2 = d + d
            left |= pl & (left << d2)
            right |= pr & (right >> d2)
            left |= pl & (left << d2)
            right |= pr & (right >> d2)
            moves |= (left << d) | (right >> d)
        return moves & ~(own | other) & self.full

    def around(self, occupied: int) -> int:
        """Empty squares next to a piece (8-neighbourhood): spread along rows, then columns."""
        row = occupied | (occupied & self.not_right) << 1 | (occupied & self.not_left) >> 1
        return (row | row << self.size | row >> self.size) & self.full & ~occupied

    def flips(self, bit: int, own: int, other: int) -> int:
        """Pieces of ``other`` flipped by placing ``bit``: along each of the 8 rays, the run
        of ``other`` pieces up to the first piece of ``own``."""
        flips = 0
        for d, mask in self.axes:
            p = other & mask
            x = (bit << d) & p
            if x:
                line = x
                x <<= d
                while x & p:
                    line |= x
                    x <<= d
                if x & own:
                    flips |= line
            x = (bit >> d) & p
            if x:
                line = x
                x >>= d
                while x & p:
                    line |= x
                    x >>= d
                if x & own:
                    flips |= line
        return flips
