"""Connect Four's threats: winning cells, and from them the search's tactics and move priorities.

A threat is an empty cell that would complete a line. One ply of look-ahead over threats
settles many positions (a win at once; two cells the opponent needs, which cannot both be
blocked) and ranks the moves (the threats they make), as in Pascal Pons's solver
(http://blog.gamesolver.org/solving-connect-four/09-anticipate-losing-moves/ and 10-iterative-deepening/).
"""

from __future__ import annotations

from games.connect4_board import Board
from games.connect4_scoring import Scoring


class Threats:
    """``tactics`` and ``move_priorities`` (the contracts of ``arena.Game``) for one board and scoring."""

    def __init__(self, board: Board, scoring: Scoring):
        # copied from the board and the scoring: these are read at every interior node
        self._board = board
        self._connect, self._cells = board.connect, board.cells
        self._full, self._bottom_row, self._column_masks = board.full, board.bottom_row, board.column_masks
        self._centre_out = board.centre_out
        self._winning_cells = board.winning_cells4 if board.connect == 4 else board.winning_cells
        self._win_next, self._win_later = scoring.win_next, scoring.win_later
        self._loss_next, self._loss_later = scoring.loss_next, scoring.loss_later
        columns = board.columns
        centre = (columns - 1) / 2
        self._centre = tuple(1 - abs(col - centre) / (centre + 1) for col in range(columns))  # in (0, 1]
        # lanes for scoring several moves in one pass (see ranked): the board plus
        # the longest shift of the four-in-a-row test, 3 * (h + 1)
        self._lane = columns * board.height + 3 * (board.height + 1)
        self._lane_bits = (1 << self._lane) - 1
        self._lane_repeat = tuple(sum(1 << (i * self._lane) for i in range(n)) for n in range(columns + 1))

    def ranked(self, position: int, mask: int, possible: int) -> list[int]:
        """The columns of the ``possible`` cells, most winning cells for the mover after
        playing there first, then nearest the centre first."""
        column_masks = self._column_masks
        cols = [col for col in self._centre_out if possible & column_masks[col]]
        if self._connect == 4:
            # All moves at once: copy i of the board, with move i played, sits in lane i of
            # one big int. Lanes are wide enough that no shift of the line test reaches the
            # board cells of a neighbouring lane, so one pass of the test serves every move.
            lane, lanes, shift = self._lane, 0, 0
            for col in cols:
                lanes |= (position | (possible & column_masks[col])) << shift
                shift += lane
            rep = self._lane_repeat[len(cols)]
            found = self._board.winning_cells4(lanes, mask * rep, self._full * rep)
            width, threats = self._lane_bits, []
            for _ in cols:
                threats.append((found & width).bit_count())
                found >>= lane
        else:
            winning_cells = self._winning_cells
            threats = [winning_cells(position | (possible & column_masks[col]), mask).bit_count() for col in cols]
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
        nearness to the centre (Pascal Pons's order); without, by nearness to the centre alone.
        """
        position, mask, moves = state[0], state[1], state[2]
        possible = (mask + self._bottom_row) & self._full
        if (moves + 1) // 2 >= self._connect - 1:  # else nobody has stones enough for a threat
            winning_cells = self._winning_cells
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
        if rank and moves // 2 + 2 >= self._connect:  # a stone now can make a threat
            legal = self.ranked(position, mask, possible)
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
        if (state[2] + 1) // 2 < self._connect - 1:  # nobody has stones enough for a threat
            return [centre[col] for col in moves]
        winning_cells = self._board.winning_cells
        mine_wins = winning_cells(position, mask)
        their_wins = winning_cells(position ^ mask, mask)
        playable = (mask + self._bottom_row) & self._full
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
