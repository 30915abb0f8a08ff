"""The negamax core's node functions, as closures over a ``bots.search.Search``'s options
and its game's methods (the hot path: locals are the fastest names Python has).

Two copies, side by side: ``negamax``, the search itself, and ``recording_negamax``, the
same search with every node recorded into an ``arena.searchtree.Recorder`` (``Search``
chooses it once per search when it is given a recorder, so a search that records nothing
runs the fast functions untouched). The recording copy searches exactly as
``value_informed`` and ``leaves_value`` do (which reduce to ``value_plain`` without a
table, tactics or value bounds): the same moves in the same order, the same windows,
table entries, killers and history, so a recorded search finds the same values with the
same nodes. A change to one copy is made to the other; tests/test_search_record.py holds
them to the same values, nodes and lines on known answers. Both keep results in the
table through one ``table_store``.
"""

from __future__ import annotations

from math import inf

from arena.searchtree import BOUNDS, HORIZON, INNER, LEAF, TABLE
from bots.table import EXACT, LOWER, SOLVED, UPPER

#: Width of a null window; values closer than this count as equal.
EPSILON = 1e-9
#: Plies from the horizon from which the game's tactics rank the moves (nearer the
#: horizon, ranking them costs more than it saves).
RANKED = 4


def negamax(search):
    """``(value, child_value)`` of ``search``: ``value(state, me, depth, alpha, beta, ply)``.

    ``value`` is one of two functions, chosen here once: ``value_plain`` for a bare
    search, ``value_informed`` where a table, the game's tactics or its value bounds
    take part. Each is one Python frame per ply: both open with the same few lines and
    write out the same loop over the children (a call per node to share them cost more
    than the lines, see ``value_plain``); only the children one ply above the horizon
    are scored in a call of their own, ``leaves_value``.
    """
    game = search.game
    is_terminal, utility, heuristic = game.is_terminal, game.utility, game.heuristic
    legal_moves, apply, to_move = game.legal_moves, game.apply, game.to_move
    key_of, table, tactics, value_bounds = search.key, search.table, search.tactics, search.value_bounds
    entries = table.entries if table is not None else None
    size = table.size if table is not None else 0
    pruning, pvs, ordering = search.pruning, search.pvs, search.ordering
    order = search.order
    remember = search._cutoff if ordering and search.priorities is None else None
    lines, horizon = search.lines, search.horizon

    def value_plain(state, me, depth, alpha, beta, ply):
        """The value of ``state`` for ``me``, the player to move, searched ``depth`` plies."""
        lines[ply] = ()
        if is_terminal(state):
            return utility(state, me)
        if depth <= 0:
            horizon[0] = True
            return heuristic(state, me)
        if len(lines) <= ply + 1:
            lines.append(())
        moves = legal_moves(state)
        if ordering:
            moves = order(state, moves, None, ply, depth == 1)
        if depth == 1:
            return leaves_value(state, me, moves, alpha, beta, ply)
        # the loop over the children, written out here and in value_informed (and the
        # child step, child_value, with it): a function for it put two Python frames
        # per ply on the stack, and deep solves ran 14-18% slower (bench/RESULTS.md,
        # 2026-11-23)
        best = -inf
        deeper, below = depth - 1, ply + 1  # the children's
        for i, move in enumerate(moves):
            child = apply(state, move)
            mover = to_move(child)
            if mover == me:
                v = value(child, mover, deeper, alpha, beta, below)
            elif pvs and i:
                v = -value(child, mover, deeper, -alpha - EPSILON, -alpha, below)
                if alpha < v < beta:
                    v = -value(child, mover, deeper, -beta, -v, below)
            else:
                v = -value(child, mover, deeper, -beta, -alpha, below)
            if v > best:
                best = v
                lines[ply] = (move,) + lines[below]
                if v > alpha:
                    alpha = v
                    if pruning and alpha >= beta:
                        if remember is not None:
                            remember(move, depth, ply)
                        break
        return best

    def child_value(state, move, me, depth, alpha, beta, ply, scout):
        """The value for ``me`` of playing ``move``, the child searched ``depth`` plies at
        ``ply``; with ``scout``, a null window first (PVS), the full one if it fails."""
        child = apply(state, move)
        mover = to_move(child)
        if mover == me:  # an extra turn: the child's values are ``me``'s
            return value(child, mover, depth, alpha, beta, ply)
        if scout:
            v = -value(child, mover, depth, -alpha - EPSILON, -alpha, ply)
            if not alpha < v < beta:
                return v
            return -value(child, mover, depth, -beta, -v, ply)
        return -value(child, mover, depth, -beta, -alpha, ply)

    def leaves_value(state, me, moves, alpha, beta, ply):
        """The best value of ``moves`` in ``state`` one ply above the horizon, each child
        scored here rather than in a call of its own (for ``me`` directly: utilities and
        heuristics are zero-sum, see arena.testing); the best move goes to ``lines[ply]``."""
        best = -inf
        for move in moves:
            child = apply(state, move)
            if is_terminal(child):
                v = utility(child, me)
            else:
                horizon[0] = True
                v = heuristic(child, me)
            if v > best:
                best = v
                lines[ply] = (move,)
                if v > alpha:
                    alpha = v
                    if pruning and alpha >= beta:
                        if remember is not None:
                            remember(move, 1, ply)
                        break
        return best

    def value_informed(state, me, depth, alpha, beta, ply):
        """``value_plain`` where the table, the game's tactics or its value bounds may
        settle the value or narrow the window, and the table learns the result."""
        lines[ply] = ()
        if is_terminal(state):
            return utility(state, me)
        if depth <= 0:
            horizon[0] = True
            return heuristic(state, me)
        if len(lines) <= ply + 1:
            lines.append(())
        key = first = plan = None
        deep = tainted = False
        if entries is not None:
            key = key_of(state)
            entry = entries.get(key)
            if entry is not None:
                known_depth, bound, v, move, _, known_plan, known_state = entry  # an Entry
                same = known_state == state  # not a symmetric image: its move and plan apply
                if same:
                    first = move
                    deep = known_depth >= depth
                if known_depth >= depth:
                    if bound == EXACT or (bound == LOWER and v >= beta) or (bound == UPPER and v <= alpha):
                        if known_depth < SOLVED:
                            horizon[0] = True
                        return v
                    # a bound that does not cut still narrows the window
                    tainted = known_depth < SOLVED
                    if bound == LOWER:
                        if v > alpha:
                            alpha = v
                    elif v < beta:
                        beta = v
                if depth >= 2 and same:
                    plan = known_plan  # the game's ranked tactics, kept from an earlier visit
        if plan is None and tactics is not None and depth >= 2:
            plan = tactics(state, depth >= RANKED)
            if plan[0] == plan[1]:
                if entries is not None and len(entries) < size:
                    entries[key] = (SOLVED, EXACT, plan[0], None, table.generation, None, state)
                return plan[0]
        if plan is not None:
            floor, ceiling, moves = plan
        else:
            moves = None
            floor, ceiling = value_bounds(state, me) if value_bounds is not None else (None, None)
        if floor is not None:
            # the value cannot leave [floor, ceiling] from here: narrow the window
            if ceiling < beta:
                beta = ceiling
                if alpha >= beta:
                    return beta
            if floor > alpha:
                alpha = floor
                if alpha >= beta:
                    return alpha
        if moves is None:
            moves = legal_moves(state)
            if ordering:
                moves = order(state, moves, first, ply, depth == 1)
        elif deep and first is not None and moves[0] != first:
            moves = [first] + [m for m in moves if m != first]  # the tactics' order, table's move first
        outer_horizon, horizon[0] = horizon[0], False
        window = alpha  # the table judges the result against the window as given
        if depth == 1:
            best = leaves_value(state, me, moves, alpha, beta, ply)
        else:  # value_plain's loop over the children, written out again (see there)
            best = -inf
            deeper, below = depth - 1, ply + 1  # the children's
            for i, move in enumerate(moves):
                child = apply(state, move)
                mover = to_move(child)
                if mover == me:
                    v = value(child, mover, deeper, alpha, beta, below)
                elif pvs and i:
                    v = -value(child, mover, deeper, -alpha - EPSILON, -alpha, below)
                    if alpha < v < beta:
                        v = -value(child, mover, deeper, -beta, -v, below)
                else:
                    v = -value(child, mover, deeper, -beta, -alpha, below)
                if v > best:
                    best = v
                    lines[ply] = (move,) + lines[below]
                    if v > alpha:
                        alpha = v
                        if pruning and alpha >= beta:
                            if remember is not None:
                                remember(move, depth, ply)
                            break
        below_horizon = horizon[0] or tainted
        horizon[0] = outer_horizon or below_horizon
        if entries is not None:
            best_move = lines[ply][0] if lines[ply] else None
            kept = plan if depth >= RANKED else None
            store(key, state, depth if below_horizon else SOLVED, best, best_move, window, beta, kept)
        return best

    store = table_store(table) if table is not None else None

    informed = entries is not None or tactics is not None or value_bounds is not None
    value = value_informed if informed else value_plain
    return value, child_value


