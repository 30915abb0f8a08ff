"""Chess, on python-chess (an optional extra: ``pip install 'botarena[chess]'``).

Rules: the FIDE laws as python-chess implements them (castling, en passant, promotion).
White is player 0 and moves first unless the ``fen`` parameter says otherwise.

Results: checkmate wins (+1, the mated side -1); stalemate and insufficient material
(python-chess's ``is_insufficient_material``) draw. The ``draws`` parameter picks the
other draw rules:

- ``claim`` (the default, as engine tournaments play): threefold repetition and the
  fifty-move rule end the game as soon as they arise, as if claimed at once: a position
  occurring for the third time, or 100 plies without a capture or pawn move.
- ``automatic``: only FIDE's automatic draws, fivefold repetition and the 75-move rule
  (150 plies); games run longer.

Checkmate on the move that reaches the move limit still wins (FIDE 9.6.2). Positions are
the same for repetition when the same pieces stand on the same squares with the same side
to move, castling rights and en passant capture (FIDE 9.2.3).

Moves are ``chess.Move`` values, written in UCI: ``e2e4``, ``e1g1`` (castling),
``e7e8q`` (promotion).

A state holds a python-chess Board that is never changed after the state is made and
never handed out (``state.board()`` gives a copy), the positions since the last
irreversible move (a capture, a pawn move or a loss of castling rights: only those can
recur) and the moves between them. States are equal when they have the same position,
the same halfmove clock and the same earlier positions (in any order).
"""

from __future__ import annotations

import re
import textwrap

from arena import Game, param
from arena.errors import ArenaError

try:
    import chess
    import chess.polyglot

    _HASHER = chess.polyglot.ZobristHasher(chess.polyglot.POLYGLOT_RANDOM_ARRAY)
except ImportError:  # the game stays listed; building it says what to install
    chess = None

NEEDS = "the chess game needs python-chess: pip install 'botarena[chess]'"
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
_MOVE = re.compile(r"[a-h][1-8][a-h][1-8][qrbn]?")
#: Pawns, knights, bishops, rooks, queens, in pawns (a king is not counted).
_VALUES = (1.0, 3.0, 3.25, 5.0, 9.0)
#: Bonus for a pawn on its sixth and on its seventh rank: (bonus, white's rank, black's rank), from 0.
_PASSING = ((0.2, 5, 2), (0.5, 6, 1))
_TEXT: dict = {}  # move -> its UCI text
_MASK = (1 << 64) - 1
_RULES = {"claim": (3, 100, "threefold repetition", "the fifty-move rule"),
          "automatic": (5, 150, "fivefold repetition", "the seventy-five-move rule")}


class ChessState:
    """A position and what repetition needs of its past; immutable (caches aside), hashable."""

    __slots__ = (
        "_board", "_pos", "_history", "_since", "_digest", "_reps", "_dead",
        "_legal", "_alive", "_zobrist", "_hash", "_parent", "_vouched",
    )

    def __init__(self, board, history=(), since=(), pos=None, dead=None, digest=None):
        self._board = board
        self._pos = _position(board) if pos is None else pos
        self._history = history  # positions since the last irreversible move, oldest first
        self._since = since  # the moves played from them
        self._digest = _digest_of(history) if digest is None else digest
        self._reps = history.count(self._pos) + 1 if history else 1
        self._dead = board.is_insufficient_material() if dead is None else dead
        self._legal = self._alive = self._zobrist = self._hash = None  # caches
        self._parent = None  # (Zobrist hash, board) one move earlier, if the hash was known
        self._vouched = None  # (move, its own value, the board after it) legal_move found legal last: the engine's check, then the referee's, then apply

    def board(self):
        """A copy of the position as a python-chess Board (changing it changes no state)."""
        return self._board.copy(stack=False)

    def fen(self) -> str:
        """The position in FEN."""
        return self._board.fen()

    @property
    def halfmove_clock(self) -> int:
        """Plies since the last capture or pawn move (what draw adjudication restarts at)."""
        return self._board.halfmove_clock

    @property
    def fullmove_number(self) -> int:
        """The move number, as FEN counts it (from the opening's FEN)."""
        return self._board.fullmove_number

    def __eq__(self, other):
        if self is other:
            return True
        if not isinstance(other, ChessState):
            return NotImplemented
        return (
            self._pos == other._pos
            and self._board.halfmove_clock == other._board.halfmove_clock
            and (self._history == other._history or sorted(self._history) == sorted(other._history))
        )

    def __hash__(self):
        h = self._hash
        if h is None:
            h = self._hash = hash((self._pos, self._board.halfmove_clock, self._digest))
        return h

    def __reduce__(self):
        return (ChessState, (self._board, self._history, self._since))  # the board pickles as a copy

    def __repr__(self):
        return f"ChessState({self._board.fen()!r})"


