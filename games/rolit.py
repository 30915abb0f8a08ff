"""Rolit: Othello for two to four players, the game on which Schadd and Winands (2011) and
Nijssen and Winands compared max^n, paranoid and Best-Reply Search.

Rules as the publisher (Goliath) gives them: its rule sheet at
https://www.ultraboardgames.com/rolit/game-rules.php and the Portuguese edition's manual
(vdocuments.pub, "Manual de instruções ... Rolit"); the order of play, the start and the
example positions from http://www.greylabyrinth.com/discussion/viewtopic.php?t=14128 and
https://www.pergioco.net/5/rolit.html. M. P. D. Schadd and M. H. M. Winands, "Best Reply
Search for Multiplayer Games", IEEE TCIAIG 3(1), 2011, and J. A. M. Nijssen and M. H. M.
Winands ("Search Policies in Multi-Player Games", ICGA Journal 36(1), 2013) test their
searches on this game; the text of their rules section was not at hand, so where they might
differ (the order of the colours, the seats' colours with fewer than four players) this
module follows the publisher.

- An 8x8 board (6x6, and 4x4 for two, are variants listed at
  https://www.nakajim.net/masg/Rolit.html; here any board takes 2-4). Whatever the number of
  players, the four centre squares start with one piece of each colour: red d4, yellow e4,
  green e5, blue d5 (clockwise from the top left).
- Play goes clockwise in the order of the colours: red, yellow, green, blue. Four players
  take a colour each; three take red, yellow and green; two sit opposite, red and green.
  Pieces of a colour nobody plays are neutral: anyone may flip them and they count for no one.
- A move places one piece of the mover's colour on an empty square. If any placement
  outflanks pieces (in one of the 8 directions an unbroken line of pieces not of the mover's
  colour runs from it to a piece of the mover's colour), the mover must play one that does,
  and every such line, up to the first piece of the mover's colour, turns to the mover's
  colour. Otherwise (no capture exists, say because the mover has no piece left) the mover
  places on any empty square next to a piece (8-neighbourhood). Nobody ever passes.
- The game ends when the board is full; most pieces wins. Utilities: 1 to the winner; a tie
  for most pieces shares the 1 equally; 0 to the others (``model.total`` is 1).

Squares are numbered row * size + column, row 0 at the top; a move is a square number,
written column letter then row number ('a1' top-left). Red's first moves on 8x8 are d6, f4
and f6, as in the sources above.

A state is ``(red, yellow, green, blue, seat to move)``: the four colours' bitboards
(games/flanking.py) and the seat. Legal moves are derived from the pieces, so equal
positions are equal states.
"""

from __future__ import annotations

import math

from arena import Game, param
from arena.game import Model
from games.bitboard import squares
from games.flanking import FlankBoard
from games.svg import disc, grid

COLOURS = ("red", "yellow", "green", "blue")
"""The colours in order of play; a state's first four items are their bitboards in this order."""

LETTERS = "RYGB"
"""A colour's letter on the text board and in ``position``."""

SEAT_COLOURS = {2: (0, 2), 3: (0, 1, 2), 4: (0, 1, 2, 3)}
"""The colour of each seat (an index into COLOURS) by number of players: two sit opposite."""

_FILES = "abcdefgh"
_DISC = disc({"R": "#d62828", "Y": "#f2c200", "G": "#2a9d3f", "B": "#1f5fbf", ".": None}, stroke="#333333")

_SHARPNESS = 24.0
"""How sharply ``heuristic`` favours the leader on a full board (the softmax's scale there)."""
_UNIFORM = 0.02
"""The part of ``heuristic`` spread evenly over the seats, which keeps it inside (0, 1)."""


