"""The negamax core shared by the minimax, alpha-beta, iterative-deepening and solver bots.

Values are always from the point of view of the player to move at a node. A child
whose mover differs from its parent's is negated (with the window mirrored); one whose
mover is the same is searched as is, so games with extra turns work too.

The arena counts: the game a bot is handed ticks the move's counter in ``apply`` (and
raises BudgetExhausted at the budget), and the referee counts the root. The search only
catches the exception.

Options: alpha-beta pruning; move ordering (the table's move, then the game's
``move_priorities`` if it offers them, but not where the children are leaves, else killer
moves and the history heuristic; with ordering, the game's ``tactics`` if it offers
them); a window narrowed by the game's ``value_bounds`` if it offers them; a
transposition table keyed by the game's ``key`` if it offers one, else by the state;
principal variation search (null windows after the first move).

The game's hooks (``arena.SearchHooks``, contracts on ``arena.Game``) are read once, when
a ``Search`` is made. ``tactics`` is asked where at least two plies remain (ranked from
``RANKED`` plies above the horizon), so it never changes a depth-limited value, only the
work needed to find it.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import inf

from arena import BudgetExhausted, Counter, Game
from bots.search_record import recording_negamax
from bots.table import EXACT, LOWER, SOLVED, UPPER, Table

#: Stands for "no depth limit": deeper than any game here can go.
UNLIMITED = 1 << 30
#: Width of a null window; values closer than this count as equal.
EPSILON = 1e-9
#: Plies from the horizon from which the game's tactics rank the moves (nearer the
#: horizon, ranking them costs more than it saves).
RANKED = 4


@dataclass
class RootResult:
    """What one root search established."""

    move: object
    """Best move among the root moves searched completely (None if none was)."""
    value: float
    """Its value for the player to move."""
    complete: bool
    """Whether every root move was searched (False when the budget ran out)."""
    pv: tuple
    """Principal variation starting with ``move``."""
    exact: bool
    """True when no leaf was cut off by the depth limit: ``value`` is the game value."""
    max_ply: int
    """Deepest ply the search reached."""


def effective_depth(own: int | None, limit: int | None) -> int | None:
    """The shallower of a bot's own depth and the budget's (None: no limit)."""
    if own is None:
        return limit
    return own if limit is None else min(own, limit)


def rank(game: Game, child, me: int) -> float:
    """How good ``child`` looks for ``me`` one ply on: wins above and losses below any heuristic."""
    if game.is_terminal(child):
        u = game.utility(child, me)
        low, high = game.bounds
        return high + u if u > 0 else low + u if u < 0 else 0.0
    return game.heuristic(child, me)


class Search:
    """One search tree's worth of options and memory: a game, a counter, a table."""

    def __init__(
        self,
        game: Game,
        counter: Counter,
        *,
        pruning: bool = True,
        ordering: bool = False,
        table: Table | None = None,
        pvs: bool = False,
        recorder=None,
    ):
        self.game = game
        self.counter = counter
        self.pruning = pruning
        self.ordering = ordering
        self.table = table
        self.pvs = pvs and pruning
        hooks = game.search_hooks()
        self.key = hooks.key or _identity
        self.priorities = hooks.move_priorities if ordering else None
        self.tactics = hooks.tactics if ordering and pruning else None
        self.value_bounds = hooks.value_bounds if pruning else None
        self.killers: list[list] = []
        self.history: dict = {}
        self.horizon = [False]  # [0] is set when a non-terminal leaf is scored by the heuristic
        self.lines: list[tuple] = [()]  # lines[ply]: best line found from that ply
        self.recorder = recorder  # an arena.searchtree.Recorder, or None: record nothing
        if recorder is None:
            self.value, self.child_value = self._negamax()
        else:  # the same search, every node recorded (bots/search_record.py)
            self.value, self.child_value = recording_negamax(self, recorder, EPSILON, RANKED)

    def order(self, state, moves: list, first, ply: int, leaves: bool = False) -> list:
        """``moves`` best-first: ``first`` (the table's or the caller's move), then by priority.

        The game's priorities are not asked for where the children are ``leaves``: scoring
        them all costs about what ranking them would.
        """
        if self.priorities is not None:
            if len(moves) > 1 and not leaves:
                keys = self.priorities(state, moves)
                ranked = sorted(range(len(moves)), key=keys.__getitem__, reverse=True)
                moves = [moves[i] for i in ranked]
        else:
            killers = self.killers[ply] if ply < len(self.killers) else ()
            history = self.history
            if killers or history:
                moves = sorted(moves, key=lambda m: (m in killers, history.get(m, 0)), reverse=True)
        if first is not None and moves[0] != first and first in moves:
            moves.remove(first)
            moves.insert(0, first)
        return moves

    def _cutoff(self, move, depth: int, ply: int) -> None:
        """Remember a move that refuted its sibling position (killers and history)."""
        killers = self.killers
        while len(killers) <= ply:
            killers.append([])
        slot = killers[ply]
        if move not in slot:
            slot.insert(0, move)
            del slot[2:]
        self.history[move] = self.history.get(move, 0) + depth * depth

    def _negamax(self):
        """The recursive search ``value(state, me, depth, alpha, beta, ply)`` and its
        ``child_value``, as closures over the options and game methods (the hot path:
        locals are the fastest names Python has).

        ``value`` is one of two functions, chosen here once: ``value_plain`` for a bare
        search, ``value_informed`` where a table, the game's tactics or its value bounds
        take part. Each is one Python frame per ply: both open with the same few lines and
        write out the same loop over the children (a call per node to share them cost more
        than the lines, see ``value_plain``); only the children one ply above the horizon
        are scored in a call of their own, ``leaves_value``.
        """
        game = self.game
        is_terminal, utility, heuristic = game.is_terminal, game.utility, game.heuristic
        legal_moves, apply, to_move = game.legal_moves, game.apply, game.to_move
        key_of, table, tactics, value_bounds = self.key, self.table, self.tactics, self.value_bounds
        entries = table.entries if table is not None else None
        size = table.size if table is not None else 0
        pruning, pvs, ordering = self.pruning, self.pvs, self.ordering
        order = self.order
        remember = self._cutoff if ordering and self.priorities is None else None
        lines, horizon = self.lines, self.horizon

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

        def store(key, state, depth, best, best_move, alpha, beta, plan):
            """Keep what a search of ``state`` in the window (alpha, beta) found."""
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

        informed = entries is not None or tactics is not None or value_bounds is not None
        value = value_informed if informed else value_plain
        return value, child_value

    def root(self, state, depth: int | None, alpha: float = -inf, beta: float = inf, first=None) -> RootResult:
        """Search every root move to ``depth`` (None: to the end of the game).

        Stops early, keeping the best completed move, when the counter runs out. The
        root itself must already have been counted. ``first`` is searched first. With
        ``tactics``, moves that lose at once are skipped unless every move does.
        """
        depth = UNLIMITED if depth is None else depth
        game = self.game
        me = game.to_move(state)
        self.horizon[0] = False
        self.lines[:] = [(), ()]
        if self.table is not None:
            self.table.new_search()
        moves = None
        if self.tactics is not None and depth >= 2:
            moves = self.tactics(state, depth >= RANKED)[2] or None  # None: settled, or every move loses at once
        if moves is None:
            moves = game.legal_moves(state)
            if self.ordering:
                moves = self.order(state, moves, first, 0)
        if first is not None and moves[0] != first and first in moves:
            moves = [first] + [m for m in moves if m != first]
        child_value, pvs, pruning, recorder = self.child_value, self.pvs, self.pruning, self.recorder
        if recorder is not None:
            recorder.begin(state, me, None if depth == UNLIMITED else depth, alpha, beta)
        best_move, best, line = None, -inf, ()
        complete, cut = False, None
        try:
            for i, move in enumerate(moves):
                v = child_value(state, move, me, depth - 1, alpha, beta, 1, pvs and i)
                if v > best or best_move is None:
                    best_move, best, line = move, v, (move,) + self.lines[1]
                    if v > alpha:
                        alpha = v
                        if pruning and alpha >= beta:
                            cut = i + 1
                            break
            complete = True
        except BudgetExhausted:
            pass
        if recorder is not None:
            skipped = [m for m in game.legal_moves(state) if m not in moves]  # left out by the tactics
            recorder.finish(best_move, best, line, complete, cut, moves[cut:] if cut else (), skipped)
        max_ply = len(self.lines) - 1 if best_move is not None else 0
        return RootResult(best_move, best, complete, line, complete and not self.horizon[0], max_ply)


def _identity(state):
    return state