def _position(b) -> tuple:
    """What makes two positions the same for repetition: pieces, side, castling, en passant."""
    black, white = b.occupied_co  # indexed by colour: BLACK is False, WHITE is True
    ep = b.ep_square if b.ep_square is not None and b.has_legal_en_passant() else -1
    return (b.turn, white, black, b.kings, b.queens, b.rooks, b.bishops, b.knights, b.pawns, b.castling_rights, ep)


def _zobrist_after(z: int, before, after) -> int:
    """``chess.polyglot.zobrist_hash(after)`` from ``z``, that of ``before``, one move earlier.

    Only the squares the move changed are hashed again (a few, against every piece for
    the whole board): XOR out what stood there, XOR in what stands there now.
    """
    array = chess.polyglot.POLYGLOT_RANDOM_ARRAY
    wb, wa = before.occupied_co[chess.WHITE], after.occupied_co[chess.WHITE]
    changed = (before.occupied ^ after.occupied) | (wb ^ wa) | (before.pawns ^ after.pawns)
    changed |= (before.knights ^ after.knights) | (before.bishops ^ after.bishops) | (before.rooks ^ after.rooks)
    changed |= (before.queens ^ after.queens) | (before.kings ^ after.kings)
    for sq in chess.scan_forward(changed):
        kind = before.piece_type_at(sq)
        if kind:
            z ^= array[64 * (2 * kind - 2 + (wb >> sq & 1)) + sq]
        kind = after.piece_type_at(sq)
        if kind:
            z ^= array[64 * (2 * kind - 2 + (wa >> sq & 1)) + sq]
    if before.castling_rights != after.castling_rights:
        z ^= _HASHER.hash_castling(before) ^ _HASHER.hash_castling(after)
    if before.ep_square is not None or after.ep_square is not None:
        z ^= _HASHER.hash_ep_square(before) ^ _HASHER.hash_ep_square(after)
    return z ^ array[780]  # the side to move


def _digest_of(history) -> int:
    """An order-free hash of the earlier positions (hashes of int tuples are the same in every process)."""
    return sum(map(hash, history)) & _MASK


