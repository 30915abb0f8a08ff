"""Connect Four, with configurable board size and line length.

Rules: two players, X (moves first) and O, take turns dropping a stone into one of
``columns`` vertical columns of ``rows`` cells; it falls to the lowest empty cell, and a
full column cannot be played. The first player with ``connect`` stones in an unbroken
horizontal, vertical or diagonal line wins at once; if the board fills up first, the game
is a draw. The defaults (7 columns, 6 rows, connect 4) are the standard game.

Bitboards follow Pascal Pons's layout (see games/connect4_board.py). A state is
``(stones of the player to move, mask of all stones, moves played, status)`` with status
0 while playing, 1 if the player who moved last has won, 2 for a draw. A move is a column
index from 0, written as the 1-based column number ("1".."7"), as in Pons's test files.
"""

from __future__ import annotations


from arena import Game, SearchHooks, param
from games.connect4_board import Board
from games.connect4_scoring import RULES, Scoring
from games.connect4_symmetry import MirrorKey
from games.connect4_threats import Threats
from games.svg import disc, grid

MAX_SIDE = 16
_PLAYING, _WON, _DRAW = 0, 1, 2
_DISCS = {"X": "#f5c518", "O": "#8b1e3f", ".": "#ffffff"}


class ConnectFour(Game):
    """Connect Four on a columns x rows board, ``connect`` in a row to win.

    Built from four parts, one concept each: the ``board`` (geometry and line tests), its
    ``scoring``, the ``threats`` behind the search's tactics and move priorities, and the
    ``mirror`` symmetry key.
    """

    name = "connect4"
    description = "drop stones into columns; the first to line up 4 (connect) in a row wins"
    bounds = (-1, 1)

    columns: int = param(7, "number of columns", min=1, max=MAX_SIDE)
    rows: int = param(6, "number of rows", min=1, max=MAX_SIDE)
    connect: int = param(4, "stones in a row needed to win", min=1)
    scoring: str = param(
        "win",
        "utility: 'win' (1 for a win) or 'moves' (Pascal Pons's score: a win with fewer stones scores more)",
        choices=RULES,
    )

    def __init__(self, **params):
        super().__init__(**params)
        if self.connect > max(self.rows, self.columns):
            raise self.bad_parameter("connect", "must be at most max(rows, columns)")
        self.board = board = Board(self.columns, self.rows, self.connect)
        self.score = Scoring(board, self.scoring)
        if self.score.bounds != type(self).bounds:
            # per instance only where it differs: the referee still reads the class's after
            # a bot set the instance's attributes to None (tests/test_fast_paths.py)
            self.bounds = self.score.bounds
        self.threats = Threats(board, self.score)
        self.mirror = MirrorKey(board)
        # the rules' hot paths read these as the game's own attributes
        self._cells, self._bottom, self._top, self._top_row = board.cells, board.bottom, board.top, board.top_row
        self._pairs, self._has_line, self._full = board.pairs, board.has_line, board.full
        self._legal = {}  # top-row occupancy -> legal columns, filled lazily
        # no line is possible before this move, and the board is not full before it either
        self._first_win = min(2 * self.connect - 1, self._cells)
        # the heuristic's directions: connect 1 has one window per cell, not four
        c, dirs = self.connect, board.directions
        self._heuristic_shifts = board.shifts[:1] if c == 1 else board.shifts
        self._heuristic_dirs = dirs[:1] if c == 1 else dirs
        self._steps4 = tuple((d, 2 * d, 3 * d) for d in dirs)
        self._heuristic_scale = 0.9 / (len(board.windows) * c) if board.windows else 0.0

    # The search hooks (contracts on arena.Game) come from the parts that own them.

    def search_hooks(self) -> SearchHooks:
        """The parts' own methods, so the search calls them without a forwarding call; no
        value bounds under 'win' scoring, where a win scores 1 whenever it comes."""
        return SearchHooks(
            key=self.mirror.key,
            tactics=self.threats.tactics,
            move_priorities=self.threats.move_priorities,
            value_bounds=self.score.value_bounds if self.score.bounds_by_ply else None,
        )

    def key(self, state):
        return self.mirror.key(state)

    def tactics(self, state, rank: bool = True):
        return self.threats.tactics(state, rank)

    def move_priorities(self, state, moves):
        return self.threats.move_priorities(state, moves)

    def value_bounds(self, state, player: int):
        return self.score.value_bounds(state, player)

    def winning_cells(self, stones: int, mask: int) -> int:
        """Empty cells (playable or not) that would complete a line for ``stones``."""
        return self.board.winning_cells(stones, mask)

    # The rules.

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

    def is_terminal(self, state) -> bool:
        return state[3] != _PLAYING

    def utility(self, state, player: int) -> float:
        if state[3] != _WON:
            return 0
        moves = state[2]
        value = self.score.win(moves)
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
        board, connect = self._full, self.connect
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

    def pieces(self, state) -> list[str]:
        """"X", "O" or "." per cell, top row first, left to right (as ``render`` draws them)."""
        position, mask, moves, _ = state
        first = position if moves & 1 == 0 else position ^ mask
        h = self.rows + 1
        return [
            "." if not mask >> (c * h + r) & 1 else "X" if first >> (c * h + r) & 1 else "O"
            for r in range(self.rows - 1, -1, -1) for c in range(self.columns)
        ]

    def render(self, state) -> str:
        _, _, moves, status = state
        width, cells = len(str(self.columns)), self.pieces(state)
        lines = [
            " ".join(f"{s:>{width}}" for s in cells[r : r + self.columns]) for r in range(0, len(cells), self.columns)
        ]
        lines.append(" ".join(f"{c + 1:>{width}}" for c in range(self.columns)))
        lines.append(self.result_text(state) if status else f"{self.player_name(moves & 1)} to move")
        return "\n".join(lines)

    def svg(self, state) -> str:
        """Yellow (X) and dark red (O) discs, far apart in lightness, in a blue frame."""
        return grid(self.pieces(state), self.columns, disc(_DISCS), board="#2b5ea7", labels_below=True,
                    column_labels=[str(c + 1) for c in range(self.columns)], title="Connect Four board")

    def format_move(self, move) -> str:
        return str(move + 1)

    def parse_move(self, text: str):
        t = text.strip()
        if t.isdigit() and t.isascii() and 1 <= int(t) <= self.columns:
            return int(t) - 1
        raise self.bad_move_text(text, f"a column number 1-{self.columns}")