def recording_negamax(search, recorder):
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
            plan = tactics(state, depth >= RANKED)
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
            kept = plan if depth >= RANKED else None
            store(key, state, depth if below_horizon else SOLVED, best, best_move, window, beta, kept)
        return leave(best, INNER, cut, moves[cut:] if cut else (), skipped)

    def child_value(state, move, me, depth, alpha, beta, ply, scout):
        child = apply(state, move)
        mover = to_move(child)
        if mover == me:
            return value(child, mover, depth, alpha, beta, ply, move)
        if scout:
            v = -value(child, mover, depth, -alpha - EPSILON, -alpha, ply, move)
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

    store = table_store(table) if table is not None else None

    return value, child_value


def table_store(table):
    """``store(key, state, depth, best, best_move, alpha, beta, plan)``: keep in ``table`` what a
    search of ``state`` in the window (alpha, beta) found (both copies' own)."""
    entries, size = table.entries, table.size

    def store(key, state, depth, best, best_move, alpha, beta, plan):
        generation = table.generation
        old = entries.get(key)
        if old is not None:
            old_depth, _, _, _, old_generation, _, _ = old  # an Entry
            if old_generation == generation and depth < old_depth:
                return  # a deeper result of this search stays
        elif len(entries) >= size:
            table.make_room()
        bound = UPPER if best <= alpha else LOWER if best >= beta else EXACT
        # an Entry's fields as a plain tuple: building an Entry costs more (see bots.table)
        entries[key] = (depth, bound, best, best_move, generation, plan, state)

    return store