class Rolit(Game):
    name = "rolit"
    description = "Othello for 2-4 players: outflank to recolour, else place next to any piece; most pieces wins"
    bounds = (0.0, 1.0)
    model = Model(players=4, total=1.0)
    """The default's model, for listings that read the class; an instance sets its own."""

    players: int = param(4, "number of players (red, yellow, green, blue in turn; two play red and green)",
                         choices=(2, 3, 4))
    size: int = param(8, "board side", choices=(4, 6, 8))

    def __init__(self, **params):
        super().__init__(**params)
        self.model = Model(players=self.players, total=1.0)
        board = self.board = FlankBoard(self.size)
        self.cells = board.cells
        self.colour = SEAT_COLOURS[self.players]
        self._next = tuple((seat + 1) % self.players for seat in range(self.players))
        # bound once: the hot paths call these on every ply
        self._captures, self._around, self._flips = board.captures, board.around, board.flips
        self._full = board.full
        n, h = self.size, self.size // 2
        centre = ((h - 1) * n + h - 1, (h - 1) * n + h, h * n + h, h * n + h - 1)  # d4 e4 e5 d5 on 8x8
        self._start = (*(1 << sq for sq in centre), 0)
        self._priority = self._square_priorities()

    def _square_priorities(self) -> tuple[float, ...]:
        """A static value per square for ``move_priorities``: corners (never flipped) first,
        other edge squares next, the squares touching a corner last."""
        n, last = self.size, self.size - 1
        out = []
        for sq in range(self.cells):
            r, c = divmod(sq, n)
            near = min(r, last - r) <= 1 and min(c, last - c) <= 1  # in a corner's 2x2 block
            if r in (0, last) and c in (0, last):
                out.append(3.0)
            elif near:
                out.append(-1.0)
            elif r in (0, last) or c in (0, last):
                out.append(1.0)
            else:
                out.append(0.0)
        return tuple(out)

    def position(self, board: str, seat: int = 0):
        """The state with pieces drawn as ``board`` ('R', 'Y', 'G', 'B' or '.', row by row from
        the top, whitespace ignored) and ``seat`` to move."""
        cells = "".join(board.split()).upper()
        if len(cells) != self.cells or set(cells) - set(LETTERS + "."):
            raise ValueError(f"bad board {board!r}; expected {self.cells} of 'R', 'Y', 'G', 'B', '.'")
        if not 0 <= seat < self.players:
            raise ValueError(f"bad seat {seat!r}; expected 0..{self.players - 1}")
        boards = [sum(1 << i for i, ch in enumerate(cells) if ch == letter) for letter in LETTERS]
        return (*boards, seat)

    # The Game interface.

    def initial_state(self):
        return self._start

    def to_move(self, state) -> int:
        return state[4]

    def legal_moves(self, state):
        occupied = state[0] | state[1] | state[2] | state[3]
        own = state[self.colour[state[4]]]
        moves = self._captures(own, occupied ^ own)
        if not moves:  # no capture anywhere: any empty square next to a piece (none when full)
            moves = self._around(occupied)
        return squares(moves)

    def apply(self, state, move):
        r, y, g, b, seat = state
        colour = self.colour[seat]
        own = state[colour]
        bit = 1 << move
        flips = self._flips(bit, own, (r | y | g | b) ^ own)
        nxt = self._next[seat]
        if flips:
            keep = ~flips
            r, y, g, b = r & keep, y & keep, g & keep, b & keep
            bit |= flips
        # written out per colour, not as a list rebuilt into a tuple: apply runs every ply
        if colour == 0:
            return (r | bit, y, g, b, nxt)
        if colour == 1:
            return (r, y | bit, g, b, nxt)
        if colour == 2:
            return (r, y, g | bit, b, nxt)
        return (r, y, g, b | bit, nxt)

    def is_terminal(self, state) -> bool:
        return state[0] | state[1] | state[2] | state[3] == self._full

    def pieces(self, state) -> tuple[int, ...]:
        """Piece counts per seat."""
        return tuple(state[c].bit_count() for c in self.colour)

    def winners(self, state) -> list[int]:
        """The seats with the most pieces."""
        counts = self.pieces(state)
        best = max(counts)
        return [seat for seat, count in enumerate(counts) if count == best]

    def utilities(self, state) -> tuple[float, ...]:
        winners = self.winners(state)
        share = 1.0 / len(winners)
        return tuple(share if seat in winners else 0.0 for seat in range(self.players))

    def utility(self, state, player: int) -> float:
        winners = self.winners(state)
        return 1.0 / len(winners) if player in winners else 0.0

    def estimates(self, state) -> tuple[float, ...]:
        """``heuristic`` for every seat (they sum to 1).

        A seat's weight is its pieces plus 3 more per corner it holds (a corner is never
        flipped). The weights, scaled by how full the board is (an early lead means little),
        go through a softmax: on a full board a lead of 8 pieces makes a seat about 20 times
        as likely to win as the other. A 2% share is then spread evenly over the seats, which
        keeps every estimate strictly inside (0, 1).
        """
        corners = self.board.corners
        weights = [state[c].bit_count() + 3 * (state[c] & corners).bit_count() for c in self.colour]
        filled = (state[0] | state[1] | state[2] | state[3]).bit_count()
        scale = _SHARPNESS * filled / (self.cells * self.cells)
        top = max(weights)
        exps = [math.exp(scale * (w - top)) for w in weights]
        total = sum(exps)
        even = _UNIFORM / self.players
        return tuple((1.0 - _UNIFORM) * e / total + even for e in exps)

    heuristics = estimates  # every seat's heuristic in one computation, for max^n's leaves (bots/multiplayer.py)

    def pass_to(self, state, seat: int):
        """The position with ``seat`` to move (Best-Reply Search lets any opponent reply): it
        always has a move, as Rolit never passes, unless the board is full."""
        return None if self.is_terminal(state) else (*state[:4], seat)

    def heuristic(self, state, player: int) -> float:
        """This seat's ``estimates``: a share of the win from its weighted pieces, strictly
        inside (0, 1); the seats' shares sum to 1, as their utilities do."""
        return self.estimates(state)[player]

    def move_priorities(self, state, moves):
        priority = self._priority
        return [priority[m] for m in moves]

    def player_name(self, player: int) -> str:
        return COLOURS[self.colour[player]]

    def letters(self, state) -> list[str]:
        """'R', 'Y', 'G', 'B' or '.' per square, row-major from a1 (top-left)."""
        out = ["."] * self.cells
        for letter, bits in zip(LETTERS, state[:4]):
            for sq in squares(bits):
                out[sq] = letter
        return out

    def render(self, state) -> str:
        n, cells = self.size, self.letters(state)
        lines = ["  " + " ".join(_FILES[:n])]
        for r in range(n):
            lines.append(f"{r + 1} " + " ".join(cells[r * n : (r + 1) * n]))
        counts = ", ".join(f"{LETTERS[c]} {state[c].bit_count()}" for c in range(4))
        if self.is_terminal(state):
            status = f"game over: {self.result_text(state)}"
        else:
            seat = state[4]
            status = f"{self.player_name(seat)} ({LETTERS[self.colour[seat]]}) to move"
        neutral = [COLOURS[c] for c in range(4) if c not in self.colour]
        note = f" ({' and '.join(neutral)} neutral)" if neutral else ""
        lines.append(f"{status}; pieces {counts}{note}")
        return "\n".join(lines)

    def svg(self, state) -> str:
        """Red, yellow, green and blue balls on a pale board ruled into squares."""
        n = self.size
        return grid(self.letters(state), n, _DISC, board="#e9e4d4", lines="#8c8570", column_labels=_FILES[:n],
                    row_labels=[str(r + 1) for r in range(n)], title="Rolit board")

    def result_text(self, state) -> str:
        counts = self.pieces(state)
        winners = self.winners(state)
        names = [self.player_name(s) for s in winners]
        if len(names) == 1:
            return f"{names[0]} wins with {counts[winners[0]]} of {self.cells}"
        joined = ", ".join(names[:-1]) + " and " + names[-1]
        return f"{joined} tie with {counts[winners[0]]} each"

    def format_move(self, move) -> str:
        r, c = divmod(move, self.size)
        return f"{_FILES[c]}{r + 1}"

    def parse_move(self, text: str):
        t = text.strip().lower()
        n = self.size
        if len(t) != 2 or t[0] not in _FILES[:n] or not "1" <= t[1] <= str(n):
            raise self.bad_move_text(text, f"a square a1..{_FILES[n - 1]}{n}")
        return (int(t[1]) - 1) * n + _FILES.index(t[0])
