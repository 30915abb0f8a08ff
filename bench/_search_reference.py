"""Alpha-beta searches written for 7x6 Connect Four alone: the yardstick of bench/search.py.

A state is ``games.connect4``'s: ``(stones of the player to move, mask of all stones,
moves played, status)``, in Pascal Pons's bitboard layout (bit 7 * column + row, row 0 at
the bottom, the seventh bit of each column always empty). Moves are made, tested for a
win and counted inline; the leaves are scored by the ``heuristic(state, player)`` given
(a game's own), a win is 1 and a draw 0. Each search returns (value for the side to
move, nodes), nodes counted as the arena does: the root and every position made.

Three modes, after the bot specs of ``MODES``:

  plain    the tree of ``bots.search.Search`` with pruning alone: fail-soft negamax,
           columns in ``legal_moves`` order (0 to 6), the last ply's children scored in
           their parent's loop.
  table    ``plain`` with the core's transposition table: keyed like ``ConnectFour.key``
           (a position and its mirror image share a key); an entry is (depth, bound,
           value), its depth that of the search below it, or ``SOLVED`` when no leaf
           below was cut off by the depth limit (a value taken from an entry of limited
           depth counts as such a leaf); an entry at least as deep as the search asks
           gives its value if its bound cuts, else narrows the window; within one search
           an entry is replaced only by one at least as deep, and a full table keeps its
           deeper half (``bots.table.Table``). Without ordering the table's move is not
           tried first, so no move is stored.
  ordered  the table move first, then centre first; a dict table keyed by
           ``position + mask``. A tree of its own: the generic search with ordering uses
           the game's ``tactics`` (wins at once, forced blocks, moves that lose at once
           skipped, threat-ranked moves), which this search does not.

``plain`` and ``table`` examine the generic search's nodes one for one and give its
value, so their time per node is the yardstick of the generic game interface's cost.
"""

from __future__ import annotations

from math import inf

#: mode: (bot spec with {depth}, reference_search keywords)
MODES = {
    "plain": ("alphabeta:depth={depth},ordering=false,table=false,window=infinite", {}),
    "table": ("alphabeta:depth={depth},ordering=false,table=true,window=infinite", {"table": True}),
    "ordered": ("alphabeta:depth={depth},ordering=true,table=true", {"table": True, "ordering": True}),
}
#: The default of the bots' ``table_size``.
TABLE_SIZE = 1 << 18
SOLVED = 1 << 30
_EXACT, _LOWER, _UPPER = 0, 1, 2
#: (column, its top cell, its bottom cell), columns in ``legal_moves`` order.
_COLUMNS = tuple((c, 1 << (7 * c + 5), 1 << (7 * c)) for c in range(7))
_CENTRE_FIRST = (3, 2, 4, 1, 5, 0, 6)
#: Columns for each table move (-1: none): that column, then centre first.
_ORDERS = {
    first: tuple(_COLUMNS[c] for c in ((first,) if first >= 0 else ()) + tuple(x for x in _CENTRE_FIRST if x != first))
    for first in range(-1, 7)
}


def mirror_key(code: int) -> int:
    """``ConnectFour.key`` of the position ``code = position + mask``: the smaller of it and its mirror image."""
    mirrored = ((code & 127) << 42 | (code >> 7 & 127) << 35 | (code >> 14 & 127) << 28 | code & 127 << 21
                | (code >> 28 & 127) << 14 | (code >> 35 & 127) << 7 | code >> 42)
    return code if code < mirrored else mirrored


def reference_search(state, depth: int, heuristic, alpha: float = -inf, beta: float = inf, *,
                     table: bool = False, ordering: bool = False, size: int = TABLE_SIZE) -> tuple[float, int]:
    """Fail-soft alpha-beta of ``state`` to ``depth`` >= 1 in the mode given by ``table`` and
    ``ordering`` (see the module): (value for the side to move, nodes)."""
    if state[3]:
        raise ValueError(f"reference_search: the game is over in state {state!r}")
    if depth < 1:
        raise ValueError(f"reference_search: depth must be at least 1, got {depth}")
    if ordering:
        if not table:
            raise ValueError("reference_search: ordering needs the table")
        search, counter = _ordered(heuristic)
    elif table:
        search, counter = _tabled(heuristic, size)
    else:
        search, counter = _plain(heuristic)
    value = search(state[0], state[1], state[2], depth, alpha, beta)
    return value, counter()


