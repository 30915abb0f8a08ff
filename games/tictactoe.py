"""Tic-tac-toe and its m,n,k generalisation.

Rules: two players, X (moves first) and O, take turns putting one of their stones on an
empty cell of a board with ``rows`` rows and ``columns`` columns. The first player to have
``k`` stones in an unbroken line (horizontal, vertical or diagonal) wins at once; if the
board fills up first, the game is a draw. The defaults (3, 3, 3) give tic-tac-toe.

States are ``(x_bits, o_bits, status)``: bit ``i`` of a bitboard is cell ``i``, numbered
row-major from the top-left; ``status`` is 0 while playing, 1 if X won, 2 if O won, 3 for a
draw. A move is a cell index, written as a column letter and a row number counted from the
top ("a1" is the top-left cell); the 1-based cell number ("1".."9" on 3x3) is also read.
"""

from __future__ import annotations

from operator import or_

from arena import Game, param
from games.bitboard import open_lines, squares
from games.svg import grid

MAX_CELLS = 64
#: Boards up to this size get symmetry-reduced keys (a memo of every position seen).
MAX_SYMMETRIC_CELLS = 16
_PLAYING, _X_WON, _O_WON, _DRAW = 0, 1, 2, 3
_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def _mark(x: float, y: float, letter: str) -> str:
    """A cross or a ring centred at (x, y), tagged with its letter; nothing on an empty cell."""
    if letter == "X":
        return (f'<path d="M{x - 0.3:g} {y - 0.3:g}l0.6 0.6m0 -0.6l-0.6 0.6" stroke="#0072b2" stroke-width="0.1"'
                ' data-piece="X"/>')
    if letter == "O":
        return (f'<circle cx="{x:g}" cy="{y:g}" r="0.3" fill="none" stroke="#d55e00" stroke-width="0.1"'
                ' data-piece="O"/>')
    return ""


