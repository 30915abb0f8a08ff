"""Othello (Reversi) on an 8x8 board, or 6x6 or 4x4.

Rules: black (player 0, 'X') and white (player 1, 'O') start with two discs each on the
four centre squares, white on the top-left and bottom-right ones (d4 and e5 on 8x8), black
on the other two (d5 and e4); black moves first. A move places a disc on an empty square
such that, in at least one of the 8 directions, an unbroken line of the opponent's discs
runs from it to one of the mover's discs; every such line in every direction is flipped.
A player with no such placement must pass (and may pass only then). The game ends when
neither player can place a disc, full board or not. More discs wins (+1), fewer loses (-1),
equal counts draw (0).

Squares are numbered row * size + column, row 0 at the top. A move is a square number, or
PASS (-1). Text: column letter then row number, 'a1' top-left, so black's first moves on
8x8 are d3, c4, f5, e6; a pass is 'pass'.

A state is (mover's discs, opponent's discs, player to move, mobility): the first two are
bitboards, mobility is the bitboard of the mover's legal placements, or PASS when the
mover must pass, or 0 when the game is over. Mobility depends on the discs only, so equal
positions are equal states.
"""

from __future__ import annotations

from arena import Game, param
from games.bitboard import squares
from games.flanking import FlankBoard
from games.svg import disc, grid

PASS = -1
"""The pass move (legal only when the player to move has no placement)."""

_LETTERS = "abcdefgh"
_DISC = disc({"X": "#111111", "O": "#f4f4f4", ".": None}, stroke="#111111")


class Othello(Game):
    name = "othello"
    description = "Othello/Reversi: outflank and flip discs; most discs at the end wins"
    bounds = (-1, 1)

    size: int = param(8, "board side", choices=(4, 6, 8))

    def __init__(self, **params):
        super().__init__(**params)
        n = self.size
        board = self.board = FlankBoard(n)
        self.cells = board.cells
        self._full, self._corners = board.full, board.corners
        # the kernels, bound once: apply calls them every ply
        self._mobility, self._flips = board.captures, board.flips
        h = n // 2
        white = 1 << ((h - 1) * n + h - 1) | 1 << (h * n + h)
        black = 1 << ((h - 1) * n + h) | 1 << (h * n + h - 1)
        self._start = (black, white, 0, self._mobility(black, white))

    def position(self, board: str, player: int = 0):
        """The state with discs drawn as ``board`` ('X' black, 'O' white, '.' empty, row by
        row from the top, whitespace ignored) and ``player`` to move."""
        cells = "".join(board.split())
        if len(cells) != self.cells or set(cells) - set("XO."):
            raise ValueError(f"bad board {board!r}; expected {self.cells} of 'X', 'O', '.'")
        black = sum(1 << i for i, ch in enumerate(cells) if ch == "X")
        white = sum(1 << i for i, ch in enumerate(cells) if ch == "O")
        own, opp = (white, black) if player else (black, white)
        # Built as the state after a pass by the other side, so apply settles the mobility.
        return self.apply((opp, own, 1 - player, PASS), PASS)

    # The Game interface.

    def initial_state(self):
        return self._start

    def to_move(self, state) -> int:
        return state[2]

    def legal_moves(self, state):
        m = state[3]
        if m <= 0:
            return [PASS] if m else []
        return squares(m)

    def apply(self, state, move):
        own, opp, player, _ = state
        if move != PASS:
            bit = 1 << move
            flips = self._flips(bit, own, opp)
            own |= bit | flips
            opp ^= flips
        mobility = self._mobility(opp, own)
        if not mobility and self._mobility(own, opp):
            mobility = PASS
        return (opp, own, 1 - player, mobility)

    def is_terminal(self, state) -> bool:
        return state[3] == 0

    def discs(self, state) -> tuple[int, int]:
        """Disc counts (black, white)."""
        own, opp, player, _ = state
        a, b = own.bit_count(), opp.bit_count()
        return (b, a) if player else (a, b)

    def utility(self, state, player: int) -> float:
        black, white = self.discs(state)
        u = (black > white) - (black < white)
        return -u if player else u

    def heuristic(self, state, player: int) -> float:
        own, opp, mover, mobility = state
        mine = mobility.bit_count() if mobility > 0 else 0
        theirs = self._mobility(opp, own).bit_count()
        disc = (own.bit_count() - opp.bit_count()) / self.cells
        mob = (mine - theirs) / (mine + theirs + 1)
        corner = ((own & self._corners).bit_count() - (opp & self._corners).bit_count()) / 4
        value = 0.9 * (0.2 * disc + 0.4 * mob + 0.4 * corner)  # each term within ±1
        return value if player == mover else -value

    def player_name(self, player: int) -> str:
        return ("black", "white")[player]

    def pieces(self, state) -> list[str]:
        """"X" (black), "O" (white) or "." per square, row-major from a1 (top-left)."""
        own, opp, player, _ = state
        black, white = (opp, own) if player else (own, opp)
        return ["X" if black >> i & 1 else "O" if white >> i & 1 else "." for i in range(self.cells)]

    def render(self, state) -> str:
        _, _, player, mobility = state
        n, cells = self.size, self.pieces(state)
        lines = ["  " + " ".join(_LETTERS[:n])]
        for r in range(n):
            lines.append(f"{r + 1} " + " ".join(cells[r * n : (r + 1) * n]))
        nb, nw = self.discs(state)
        if mobility == 0:
            status = f"game over: {self.result_text(state)}"
        else:
            status = f"{self.player_name(player)} ({'XO'[player]}) to move"
            if mobility == PASS:
                status += " and must pass"
        lines.append(f"{status}; discs X {nb}, O {nw}")
        return "\n".join(lines)

    def svg(self, state) -> str:
        """Black and white discs on a green board ruled into squares."""
        n = self.size
        return grid(self.pieces(state), n, _DISC, board="#2e7d4f", lines="#123d25", column_labels=_LETTERS[:n],
                    row_labels=[str(r + 1) for r in range(n)], title="Othello board")

    def result_text(self, state) -> str:
        black, white = self.discs(state)
        return f"{super().result_text(state)} {black}-{white}"

    def format_move(self, move) -> str:
        if move == PASS:
            return "pass"
        r, c = divmod(move, self.size)
        return f"{_LETTERS[c]}{r + 1}"

    def parse_move(self, text: str):
        t = text.strip().lower()
        if t == "pass":
            return PASS
        n = self.size
        expected = f"a square a1..{_LETTERS[n - 1]}{n} or 'pass'"
        if len(t) != 2 or t[0] not in _LETTERS[:n] or t[1] not in "12345678":
            raise self.bad_move_text(text, expected)
        r = int(t[1]) - 1
        if not 0 <= r < n:
            raise self.bad_move_text(text, expected)
        return r * n + _LETTERS.index(t[0])