def _plain(heuristic):
    nodes = 1

    def value(position, mask, moves, depth, alpha, beta):
        nonlocal nodes
        opponent, me, moves = position ^ mask, moves & 1, moves + 1  # moves: the children's
        best = -inf
        for _, top, bottom in _COLUMNS:
            if mask & top:
                continue
            child = mask | (mask + bottom)
            nodes += 1
            mine = opponent ^ child
            if moves >= 7 and (
                (m := mine & (mine >> 1)) & (m >> 2)
                or (m := mine & (mine >> 7)) & (m >> 14)
                or (m := mine & (mine >> 6)) & (m >> 12)
                or (m := mine & (mine >> 8)) & (m >> 16)
            ):
                v = 1
            elif moves == 42:
                v = 0
            elif depth == 1:
                v = heuristic((opponent, child, moves, 0), me)
            else:
                v = -value(opponent, child, moves, depth - 1, -beta, -alpha)
            if v > best:
                best = v
                if v > alpha:
                    alpha = v
                    if alpha >= beta:
                        break
        return best

    return value, lambda: nodes


def _tabled(heuristic, size: int):
    nodes, horizon, entries = 1, False, {}

    def value(position, mask, moves, depth, alpha, beta):
        nonlocal nodes, horizon
        code = position + mask
        mirrored = ((code & 127) << 42 | (code >> 7 & 127) << 35 | (code >> 14 & 127) << 28 | code & 127 << 21
                    | (code >> 28 & 127) << 14 | (code >> 35 & 127) << 7 | code >> 42)
        key = code if code < mirrored else mirrored
        entry = entries.get(key)
        tainted = False
        if entry is not None and entry[0] >= depth:
            stored, bound, v = entry
            if bound == _EXACT or (bound == _LOWER and v >= beta) or (bound == _UPPER and v <= alpha):
                if stored < SOLVED:
                    horizon = True
                return v
            tainted = stored < SOLVED
            if bound == _LOWER:
                if v > alpha:
                    alpha = v
            elif v < beta:
                beta = v
        outer, horizon = horizon, False
        start_alpha, best = alpha, -inf
        opponent, me, moves = position ^ mask, moves & 1, moves + 1
        for _, top, bottom in _COLUMNS:
            if mask & top:
                continue
            child = mask | (mask + bottom)
            nodes += 1
            mine = opponent ^ child
            if moves >= 7 and (
                (m := mine & (mine >> 1)) & (m >> 2)
                or (m := mine & (mine >> 7)) & (m >> 14)
                or (m := mine & (mine >> 6)) & (m >> 12)
                or (m := mine & (mine >> 8)) & (m >> 16)
            ):
                v = 1
            elif moves == 42:
                v = 0
            elif depth == 1:
                horizon = True
                v = heuristic((opponent, child, moves, 0), me)
            else:
                v = -value(opponent, child, moves, depth - 1, -beta, -alpha)
            if v > best:
                best = v
                if v > alpha:
                    alpha = v
                    if alpha >= beta:
                        break
        below = horizon or tainted
        horizon = outer or below
        stored = depth if below else SOLVED
        old = entries.get(key)
        if old is None or stored >= old[0]:
            if old is None and len(entries) >= size:
                kept = sorted(entries.items(), key=lambda item: item[1][0], reverse=True)[: size // 2]
                entries.clear()
                entries.update(kept)
            entries[key] = (stored, _UPPER if best <= start_alpha else _LOWER if best >= beta else _EXACT, best)
        return best

    return value, lambda: nodes


def _ordered(heuristic):
    nodes, entries = 1, {}

    def value(position, mask, moves, depth, alpha, beta):
        nonlocal nodes
        key = position + mask
        entry = entries.get(key)  # within one search a key is always met at the same depth
        first = -1
        if entry is not None:
            bound, v, first = entry
            if bound == _EXACT or (bound == _LOWER and v >= beta) or (bound == _UPPER and v <= alpha):
                return v
        start_alpha, best, best_move = alpha, -inf, -1
        opponent, me, moves = position ^ mask, moves & 1, moves + 1
        for col, top, bottom in _ORDERS[first]:
            if mask & top:
                continue
            child = mask | (mask + bottom)
            nodes += 1
            mine = opponent ^ child
            if moves >= 7 and (
                (m := mine & (mine >> 1)) & (m >> 2)
                or (m := mine & (mine >> 7)) & (m >> 14)
                or (m := mine & (mine >> 6)) & (m >> 12)
                or (m := mine & (mine >> 8)) & (m >> 16)
            ):
                v = 1
            elif moves == 42:
                v = 0
            elif depth == 1:
                v = heuristic((opponent, child, moves, 0), me)
            else:
                v = -value(opponent, child, moves, depth - 1, -beta, -alpha)
            if v > best:
                best, best_move = v, col
                if v > alpha:
                    alpha = v
                    if alpha >= beta:
                        break
        entries[key] = (_UPPER if best <= start_alpha else _LOWER if best >= beta else _EXACT, best, best_move)
        return best

    return value, lambda: nodes


def count_evaluations(state, depth: int, heuristic, **options) -> int:
    """Calls of ``heuristic`` in ``reference_search(state, depth, heuristic, **options)``."""
    calls = 0

    def counted(s, player):
        nonlocal calls
        calls += 1
        return heuristic(s, player)

    reference_search(state, depth, counted, **options)
    return calls