class TicTacToe(Game):
    """The m,n,k-game: k in a row on a rows x columns board."""

    name = "tictactoe"
    description = "k in a row on an m x n board (3x3, k=3 is tic-tac-toe)"
    bounds = (-1, 1)

    rows: int = param(3, "number of rows", min=1, max=MAX_CELLS)
    columns: int = param(3, "number of columns", min=1, max=len(_LETTERS))
    k: int = param(3, "stones in a row needed to win", min=1)

    def __init__(self, **params):
        super().__init__(**params)
        if self.rows * self.columns > MAX_CELLS:
            raise self.bad_parameter("rows", f"rows * columns must be at most {MAX_CELLS}")
        if self.k > max(self.rows, self.columns):
            raise self.bad_parameter("k", "must be at most max(rows, columns)")
        self._cells = n = self.rows * self.columns
        self._full = (1 << n) - 1
        self._windows = self._all_windows()
        # For each cell, the windows through it: a win can only use the stone just placed.
        self._through = tuple(tuple(w for w in self._windows if w >> c & 1) for c in range(n))
        most = max(len(t) for t in self._through) + 1
        self._place = tuple(len(t) / most for t in self._through)  # in [0, 1): lines through a cell
        self._by_place = tuple(sorted(range(n), key=lambda c: -self._place[c]))
        self._symmetries = self._cell_symmetries() if n <= MAX_SYMMETRIC_CELLS else ()
        self._keys: dict = {}  # state -> canonical key, for small boards
        self._bit_images: dict = {}  # bitboard -> its images under the symmetries
        # _chunk_images[i][v]: the images of the cells 4i..4i+3 set as in v, per symmetry
        self._chunk_images = tuple(
            tuple(self._cells_images([4 * i + j for j in range(4) if v >> j & 1 and 4 * i + j < n]) for v in range(16))
            for i in range((n + 3) // 4)
        )

    def _cell_symmetries(self) -> tuple[tuple[int, ...], ...]:
        """The board's symmetries other than the identity, as cell permutations."""
        rows, cols = self.rows, self.columns
        maps = [lambda r, c: (r, cols - 1 - c), lambda r, c: (rows - 1 - r, c), lambda r, c: (rows - 1 - r, cols - 1 - c)]
        if rows == cols:
            maps += [lambda r, c: (c, r), lambda r, c: (cols - 1 - c, rows - 1 - r),
                     lambda r, c: (c, rows - 1 - r), lambda r, c: (cols - 1 - c, r)]
        perms = []
        for f in maps:
            perm = tuple(r * cols + c for r, c in (f(*divmod(i, cols)) for i in range(rows * cols)))
            if perm not in perms:
                perms.append(perm)
        return tuple(perms)

    def _all_windows(self) -> tuple[int, ...]:
        """Bitmasks of every line of k cells on the board."""
        rows, cols, k = self.rows, self.columns, self.k
        out = []
        for r in range(rows):
            for c in range(cols):
                for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                    er, ec = r + dr * (k - 1), c + dc * (k - 1)
                    if 0 <= er < rows and 0 <= ec < cols:
                        mask = 0
                        for i in range(k):
                            mask |= 1 << ((r + dr * i) * cols + c + dc * i)
                        out.append(mask)
        return tuple(dict.fromkeys(out))  # k == 1 gives each cell four times

    def initial_state(self):
        return (0, 0, _PLAYING)

    def to_move(self, state) -> int:
        return 0 if state[0].bit_count() == state[1].bit_count() else 1

    def legal_moves(self, state):
        x, o, status = state
        if status:
            return []
        return squares(self._full & ~(x | o))

    def apply(self, state, move):
        x, o, _ = state
        bit = 1 << move
        if x.bit_count() == o.bit_count():
            x |= bit
            mine, won = x, _X_WON
        else:
            o |= bit
            mine, won = o, _O_WON
        for w in self._through[move]:
            if mine & w == w:
                return (x, o, won)
        return (x, o, _DRAW if (x | o) == self._full else _PLAYING)

    def is_terminal(self, state) -> bool:
        return state[2] != _PLAYING

    def key(self, state):
        """The same key for positions equal up to a rotation or reflection (boards up to 4x4)."""
        if not self._symmetries:
            return state
        key = self._keys.get(state)
        if key is None:
            x, o, status = state
            key = state
            for xi, oi in zip(self._images(x), self._images(o)):
                if (xi, oi) < key[:2]:
                    key = (xi, oi, status)
            self._keys[state] = key
        return key

    def _cells_images(self, cells: list[int]) -> tuple[int, ...]:
        """The bitboard of ``cells`` under each of the board's symmetries."""
        return tuple(sum(1 << perm[c] for c in cells) for perm in self._symmetries)

    def _images(self, bits: int) -> tuple[int, ...]:
        """``bits`` under each of the board's symmetries (memoised: few bitboards recur)."""
        images = self._bit_images.get(bits)
        if images is None:
            # the images of each 4-cell slice are tabled; a board's are their OR
            chunks = self._chunk_images
            images = chunks[0][bits & 15]
            for i in range(1, len(chunks)):
                images = tuple(map(or_, images, chunks[i][bits >> (4 * i) & 15]))
            self._bit_images[bits] = images
        return images

    def tactics(self, state, rank: bool = True) -> tuple[float, float, list | None]:
        """One ply of look-ahead for the search: ``(floor, ceiling, moves)``.

        A win at once, or two cells where the opponent would win, settles the value; one
        such cell must be blocked. Otherwise every empty cell is searched, cells on many
        lines first (``rank`` changes nothing: the order is fixed). With at most two empty
        cells and no win at once, the game is drawn.
        """
        x, o, _ = state
        mine, theirs = (x, o) if x.bit_count() == o.bit_count() else (o, x)
        empty = self._full & ~(x | o)
        if self._winning_cells(mine, theirs) & empty:
            return (1, 1, None)
        threats = self._winning_cells(theirs, mine) & empty
        if threats & (threats - 1):
            return (-1, -1, None)
        if threats:
            moves = [threats.bit_length() - 1]
        else:
            moves = [c for c in self._by_place if empty >> c & 1]
        if empty.bit_count() <= 2:
            return (0, 0, moves)
        return (-1, 1, moves)

    def _winning_cells(self, mine: int, theirs: int) -> int:
        """Cells that would complete a line for ``mine`` (occupied ones included)."""
        out, short = 0, self.k - 1
        for w in self._windows:
            if not theirs & w and (mine & w).bit_count() == short:
                out |= w & ~mine
        return out

    def move_priorities(self, state, moves) -> list[float]:
        """Wins at once (3), then blocks of the opponent's wins (2), then cells on many lines (<1)."""
        x, o, _ = state
        mine, theirs = (x, o) if x.bit_count() == o.bit_count() else (o, x)
        wins, blocks, place = self._winning_cells(mine, theirs), self._winning_cells(theirs, mine), self._place
        return [3.0 if wins >> c & 1 else 2.0 if blocks >> c & 1 else place[c] for c in moves]

    def utility(self, state, player: int) -> float:
        status = state[2]
        if status == _X_WON:
            return 1 if player == 0 else -1
        if status == _O_WON:
            return -1 if player == 0 else 1
        return 0

    def heuristic(self, state, player: int) -> float:
        """Stones in lines still open to their owner, X's minus O's, scaled into (-0.9, 0.9)."""
        value = open_lines(state[0], state[1], self._windows, self.k)
        return value if player == 0 else -value

    def player_name(self, player: int) -> str:
        return "XO"[player]

    def pieces(self, state) -> list[str]:
        """"X", "O" or "." per cell, row-major from the top-left."""
        x, o, _ = state
        return ["X" if x >> c & 1 else "O" if o >> c & 1 else "." for c in range(self._cells)]

    def render(self, state) -> str:
        _, _, status = state
        width, cells, n = len(str(self.rows)), self.pieces(state), self.columns
        lines = [" " * width + "  " + " ".join(_LETTERS[:n])]
        for r in range(self.rows):
            lines.append(f"{r + 1:>{width}}  " + " ".join(cells[r * n : (r + 1) * n]))
        if status:
            lines.append(self.result_text(state))
        else:
            lines.append(f"{self.player_name(self.to_move(state))} to move")
        return "\n".join(lines)

    def svg(self, state) -> str:
        """Blue crosses (X) and orange rings (O) on a ruled board, coordinates as moves are written."""
        return grid(self.pieces(state), self.columns, _mark, board="#ffffff", lines="#444444",
                    column_labels=_LETTERS[: self.columns], row_labels=[str(r + 1) for r in range(self.rows)],
                    title="tic-tac-toe board")

    def format_move(self, move) -> str:
        r, c = divmod(move, self.columns)
        return f"{_LETTERS[c]}{r + 1}"

    def parse_move(self, text: str):
        t = text.strip().lower()
        expected = (
            f"a column letter a-{_LETTERS[self.columns - 1]} and a row number 1-{self.rows} "
            f"(e.g. 'a1' top-left), or a cell number 1-{self._cells}"
        )
        if t.isdigit() and t.isascii():
            cell = int(t) - 1
            if 0 <= cell < self._cells:
                return cell
        elif len(t) >= 2 and t[0] in _LETTERS and t[1:].isdigit() and t[1:].isascii():
            c, r = _LETTERS.index(t[0]), int(t[1:]) - 1
            if c < self.columns and 0 <= r < self.rows:
                return r * self.columns + c
        raise self.bad_move_text(text, expected)
