"""Chess opening books in the formats engine testers use: EPD and PGN (see ``OpeningBook``).

EPD: one position per line, the four FEN fields (board, side to move, castling, en
passant) and then operations separated by ``;`` (``hmvc 0; fmvn 1; id "x";``). ``hmvc``
and ``fmvn`` give the halfmove clock and move number (default 0 and 1); the others are
skipped, as are blank lines and lines starting with ``#``. A line of the four fields followed
by two numbers and no ``;`` is a full FEN, as fastchess reads it (``isFen`` in
app/src/matchmaking/match/match.cpp). Each line becomes an opening that sets the game's
``fen`` and plays no move. The position is checked with the book (``OpeningBook.check``),
where the chess game parses it with python-chess: once, since parsing is most of the cost.

PGN: each game's main line from its ``FEN`` tag, or the start position, cut after ``plies``
plies (all of them when None, as fastchess does with ``plies`` unset); a game with fewer
plies gives what it has, as fastchess's ``PGNVisitor`` does (app/src/game/book/pgn_reader.cpp).
Moves are stored in UCI. Unlike fastchess, which drops a book move that ends the game, an
opening that ends the game is an error (``OpeningBook.check``): a shorter ``plies`` cuts it.
Variations, comments and other tags are skipped; a variant other than standard chess, a
malformed FEN tag or a move that is not legal is an error naming the file and the line.
"""

from __future__ import annotations

import functools
import os
import re

from arena.opening import Opening, OpeningsError

NEEDS = "reading a PGN openings file needs python-chess: pip install 'botarena[chess]'"
_CLOCKS = re.compile(r"(\d+)\s+(\d+)\s*")
# one operation: an opcode, operands (a quoted string may hold ';'), then ';' (optional at the end)
_OPERATION = re.compile(r'\s*([A-Za-z][A-Za-z0-9_+#=:-]*)((?:\s+(?:"(?:[^"\\]|\\.)*"|[^\s;"]+))*)\s*(?:;|$)')


def book_format(path: str) -> str:
    """``epd``, ``pgn`` or ``lines`` (botarena's own openings files), by the file's extension."""
    suffix = os.path.splitext(path)[1].lower()
    return suffix[1:] if suffix in (".epd", ".pgn") else "lines"


def read_epd(path: str, text: str) -> list[Opening]:
    """Each position line of an EPD file's ``text`` as an opening that sets ``fen``; OpeningsError naming the line."""
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        try:
            fen = _epd_fen(line)
        except OpeningsError as exc:
            raise OpeningsError(f"openings file {path!r}, line {number}: {exc}") from None
        out.append(Opening((), (("fen", fen),), number))
    return out


def _epd_fen(line: str) -> str:
    """The full FEN of an EPD line: its four fields and the clocks of ``hmvc``/``fmvn``."""
    fields = line.split(None, 4)
    if len(fields) < 4:
        raise OpeningsError(f"expected the four FEN fields (board, side to move, castling, en passant), got {line!r}")
    rest = fields[4] if len(fields) == 5 else ""
    clocks = _CLOCKS.fullmatch(rest)
    if clocks:  # no ';': a full FEN
        return " ".join((*fields[:4], *clocks.groups()))
    found = {"hmvc": "0", "fmvn": "1"}
    at = 0
    while at < len(rest):
        op = _OPERATION.match(rest, at)
        if op is None or op.end() == at:
            raise OpeningsError(f"cannot read the operations {rest[at:].strip()!r}; expected 'opcode operand ...;' "
                                'as in hmvc 0; fmvn 1; id "name";')
        at = op.end()
        if op.group(1) in found:
            value = op.group(2).strip()
            least = 1 if op.group(1) == "fmvn" else 0
            if not value.isdigit() or int(value) < least:
                raise OpeningsError(f"operation {op.group(1)} needs a whole number of {least} or more, got {value!r}")
            found[op.group(1)] = str(int(value))
    return " ".join((*fields[:4], found["hmvc"], found["fmvn"]))


def read_pgn(path: str, text: str, plies: int | None) -> list[Opening]:
    """The main line of each game in a PGN file's ``text`` (its first ``plies`` plies, all when None), in UCI."""
    chess = _chess()
    handle = _Lines(text)
    out = []
    while True:
        game = chess.pgn.read_game(handle, Visitor=lambda: _visitor()(handle, plies))
        if game is None:
            break
        if game.error is not None:
            line, message = game.error
            raise OpeningsError(f"openings file {path!r}, line {line}: {message} (in the game from line {game.start})")
        out.append(Opening(tuple(game.moves), () if game.fen is None else (("fen", game.fen),), game.start))
    return out


def _chess():
    try:
        import chess
        import chess.pgn
    except ImportError:
        raise OpeningsError(NEEDS) from None
    return chess


class _Lines:
    """A text as ``read_game`` reads it, line by line, counting the lines handed out."""

    def __init__(self, text: str):
        self.lines = text.splitlines(keepends=True)
        self.number = 0

    def readline(self) -> str:
        if self.number >= len(self.lines):
            return ""
        self.number += 1
        return self.lines[self.number - 1]


@functools.cache
def _visitor():
    """The visitor class (built on first use: python-chess is optional)."""
    chess = _chess()

    class Visitor(chess.pgn.BaseVisitor):
        """One game: the line it starts on, its FEN tag's position, its main line up to
        ``plies`` plies, and its first error with the line it is on; ``read_game`` returns it."""

        def __init__(self, handle: _Lines, plies: int | None):
            self.handle, self.plies = handle, plies
            self.start, self.tag_line, self.fen, self.moves, self.error = 0, 0, None, [], None
            self.board_seen = False

        def begin_game(self):
            self.start = self.handle.number  # the line of the game's first tag or move

        def visit_header(self, tagname, tagvalue):
            if tagname in ("FEN", "Variant"):
                self.tag_line = self.handle.number

        def visit_board(self, board):
            if self.board_seen:
                return
            self.board_seen = True  # the first call: the start position, after the tags
            if type(board) is not chess.Board or board.chess960:
                kind = "Chess960" if type(board) is chess.Board else board.uci_variant
                self._fail(self.tag_line or self.start, f"a game of {kind}: only standard chess can open a chess game")
            elif self.tag_line and board.fen() != chess.STARTING_FEN:
                self.fen = board.fen()

        def begin_variation(self):
            return chess.pgn.SKIP

        def begin_parse_san(self, board, san):
            if self.error or (self.plies is not None and len(self.moves) >= self.plies):
                return chess.pgn.SKIP
            return None

        def visit_move(self, board, move):
            self.moves.append(move.uci())

        def handle_error(self, error):
            # before the start position: a bad FEN or Variant tag
            self._fail(self.handle.number if self.board_seen else self.tag_line or self.start, str(error))

        def _fail(self, line: int, message: str):
            if self.error is None:
                self.error = (line, message)

        def result(self):
            return self

    return Visitor
