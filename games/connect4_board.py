"""Connect Four's board geometry: the bitboard layout and the lines on it.

Bitboards follow Pascal Pons's layout (http://blog.gamesolver.org/solving-connect-four/06-bitboard/):
each column takes ``rows + 1`` bits, bit ``col * (rows + 1) + row`` with row 0 at the bottom;
the spare top bit of each column stays empty and stops lines from wrapping.
"""

from __future__ import annotations


class Board:
    """The masks and line tests of a columns x rows board with ``connect`` in a row to win.

    Built once per game; the rules (``games.connect4``), the search's threats
    (``games.connect4_threats``) and the symmetry key (``games.connect4_symmetry``) read it.
    """

    def __init__(self, columns: int, rows: int, connect: int):
        self.columns, self.rows, self.connect = columns, rows, connect
        self.height = h = rows + 1
        """Bits per column: the rows and a spare top bit."""
        self.cells = columns * rows
        self.bottom = tuple(1 << (c * h) for c in range(columns))
        """The bottom cell of each column."""
        self.top = tuple(1 << (c * h + rows - 1) for c in range(columns))
        """The top cell of each column."""
        self.top_row, self.bottom_row = sum(self.top), sum(self.bottom)
        self.column_masks = tuple(((1 << rows) - 1) << (col * h) for col in range(columns))
        self.full = sum(self.column_masks)
        """Every cell of the board (no spare bits)."""
        self.directions = (1, h, h - 1, h + 1)  # |, -, \, /
        # A run of n stones along direction d, shifted by s*d (s <= n) and ANDed with itself,
        # becomes a run of n + s. Up to connect 4 two shifts per direction suffice (a shift
        # of 0 is a no-op), which is the hot case; longer lines use repeated doubling.
        c = connect
        if c <= 4:
            self.pairs = tuple(x for d in self.directions for x in (d if c >= 2 else 0, d * (c - 2) if c >= 2 else 0))
        else:
            self.pairs = None
        steps, have = [], 1
        while have < c:
            steps.append(min(have, c - have))
            have += steps[-1]
        self.shifts = tuple(tuple(s * d for s in steps) for d in self.directions)
        """Per direction, the shifts whose ANDs turn a stone into a line of ``connect``."""
        self.windows = self._all_windows()
        # offsets of the other cells of a line, for each direction and place of the empty cell
        self._line_offsets = tuple(
            tuple(tuple((j - i) * d for j in range(c) if j != i) for i in range(c)) for d in self.directions
        )
        self._line_steps = (h, h - 1, h + 1)  # -, \, / (vertical lines are handled apart)
        self.centre_out = tuple(sorted(range(columns), key=lambda col: abs(2 * col - columns + 1)))
        """The columns from the centre outwards."""

    def _all_windows(self) -> tuple[int, ...]:
        """Bitmasks of every line of ``connect`` cells on the board."""
        h, n, out = self.height, self.connect, []
        for c in range(self.columns):
            for r in range(self.rows):
                for dc, dr in ((0, 1), (1, 0), (1, 1), (1, -1)):
                    ec, er = c + dc * (n - 1), r + dr * (n - 1)
                    if ec < self.columns and 0 <= er < self.rows:
                        out.append(sum(1 << ((c + dc * i) * h + r + dr * i) for i in range(n)))
        return tuple(dict.fromkeys(out))

    def has_line(self, bits: int) -> bool:
        """True if ``bits`` hold ``connect`` stones in a row (the general, slower test)."""
        for shifts in self.shifts:
            m = bits
            for s in shifts:
                m &= m >> s
            if m:
                return True
        return False

    def playable(self, mask: int) -> int:
        """The cells a stone can drop into, given all stones ``mask``."""
        return (mask + self.bottom_row) & self.full

    def columns_of(self, cells: int) -> list[int]:
        """The columns holding any of ``cells``, from the centre outwards."""
        column_masks = self.column_masks
        return [col for col in self.centre_out if cells & column_masks[col]]

    def winning_cells(self, stones: int, mask: int) -> int:
        """Empty cells (playable or not) that would complete a line for ``stones``."""
        if self.connect == 4:
            return self.winning_cells4(stones, mask)
        out = 0
        for offsets_by_place in self._line_offsets:
            for offsets in offsets_by_place:
                acc = self.full
                for s in offsets:
                    acc &= (stones >> s) if s > 0 else (stones << -s)
                out |= acc
        return out & self.full & ~mask

    def winning_cells4(self, p: int, mask: int, full: int | None = None) -> int:
        """``winning_cells`` for lines of four, with a fixed set of shifts (Pascal Pons's
        compute_winning_position, http://blog.gamesolver.org/solving-connect-four/09-anticipate-losing-moves/).

        ``full`` replaces the board's cells, for boards laid side by side in one int.
        """
        d, e, f = self._line_steps
        r = (p << 1) & (p << 2) & (p << 3)  # vertical: three stones below the cell
        q = (p << d) & (p << 2 * d)  # then -, \ and / with the cell at each place in the line
        r |= q & ((p << 3 * d) | (p >> d))
        q = (p >> d) & (p >> 2 * d)
        r |= q & ((p << d) | (p >> 3 * d))
        q = (p << e) & (p << 2 * e)
        r |= q & ((p << 3 * e) | (p >> e))
        q = (p >> e) & (p >> 2 * e)
        r |= q & ((p << e) | (p >> 3 * e))
        q = (p << f) & (p << 2 * f)
        r |= q & ((p << 3 * f) | (p >> f))
        q = (p >> f) & (p >> 2 * f)
        r |= q & ((p << f) | (p >> 3 * f))
        return r & ((self.full if full is None else full) ^ mask)
