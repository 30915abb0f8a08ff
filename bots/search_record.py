"""The negamax core's node functions again, recording every node into an ``arena.searchtree.Recorder``.

``Search`` chooses these instead of its own once per search, when it is given a
recorder, so a search that records nothing runs the fast functions untouched. They
search exactly as ``value_informed`` and ``leaves_value`` do in bots/search.py (which
reduce to ``value_plain`` without a table, tactics or value bounds): the same moves in
the same order, the same windows, table entries, killers and history, so a recorded
search finds the same values with the same nodes. A change to the search there must be
made here too; tests/test_search_record.py compares the two on known answers.

Speed is not the aim here: one function per node, and the move that led to a node is
passed down so that the recorder knows the path.
"""

from __future__ import annotations

from math import inf

from arena.searchtree import BOUNDS, HORIZON, INNER, LEAF, TABLE
from bots.table import EXACT, LOWER, SOLVED, UPPER


def recording_negamax(search, recorder, epsilon: float, ranked: int):
    """``(value, child_value)`` for ``search`` (a ``bots.search.Search``) that record into ``recorder``."""
    game = search.game
    is_terminal, utility, heuristic = game.is_terminal, game.utility, game.heuristic
    legal_moves, apply, to_move = game.legal_moves, game.apply, game.to_move
    key_of, table, tactics, value_bounds = search.key, search.table, search.tactics, search.value_bounds
    entries = table.entries if table is not None else None
    size = table.size if table is not None else 0
    pruning, ordering = search.pruning, search.ordering
    order = search.order
    remember = search._cutoff if ordering and search.priorities is None else None
    lines, horizon = search.lines, search.horizon
    enter, leave, leaf = recorder.enter, recorder.leave, recorder.leaf

    def value(state, me, depth, alpha, beta, ply, move=None, repeat=False):
        enter(move, state, me, ply, alpha, beta, repeat)
        lines[ply] = ()
        if is_terminal(state):
            return leave(utility(state, me), LEAF)
        if depth <= 0:
            horizon[0] = True
            return leave(heuristic(state, me), HORIZON)
        if len(lines) <= ply + 1:
            lines.append(())
        key = first = plan = None
        deep = tainted = False
        if entries is not None:
            key = key_of(state)
            entry = entries.get(key)
            if entry is not None:
                known_depth, bound, v, known_move, _, known_plan, known_state = entry
                same = known_state == state
                if same:
                    first = known_move
                    deep = known_depth >= depth
                if known_depth >= depth:
                    if bound == EXACT or (bound == LOWER and v >= beta) or (bound == UPPER and v <= alpha):
                        if known_depth < SOLVED:
                            horizon[0] = True
                        return leave(v, TABLE)
                    tainted = known_depth < SOLVED
                    if bound == LOWER:
                        if v > alpha:
                            alpha = v
                    elif v < beta:
                        beta = v
                if depth >= 2 and same:
                    plan = known_plan
        if plan is None and tactics is not None and depth >= 2:
            plan = tactics(state, depth >= ranked)
            if plan[0] == plan[1]:
                if entries is not None and len(entries) < size:
                    entries[key] = (SOLVED, EXACT, plan[0], None, table.generation, None, state)
                return leave(plan[0], BOUNDS)
        skipped = ()
        if plan is not None:
            floor, ceiling, moves = plan
            if moves is not None:
                skipped = [m for m in legal_moves(state) if m not in moves]
        else:
            moves = None
            floor, ceiling = value_bounds(state, me) if value_bounds is not None else (None, None)
        if floor is not None:
            if ceiling < beta:
                beta = ceiling
                if alpha >= beta:
                    return leave(beta, BOUNDS)
            if floor > alpha:
                alpha = floor
                if alpha >= beta:
                    return leave(alpha, BOUNDS)
        if moves is None:
            moves = legal_moves(state)
            if ordering:
                moves = order(state, moves, first, ply, depth == 1)
        elif deep and first is not None and moves[0] != first:
            moves = [first] + [m for m in moves if m != first]
        outer_horizon, horizon[0] = horizon[0], False
        window = alpha
        if depth == 1:
            best, cut = leaves_value(state, me, moves, alpha, beta, ply)
        else:
            best, cut = -inf, None
            deeper, below = depth - 1, ply + 1
            for i, move in enumerate(moves):
                v = child_value(state, move, me, deeper, alpha, beta, below, search.pvs and i)
                if v > best:
                    best = v
                    lines[ply] = (move,) + lines[below]
                    if v > alpha:
                        alpha = v
                        if pruning and alpha >= beta:
                            if remember is not None:
                                remember(move, depth, ply)
                            cut = i + 1
                            break
        below_horizon = horizon[0] or tainted
        horizon[0] = outer_horizon or below_horizon
        if entries is not None:
            best_move = lines[ply][0] if lines[ply] else None
            kept = plan if depth >= ranked else None
            store(key, state, depth if below_horizon else SOLVED, best, best_move, window, beta, kept)
        return leave(best, INNER, cut, moves[cut:] if cut else (), skipped)

    def child_value(state, move, me, depth, alpha, beta, ply, scout):
        child = apply(state, move)
        mover = to_move(child)
        if mover == me:
            return value(child, mover, depth, alpha, beta, ply, move)
        if scout:
            v = -value(child, mover, depth, -alpha - epsilon, -alpha, ply, move)
            if not alpha < v < beta:
                return v
            return -value(child, mover, depth, -beta, -v, ply, move, True)
        return -value(child, mover, depth, -beta, -alpha, ply, move)

    def leaves_value(state, me, moves, alpha, beta, ply):
        """``leaves_value`` of bots/search.py, each child recorded: (best, cut)."""
        best = -inf
        below = ply + 1
        for i, move in enumerate(moves):
            child = apply(state, move)
            mover = to_move(child)
            if is_terminal(child):
                v, kind = utility(child, me), LEAF
            else:
                horizon[0] = True
                v, kind = heuristic(child, me), HORIZON
            if mover == me:
                leaf(move, child, mover, below, alpha, beta, v, kind)
            else:
                leaf(move, child, mover, below, -beta, -alpha, -v, kind)
            if v > best:
                best = v
                lines[ply] = (move,)
                if v > alpha:
                    alpha = v
                    if pruning and alpha >= beta:
                        if remember is not None:
                            remember(move, 1, ply)
                        return best, i + 1
        return best, None

    def store(key, state, depth, best, best_move, alpha, beta, plan):
        generation = table.generation
        old = entries.get(key)
        if old is not None:
            old_depth, _, _, _, old_generation, _, _ = old
            if old_generation == generation and depth < old_depth:
                return
        elif len(entries) >= size:
            table.make_room()
        bound = UPPER if best <= alpha else LOWER if best >= beta else EXACT
        entries[key] = (depth, bound, best, best_move, generation, plan, state)

    return value, child_value
