"""Connect Four, with configurable board size and line length.

Rules: two players, X (moves first) and O, take turns dropping a stone into one of
``columns`` vertical columns of ``rows`` cells; it falls to the lowest empty cell, and a
full column cannot be played. The first player with ``connect`` stones in an unbroken
horizontal, vertical or diagonal line wins at once; if the board fills up first, the game
is a draw. The defaults (7 columns, 6 rows, connect 4) are the standard game.

Bitboards follow Pascal Pons's layout (http://blog.gamesolver.org/solving-connect-four/06-bitboard/):
each column takes ``rows + 1`` bits, bit ``col * (rows + 1) + row`` with row 0 at the bottom;
the spare top bit of each column stays empty and stops lines from wrapping. A state is
``(stones of the player to move, mask of all stones, moves played, status)`` with status
0 while playing, 1 if the player who moved last has won, 2 for a draw. A move is a column
index from 0, written as the 1-based column number ("1".."7"), as in Pons's test files.
"""

from __future__ import annotations


from arena import Game, param
from games.bitboard import open_lines

MAX_SIDE = 16
_PLAYING, _WON, _DRAW = 0, 1, 2


class ConnectFour(Game):
    """Connect Four on a columns x rows board, ``connect`` in a row to win."""

    name = "connect4"
    description = "drop stones into columns; the first to line up 4 (connect) in a row wins"
    bounds = (-1, 1)

    columns: int = param(7, "number of columns", min=1, max=MAX_SIDE)
    rows: int = param(6, "number of rows", min=1, max=MAX_SIDE)
    connect: int = param(4, "stones in a row needed to win", min=1)
    scoring: str = param(
        "win",
        "utility: 'win' (1 for a win) or 'moves' (Pascal Pons's score: a win with fewer stones scores more)",
        choices=("win", "moves"),
    )

    def __init__(self, **params):
        super().__init__(**params)
        if self.connect > max(self.rows, self.columns):
            raise self.bad_parameter("connect", "must be at most max(rows, columns)")
        h = self.rows + 1
        self._cells = self.columns * self.rows
        # 'moves' scoring: a win with the winner's k-th stone scores (most stones + 1) - k,
        # which is 22 - k on 7x6 (blog.gamesolver.org, part 2); nobody wins before k = connect
        self._score_base = (self._cells + 1) // 2 + 1
        base, plies = self._score_base, range(self._cells + 1)
        if self.scoring == "moves":
            top = max(1, base - self.connect)
            self.bounds = (-top, top)
            # by moves played: the mover's value if it wins with its next stone (or the one
            # after), and if the opponent wins with its next stone (or the one after)
            self._win_next = tuple(base - (m // 2 + 1) for m in plies)
            self._win_later = tuple(base - (m // 2 + 2) for m in plies)
            self._loss_next = tuple(-(base - ((m + 1) // 2 + 1)) for m in plies)
            self._loss_later = tuple(-(base - ((m + 1) // 2 + 2)) for m in plies)
        else:
            self.value_bounds = None  # a win scores 1 whenever it comes: no bounds beyond ``bounds``
            self._win_next = self._win_later = (1,) * len(plies)
            self._loss_next = self._loss_later = (-1,) * len(plies)
        self._bottom = tuple(1 << (c * h) for c in range(self.columns))
        self._top = tuple(1 << (c * h + self.rows - 1) for c in range(self.columns))
        self._top_row = sum(self._top)
        self._legal = {}  # top-row occupancy -> legal columns, filled lazily
        # A run of n stones along direction d, shifted by s*d (s <= n) and ANDed with itself,
        # becomes a run of n + s. Up to connect 4 two shifts per direction suffice (a shift
        # of 0 is a no-op), which is the hot case; longer lines use repeated doubling.
        dirs = (1, h, h - 1, h + 1)  # |, -, \, /
        c = self.connect
        if c <= 4:
            self._pairs = tuple(x for d in dirs for x in (d if c >= 2 else 0, d * (c - 2) if c >= 2 else 0))
        else:
            self._pairs = None
        steps, have = [], 1
        while have < c:
            steps.append(min(have, c - have))
            have += steps[-1]
        self._shifts = tuple(tuple(s * d for s in steps) for d in dirs)
        # no line is possible before this move, and the board is not full before it either
        self._first_win = min(2 * self.connect - 1, self._cells)
        self._windows = self._all_windows()
        self._column_masks = tuple(((1 << self.rows) - 1) << (col * h) for col in range(self.columns))
        self._board = sum(self._column_masks)
        self._bottom_row = sum(self._bottom)
        centre = (self.columns - 1) / 2
        self._centre = tuple(1 - abs(col - centre) / (centre + 1) for col in range(self.columns))  # in (0, 1]
        # offsets of the other cells of a line, for each direction and place of the empty cell
        self._line_offsets = tuple(
            tuple(tuple((j - i) * d for j in range(c) if j != i) for i in range(c)) for d in dirs
        )
        # lanes for scoring several moves in one pass (see _ranked): the board plus
        # the longest shift of the four-in-a-row test, 3 * (h + 1)
        self._lane = self.columns * h + 3 * (h + 1)
        self._lane_bits = (1 << self._lane) - 1
        self._lane_repeat = tuple(sum(1 << (i * self._lane) for i in range(n)) for n in range(self.columns + 1))
        self._mirror = self._mirror_stages()
        self._winning_cells_fast = self._winning_cells4 if c == 4 else self.winning_cells
        self._centre_out = tuple(sorted(range(self.columns), key=lambda col: abs(2 * col - self.columns + 1)))
        self._line_steps = (h, h - 1, h + 1)  # -, \, / (vertical lines are handled apart)
        # the heuristic's directions: connect 1 has one window per cell, not four
        self._heuristic_shifts = self._shifts[:1] if c == 1 else self._shifts
        self._heuristic_dirs = dirs[:1] if c == 1 else dirs
        self._steps4 = tuple((d, 2 * d, 3 * d) for d in dirs)
        self._heuristic_scale = 0.9 / (len(self._windows) * c) if self._windows else 0.0

    def _all_windows(self) -> tuple[int, ...]:
        """Bitmasks of every line of ``connect`` cells on the board (for the heuristic)."""
        h, n, out = self.rows + 1, self.connect, []
        for c in range(self.columns):
            for r in range(self.rows):
                for dc, dr in ((0, 1), (1, 0), (1, 1), (1, -1)):
                    ec, er = c + dc * (n - 1), r + dr * (n - 1)
                    if ec < self.columns and 0 <= er < self.rows:
                        out.append(sum(1 << ((c + dc * i) * h + r + dr * i) for i in range(n)))
        return tuple(dict.fromkeys(out))

    def _mirror_stages(self) -> tuple:
        """Swaps that reverse the order of the columns (for ``key``).

        With the columns padded to a power of two, g, reversing them is swapping halves,
        then quarters, and so on: log2(g) stages of (shift, mask of the lower columns of
        each swapped pair). The padding columns then drop off the bottom. Padded to three
        stages (a shift of 0 with a full mask is a no-op) so ``key`` can be unrolled.
        """
        h, span = self.rows + 1, 1
        while span < self.columns:
            span *= 2
        stages, step = [], span // 2
        while step:
            mask = sum(((1 << h) - 1) << (col * h) for col in range(span) if not col & step)
            stages.append((step * h, mask))
            step //= 2
        stages += [(0, (1 << (span * h)) - 1)] * (3 - len(stages))
        return tuple(stages), (span - self.columns) * h

    def initial_state(self):
        return (0, 0, 0, _PLAYING)

    def to_move(self, state) -> int:
        return state[2] & 1

    def legal_moves(self, state):
        if state[3]:
            return []
        key = state[1] & self._top_row
        try:
            return self._legal[key][:]
        except KeyError:
            moves = self._legal[key] = [c for c, t in enumerate(self._top) if not key & t]
            return moves[:]

    def apply(self, state, move):
        position, mask, moves, _ = state
        opponent = position ^ mask
        mask |= mask + self._bottom[move]
        moves += 1
        if moves >= self._first_win:
            mover = opponent ^ mask
            pairs = self._pairs
            if pairs is None:
                if self._has_line(mover):
                    return (opponent, mask, moves, _WON)
            else:
                a, b, c, d, e, f, g, h = pairs
                m = mover & (mover >> a)
                if m & (m >> b):
                    return (opponent, mask, moves, _WON)
                m = mover & (mover >> c)
                if m & (m >> d):
                    return (opponent, mask, moves, _WON)
                m = mover & (mover >> e)
                if m & (m >> f):
                    return (opponent, mask, moves, _WON)
                m = mover & (mover >> g)
                if m & (m >> h):
                    return (opponent, mask, moves, _WON)
            if moves == self._cells:
                return (opponent, mask, moves, _DRAW)
        return (opponent, mask, moves, _PLAYING)

    def _has_line(self, bits: int) -> bool:
        """True if ``bits`` hold ``connect`` stones in a row (the general, slower test)."""
        for shifts in self._shifts:
            m = bits
            for s in shifts:
                m &= m >> s
            if m:
                return True
        return False

    def is_terminal(self, state) -> bool:
        return state[3] != _PLAYING

    def key(self, state):
        """One key for a position and its mirror image (columns reversed)."""
        code = state[0] + state[1]  # with the spare top bit, this encodes the whole position
        stages, drop = self._mirror
        if len(stages) == 3:  # up to 8 columns: unrolled
            (a, ma), (b, mb), (c, mc) = stages
            x = ((code & ma) << a) | ((code >> a) & ma)
            x = ((x & mb) << b) | ((x >> b) & mb)
            x = ((x & mc) << c) | ((x >> c) & mc)
        else:
            x = code
            for s, m in stages:
                x = ((x & m) << s) | ((x >> s) & m)
        x >>= drop
        return code if code < x else x

    def value_bounds(self, state, player: int) -> tuple[float, float]:
        """The lowest and highest value ``player`` (to move) can still get ('moves' scoring)."""
        moves = state[2]
        return (max(self._loss_next[moves], self.bounds[0]), min(self._win_next[moves], self.bounds[1]))

    def winning_cells(self, stones: int, mask: int) -> int:
        """Empty cells (playable or not) that would complete a line for ``stones``."""
        if self.connect == 4:
            return self._winning_cells4(stones, mask)
        out = 0
        for offsets_by_place in self._line_offsets:
            for offsets in offsets_by_place:
                acc = self._board
                for s in offsets:
                    acc &= (stones >> s) if s > 0 else (stones << -s)
                out |= acc
        return out & self._board & ~mask

    def _winning_cells4(self, p: int, mask: int, board: int | None = None) -> int:
        """``winning_cells`` for lines of four, with a fixed set of shifts (Pascal Pons's
        compute_winning_position, http://blog.gamesolver.org/solving-connect-four/09-anticipate-losing-moves/)."""
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
        return r & ((self._board if board is None else board) ^ mask)

    def _ranked(self, position: int, mask: int, possible: int) -> list[int]:
        """The columns of the ``possible`` cells, most winning cells for the mover after
        playing there first, then nearest the centre first."""
        cols = [col for col in self._centre_out if possible & self._column_masks[col]]
        if self.connect != 4:
            threats = [self.winning_cells(position | (possible & self._column_masks[col]), mask).bit_count()
                       for col in cols]
            return [col for _, _, col in sorted(zip([-n for n in threats], range(len(cols)), cols))]
        # All moves at once: copy i of the board, with move i played, sits in lane i of one
        # big int. Lanes are wide enough that no shift of the line test reaches the board
        # cells of a neighbouring lane, so one pass of the test serves every move.
        lane, column_masks = self._lane, self._column_masks
        lanes, shift = 0, 0
        for col in cols:
            lanes |= (position | (possible & column_masks[col])) << shift
            shift += lane
        rep = self._lane_repeat[len(cols)]
        found = self._winning_cells4(lanes, mask * rep, self._board * rep)
        width, keys = self._lane_bits, []
        for i in range(len(cols)):  # sort keys: threats, then centre-out place (at most 16)
            keys.append((found & width).bit_count() << 4 | 15 - i)
            found >>= lane
        keys.sort(reverse=True)
        return [cols[15 - (k & 15)] for k in keys]

    def tactics(self, state, rank: bool = True) -> tuple[float, float, list | None]:
        """One ply of look-ahead for the search: ``(floor, ceiling, moves)``.

        A win at once, or two threats the opponent cannot both block, settles the value
        (floor == ceiling). Otherwise ``moves`` are the moves that do not lose at once, best
        first: a single threat of the opponent must be blocked, and no stone goes right
        under an opponent's winning cell; then nobody wins before the mover's stone after
        next. With ``rank``, moves are ranked by the winning cells they leave the mover, then
        nearness to the centre (Pascal Pons's order,
        http://blog.gamesolver.org/solving-connect-four/10-iterative-deepening/); without,
        by nearness to the centre alone.
        """
        position, mask, moves = state[0], state[1], state[2]
        possible = (mask + self._bottom_row) & self._board
        if (moves + 1) // 2 >= self.connect - 1:  # else nobody has stones enough for a threat
            winning_cells = self._winning_cells_fast
            if winning_cells(position, mask) & possible:
                v = self._win_next[moves]
                return (v, v, None)
            threats = winning_cells(position ^ mask, mask)
            forced = threats & possible
            if forced:
                if forced & (forced - 1):
                    v = self._loss_next[moves]
                    return (v, v, None)
                possible = forced
            possible &= ~(threats >> 1)
            if not possible:
                v = self._loss_next[moves]
                return (v, v, None)
            if moves >= self._cells - 2:
                # the mover cannot win, nor the reply, and then the board is full
                column_masks = self._column_masks
                return (0, 0, [col for col in self._centre_out if possible & column_masks[col]])
        if rank and moves // 2 + 2 >= self.connect:  # a stone now can make a threat
            legal = self._ranked(position, mask, possible)
        else:
            column_masks = self._column_masks
            legal = [col for col in self._centre_out if possible & column_masks[col]]
        return (self._loss_later[moves], self._win_later[moves], legal)

    def move_priorities(self, state, moves) -> list[float]:
        """Wins at once first, then blocks; moves under an opponent's winning cell last;
        otherwise nearness to the centre. Cheap, for a one-ply search's root (its ties go
        to the centre); ``tactics`` ranks moves deeper in the tree."""
        position, mask = state[0], state[1]
        centre, column_masks = self._centre, self._column_masks
        if (state[2] + 1) // 2 < self.connect - 1:  # nobody has stones enough for a threat
            return [centre[col] for col in moves]
        mine_wins = self.winning_cells(position, mask)
        their_wins = self.winning_cells(position ^ mask, mask)
        playable = (mask + self._bottom_row) & self._board
        out = []
        for col in moves:
            cell = playable & column_masks[col]
            if cell & mine_wins:
                out.append(3.0)
            elif cell & their_wins:
                out.append(2.0)
            elif (cell << 1) & their_wins:
                out.append(centre[col] - 1.0)  # lets the opponent win on top
            else:
                out.append(centre[col])
        return out

    def utility(self, state, player: int) -> float:
        if state[3] != _WON:
            return 0
        moves = state[2]
        value = 1 if self.scoring == "win" else self._score_base - (moves + 1) // 2
        return value if player == 1 - (moves & 1) else -value

    def heuristic(self, state, player: int) -> float:
        """Stones in lines still open to their owner, mine minus theirs, within (-0.9, 0.9).

        Equal to ``games.bitboard.open_lines`` over every line of ``connect`` cells, computed
        for all lines of one direction at once: the start cells of the lines free of the
        opponent's stones, then how many of each line's cells hold the player's stones.
        """
        position, mask, moves = state[0], state[1], state[2]
        first = position if moves & 1 == 0 else position ^ mask  # player 0's stones
        second = first ^ mask
        board, connect = self._board, self.connect
        score = 0
        if connect == 4:  # the usual game, unrolled
            f1, f2 = board ^ second, board ^ first
            for d, d2, d3 in self._steps4:
                s = f1 & (f1 >> d)
                s &= s >> d2
                if s:
                    score += ((s & first).bit_count() + (s & (first >> d)).bit_count()
                              + (s & (first >> d2)).bit_count() + (s & (first >> d3)).bit_count())
                s = f2 & (f2 >> d)
                s &= s >> d2
                if s:
                    score -= ((s & second).bit_count() + (s & (second >> d)).bit_count()
                              + (s & (second >> d2)).bit_count() + (s & (second >> d3)).bit_count())
            value = score * self._heuristic_scale
            return value if player == 0 else -value
        for d, shifts in zip(self._heuristic_dirs, self._heuristic_shifts):
            for mine, free in ((first, board ^ second), (second, board ^ first)):
                starts = free
                for s in shifts:
                    starts &= starts >> s
                if not starts:
                    continue
                n = 0
                for k in range(connect):
                    n += (starts & (mine >> (k * d))).bit_count()
                score += n if mine is first else -n
        value = score * self._heuristic_scale
        return value if player == 0 else -value

    def player_name(self, player: int) -> str:
        return "XO"[player]

    def render(self, state) -> str:
        position, mask, moves, status = state
        first = position if moves & 1 == 0 else position ^ mask
        h, width = self.rows + 1, len(str(self.columns))
        lines = []
        for r in range(self.rows - 1, -1, -1):
            cells = []
            for c in range(self.columns):
                bit = 1 << (c * h + r)
                cells.append("." if not mask & bit else "X" if first & bit else "O")
            lines.append(" ".join(f"{s:>{width}}" for s in cells))
        lines.append(" ".join(f"{c + 1:>{width}}" for c in range(self.columns)))
        lines.append(self.result_text(state) if status else f"{self.player_name(moves & 1)} to move")
        return "\n".join(lines)

    def format_move(self, move) -> str:
        return str(move + 1)

    def parse_move(self, text: str):
        t = text.strip()
        if t.isdigit() and t.isascii() and 1 <= int(t) <= self.columns:
            return int(t) - 1
        raise self.bad_move_text(text, f"a column number 1-{self.columns}")
