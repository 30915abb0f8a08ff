"""Connect Four's fast paths for the search bots: the table key, tactics, move priorities
and value bounds (see bots/search.py for how they are used).

A mixin of ``games.connect4.ConnectFour``: it reads the game's bitboards (Pascal Pons's
layout, described there) and the tables ``_prepare_search`` builds once per game.
"""

from __future__ import annotations


class ConnectFourSearch:
    """What the search asks of Connect Four beyond its rules."""

    def _prepare_search(self) -> None:
        """The tables the fast paths use, built once per game (after the rules' own)."""
        h, c = self.rows + 1, self.connect
        base, plies = self._score_base, range(self._cells + 1)
        if self.scoring == "moves":
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
        self._bottom_row = sum(self._bottom)
        centre = (self.columns - 1) / 2
        self._centre = tuple(1 - abs(col - centre) / (centre + 1) for col in range(self.columns))  # in (0, 1]
        # offsets of the other cells of a line, for each direction and place of the empty cell
        self._line_offsets = tuple(
            tuple(tuple((j - i) * d for j in range(c) if j != i) for i in range(c)) for d in (1, h, h - 1, h + 1)
        )
        # lanes for scoring several moves in one pass (see _ranked): the board plus
        # the longest shift of the four-in-a-row test, 3 * (h + 1)
        self._lane = self.columns * h + 3 * (h + 1)
        self._lane_bits = (1 << self._lane) - 1
        self._lane_repeat = tuple(sum(1 << (i * self._lane) for i in range(n)) for n in range(self.columns + 1))
        self._mirror = self._mirror_stages()
        self._centre_out = tuple(sorted(range(self.columns), key=lambda col: abs(2 * col - self.columns + 1)))
        self._line_steps = (h, h - 1, h + 1)  # -, \, / (vertical lines are handled apart)

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
        column_masks = self._column_masks
        cols = [col for col in self._centre_out if possible & column_masks[col]]
        if self.connect == 4:
            # All moves at once: copy i of the board, with move i played, sits in lane i of
            # one big int. Lanes are wide enough that no shift of the line test reaches the
            # board cells of a neighbouring lane, so one pass of the test serves every move.
            lane, lanes, shift = self._lane, 0, 0
            for col in cols:
                lanes |= (position | (possible & column_masks[col])) << shift
                shift += lane
            rep = self._lane_repeat[len(cols)]
            found = self._winning_cells4(lanes, mask * rep, self._board * rep)
            width, threats = self._lane_bits, []
            for _ in cols:
                threats.append((found & width).bit_count())
                found >>= lane
        else:
            threats = [self.winning_cells(position | (possible & column_masks[col]), mask).bit_count() for col in cols]
        # sort keys: threats, then the centre-out place (at most 16 columns)
        keys = [n << 4 | 15 - i for i, n in enumerate(threats)]
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
            winning_cells = self._winning_cells4 if self.connect == 4 else self.winning_cells
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