class Chess(Game):
    name = "chess"
    description = "chess (FIDE rules, python-chess); moves in UCI, e.g. e2e4, e7e8q" + (
        "" if chess else f" [{NEEDS}]"
    )
    bounds = (-1, 1)

    fen: str = param(START, "start position in FEN (side to move, castling, en passant and halfmove clock count)")
    draws: str = param(
        "claim",
        "claim: threefold repetition and the fifty-move rule end the game at once; "
        "automatic: only fivefold repetition and the 75-move rule",
        choices=tuple(_RULES),
    )

    def __init__(self, **params):
        if chess is None:
            raise ArenaError(NEEDS)
        super().__init__(**params)
        try:
            board = chess.Board(self.fen)
        except ValueError as exc:
            raise self.bad_parameter("fen", str(exc).split(":")[0]) from None
        status = board.status()
        if status:
            flags = ", ".join(f.name.lower().replace("_", " ") for f in chess.Status if f and status & f)
            raise self.bad_parameter("fen", f"not a legal position: {flags}")
        self._reps_limit, self._clock_limit, self._reps_text, self._clock_text = _RULES[self.draws]
        self._start = ChessState(board)

    def initial_state(self):
        return self._start

    def to_move(self, state) -> int:
        return 0 if state._board.turn else 1

    def _over(self, state) -> bool:
        """Ended by a draw rule (checkmate and stalemate aside)."""
        return state._dead or state._reps >= self._reps_limit or state._board.halfmove_clock >= self._clock_limit

    def legal_moves(self, state):
        moves = state._legal
        if moves is None:
            moves = state._legal = tuple(state._board.generate_legal_moves())
        if not moves or self._over(state):
            return []
        return list(moves)  # a fresh list: searches reorder what they are given

    def legal_move(self, state, move):
        # one move tested (pseudo-legal, then its king after it), where listing all (legal_moves)
        # costs four times as much: the referee checks every engine move this way. Only a plain
        # Move of squares 0-63 is read.
        if type(move) is not chess.Move:
            return None
        vouched = state._vouched
        if vouched is not None and move is vouched[0] and move == vouched[1]:  # the object found legal last
            return vouched[1]
        if move.drop is not None or self._over(state):
            return None
        start, end, promotion = move.from_square, move.to_square, move.promotion
        if not (type(start) is int and type(end) is int and 0 <= start < 64 and 0 <= end < 64):
            return None
        if promotion is not None and not (type(promotion) is int and chess.KNIGHT <= promotion <= chess.QUEEN):
            return None
        board = state._board
        if not board.is_pseudo_legal(move) or board.is_castling(move) and abs(end - start) != 2:  # king takes rook: 960's
            return None
        # legal if the mover's king is not attacked once it is played: the position after it is
        # made here, where apply takes it (one attack test, against is_legal's pins and checks)
        found = chess.Move(start, end, promotion)  # the game's own value, not the bot's object
        child = board.copy(stack=False)
        child.push(found)
        if child.was_into_check():  # castling out of or through check is not pseudo-legal
            return None
        child.clear_stack()
        state._vouched = (move, found, child)
        return found

    def apply(self, state, move):
        board = state._board
        vouched = state._vouched
        if vouched is not None and move is vouched[1]:  # the move legal_move found: its position made there
            child = vouched[2]
        else:
            child = board.copy(stack=False)
            child.push(move)
            child.clear_stack()  # a state's board is never popped: keep it small
        pos = _position(child)
        if board.is_zeroing(move):
            out = ChessState(child, (), (), pos)
        elif child.castling_rights != board.castling_rights or state._pos[10] >= 0:
            # positions before a loss of castling rights or of an en passant capture cannot recur
            out = ChessState(child, (), (), pos, state._dead)
        else:
            history, since = state._history + (state._pos,), state._since + (move,)
            out = ChessState(child, history, since, pos, state._dead, (state._digest + hash(state._pos)) & _MASK)
        if state._zobrist is not None:  # a search with a table: the child's key will be asked for
            out._parent = (state._zobrist, board)
        return out

    def _has_moves(self, state) -> bool:
        if state._legal is not None:
            return bool(state._legal)
        alive = state._alive
        if alive is None:  # the first legal move is enough: leaves of a search need no more
            alive = state._alive = any(state._board.generate_legal_moves())
        return alive

    def is_terminal(self, state) -> bool:
        return self._over(state) or not self._has_moves(state)

    def ending(self, state) -> str | None:
        """Why the game is over ('checkmate', 'stalemate', 'threefold repetition'...), or None."""
        if not self._has_moves(state):
            return "checkmate" if state._board.is_check() else "stalemate"
        if state._dead:
            return "insufficient material"
        if state._reps >= self._reps_limit:
            return self._reps_text
        if state._board.halfmove_clock >= self._clock_limit:
            return self._clock_text
        return None

    def utility(self, state, player: int) -> float:
        if not self._has_moves(state) and state._board.is_check():
            return -1 if player == self.to_move(state) else 1
        return 0

    def heuristic(self, state, player: int) -> float:
        """Material in pawns plus a little for pawns on their sixth and seventh ranks, scaled into (-0.9, 0.9)."""
        b = state._board
        black, white = b.occupied_co  # indexed by colour: BLACK is False, WHITE is True
        score = 0.0
        for bits, value in zip((b.pawns, b.knights, b.bishops, b.rooks, b.queens), _VALUES):
            score += value * ((bits & white).bit_count() - (bits & black).bit_count())
        pawns = b.pawns
        for bonus, ours, theirs in _PASSING:
            mine, others = pawns & white & chess.BB_RANKS[ours], pawns & black & chess.BB_RANKS[theirs]
            score += bonus * (mine.bit_count() - others.bit_count())
        value = 0.9 * score / (abs(score) + 10.0)
        return value if player == 0 else -value

    def move_priorities(self, state, moves) -> list[float]:
        """Promotions and captures first, the most valuable victim by the least valuable attacker."""
        b = state._board
        theirs, ep, pawns = b.occupied_co[not b.turn], b.ep_square, b.pawns
        out = []
        for m in moves:  # bit tests where board.is_capture would look for en passant every time
            to = m.to_square
            p = 10 * _VALUES[m.promotion - 1] if m.promotion else 0.0
            if theirs >> to & 1:
                p += 10 * _VALUES[b.piece_type_at(to) - 1] - b.piece_type_at(m.from_square)
            elif to == ep and pawns >> m.from_square & 1:
                p += 9.0  # en passant: a pawn takes a pawn
            out.append(p)
        return out

    def key(self, state):
        """The Zobrist hash where the past cannot matter, else with the clock and the earlier positions.

        Right after a capture or pawn move nothing earlier can recur and the move-rule
        clock is 0, so the position alone decides the game: transposed move orders share
        the key. Elsewhere a repetition or the clock may change the value, so they are part
        of the key and a stored value is never reused where they differ.
        """
        z = state._zobrist
        if z is None:
            parent = state._parent
            if parent is None:
                z = chess.polyglot.zobrist_hash(state._board)
            else:
                z = _zobrist_after(parent[0], parent[1], state._board)
                state._parent = None
            state._zobrist = z
        clock = state._board.halfmove_clock
        if not clock and not state._history:
            return z
        return (z, clock, state._digest)

    def player_name(self, player: int) -> str:
        return ("white", "black")[player]

    def result_text(self, state) -> str:
        why = self.ending(state)
        if why is None:
            return "not over"
        if why == "checkmate":
            return f"checkmate: {self.player_name(1 - self.to_move(state))} wins"
        return f"draw by {why}"

    def render(self, state) -> str:
        b = state._board
        grid = ["."] * 64
        white = b.occupied_co[chess.WHITE]
        pieces = (b.pawns, b.knights, b.bishops, b.rooks, b.queens, b.kings)
        for bits, letter in zip(pieces, "pnbrqk"):
            for sq in chess.scan_forward(bits):
                grid[sq] = letter.upper() if white >> sq & 1 else letter
        rows = [grid[r * 8 : r * 8 + 8] for r in range(7, -1, -1)]
        lines = ["  a b c d e f g h"]
        lines += [f"{8 - i} {' '.join(row)} {8 - i}" for i, row in enumerate(rows)]
        lines.append(lines[0])
        lines.append(f"FEN {_fen(rows, b, state._pos[10])}")
        if state._since:
            times = f"; this position {state._reps} times" if state._reps > 1 else ""
            since = " ".join(m.uci() for m in state._since)
            lines += textwrap.wrap(f"since the last capture, pawn move or castling change: {since}{times}", 80)
        if self.is_terminal(state):
            lines.append(f"game over: {self.result_text(state)}")
        else:
            check = " (in check)" if b.is_check() else ""
            lines.append(f"{self.player_name(self.to_move(state))} to move{check}; halfmove clock {b.halfmove_clock}")
        return "\n".join(lines)

    def svg(self, state) -> str:
        """python-chess's picture of the board, the king in check marked."""
        import chess.svg

        board = state._board
        check = board.king(board.turn) if board.is_check() else None
        return chess.svg.board(board, size=360, check=check)

    def format_move(self, move) -> str:
        try:
            return _TEXT[move]
        except KeyError:  # a few thousand moves exist: each is spelled once
            text = _TEXT[move] = move.uci()
            return text

    def parse_move(self, text: str):
        t = text.strip().lower()
        if not _MOVE.fullmatch(t) or t[:2] == t[2:4]:
            raise self.bad_move_text(text, "a move in UCI: two squares and any promotion piece, e.g. 'e2e4', 'e7e8q'")
        return chess.Move.from_uci(t)


def _fen(rows, b, ep: int) -> str:
    """The FEN of a board drawn as ``rows`` (the en passant square only where a capture is legal)."""
    placement = "/".join(re.sub(r"\.+", lambda m: str(len(m.group())), "".join(row)) for row in rows)
    rooks = (chess.H1, chess.A1, chess.H8, chess.A8)
    rights = "".join(c for c, sq in zip("KQkq", rooks) if b.castling_rights >> sq & 1)
    side = "w" if b.turn else "b"
    square = chess.SQUARE_NAMES[ep] if ep >= 0 else "-"
    return f"{placement} {side} {rights or '-'} {square} {b.halfmove_clock} {b.fullmove_number}"
