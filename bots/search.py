"""The negamax core shared by the minimax, alpha-beta, iterative-deepening and solver bots.

Values are always from the point of view of the player to move at a node. A child
whose mover differs from its parent's is negated (with the window mirrored); one whose
mover is the same is searched as is, so games with extra turns work too.

Every position produced by ``game.apply`` is counted with one ``tick`` as it is made,
and the root is counted by the caller: that is the node count the arena records.

Options: alpha-beta pruning; move ordering (the table's move, then the game's own
priorities if it offers ``move_priorities(state, moves)``, but not below the root where
the children are leaves, else killer moves and the history heuristic; with ordering, the
game's ``tactics(state, rank)`` fast path if it offers it); a window narrowed by the
game's ``value_bounds(state, player)`` if it offers them; a transposition table keyed by
``game.key(state)`` if the game offers it, else by the state; principal variation search
(null windows after the first move).

``tactics(state, rank)`` returns ``(floor, ceiling, moves)`` from one ply of look-ahead:
the position's value for the player to move lies in [floor, ceiling] (equal when settled,
e.g. by a win at once or two threats the opponent cannot both block), and ``moves`` are
the moves that do not lose at once, best first (``rank=False``: a cheaper, rougher
order, asked for within three plies of the horizon). It is used where at least two plies
remain, so it never changes a depth-limited value, only the work needed to find it.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import inf

from arena import BudgetExhausted, Counter, Game
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


def count_root(budget: Counter) -> bool:
    """Count the root position; False if the budget allows not even that."""
    try:
        budget.tick()
    except BudgetExhausted:
        return False
    return True


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
    ):
        self.game = game
        self.counter = counter
        self.pruning = pruning
        self.ordering = ordering
        self.table = table
        self.pvs = pvs and pruning
        self.key = getattr(game, "key", None) or _identity
        self.priorities = getattr(game, "move_priorities", None) if ordering else None
        self.tactics = getattr(game, "tactics", None) if ordering and pruning else None
        self.value_bounds = getattr(game, "value_bounds", None) if pruning else None
        self.killers: list[list] = []
        self.history: dict = {}
        self.horizon = [False]  # [0] is set when a non-terminal leaf is scored by the heuristic
        self.lines: list[tuple] = [()]  # lines[ply]: best line found from that ply
        self.value = self._negamax()

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
        """The recursive search, ``value(state, me, depth, alpha, beta, ply)``, with every
        option and game method bound once as a local of the closure (the hot path)."""
        game = self.game
        is_terminal, utility, heuristic = game.is_terminal, game.utility, game.heuristic
        legal_moves, apply, to_move = game.legal_moves, game.apply, game.to_move
        tick = self.counter.tick
        key_of, table, tactics, value_bounds = self.key, self.table, self.tactics, self.value_bounds
        entries = table.entries if table is not None else None
        size = table.size if table is not None else 0
        pruning, pvs, ordering = self.pruning, self.pvs, self.ordering
        order = self.order
        remember = self._cutoff if ordering and self.priorities is None else None
        lines, horizon = self.lines, self.horizon
        extras = entries is not None or tactics is not None or value_bounds is not None

        def value(state, me, depth, alpha, beta, ply):
            lines[ply] = ()
            if is_terminal(state):
                return utility(state, me)
            if depth <= 0:
                horizon[0] = True
                return heuristic(state, me)
            if len(lines) <= ply + 1:
                lines.append(())
            tainted = False
            if extras:  # the table, the game's tactics or its value bounds
                first, plan, deep = None, None, False
                if entries is not None:
                    key = key_of(state)
                    entry = entries.get(key)
                    if entry is not None:
                        same = entry[6] == state  # not a symmetric image: its move and plan apply
                        if same:
                            first = entry[3]
                            deep = entry[0] >= depth
                        if entry[0] >= depth:
                            bound, v = entry[1], entry[2]
                            if bound == EXACT or (bound == LOWER and v >= beta) or (bound == UPPER and v <= alpha):
                                if entry[0] < SOLVED:
                                    horizon[0] = True
                                return v
                            # a bound that does not cut still narrows the window
                            tainted = entry[0] < SOLVED
                            if bound == LOWER:
                                if v > alpha:
                                    alpha = v
                            elif v < beta:
                                beta = v
                        if depth >= 2 and same:
                            plan = entry[5]  # the game's ranked tactics, kept from an earlier visit
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
                if deep and moves is not None and first is not None and moves[0] != first:
                    moves = [first] + [m for m in moves if m != first]  # the tactics' order, table's move first
            else:
                moves = first = None
            if moves is None:
                moves = legal_moves(state)
                if ordering:
                    moves = order(state, moves, first, ply, depth == 1)
            outer_horizon, horizon[0] = horizon[0], False
            start_alpha = alpha
            best, best_move = -inf, None
            depth -= 1
            if depth == 0:
                # the children are leaves: score them here rather than in a call each (for
                # ``me`` directly: utilities and heuristics are zero-sum, see arena.testing)
                for move in moves:
                    child = apply(state, move)
                    tick()
                    if is_terminal(child):
                        v = utility(child, me)
                    else:
                        horizon[0] = True
                        v = heuristic(child, me)
                    if v > best:
                        best, best_move = v, move
                        lines[ply] = (move,)
                        if v > alpha:
                            alpha = v
                            if pruning and alpha >= beta:
                                if remember is not None:
                                    remember(move, 1, ply)
                                break
            else:
                for i, move in enumerate(moves):
                    child = apply(state, move)
                    tick()
                    mover = to_move(child)
                    if mover == me:
                        v = value(child, mover, depth, alpha, beta, ply + 1)
                    elif pvs and i:
                        v = -value(child, mover, depth, -alpha - EPSILON, -alpha, ply + 1)
                        if alpha < v < beta:
                            v = -value(child, mover, depth, -beta, -v, ply + 1)
                    else:
                        v = -value(child, mover, depth, -beta, -alpha, ply + 1)
                    if v > best:
                        best, best_move = v, move
                        lines[ply] = (move,) + lines[ply + 1]
                        if v > alpha:
                            alpha = v
                            if pruning and alpha >= beta:
                                if remember is not None:
                                    remember(move, depth + 1, ply)
                                break
            below_horizon = horizon[0] or tainted
            horizon[0] = outer_horizon or below_horizon
            if entries is not None:
                stored = depth + 1 if below_horizon else SOLVED
                old = entries.get(key)
                generation = table.generation
                if old is None or old[4] != generation or stored >= old[0]:
                    if old is None and len(entries) >= size:
                        table.make_room()
                    bound = UPPER if best <= start_alpha else LOWER if best >= beta else EXACT
                    entries[key] = (stored, bound, best, best_move, generation, plan if depth + 1 >= RANKED else None, state)
            return best

        return value

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
        value = self.value
        best_move, best, line = None, -inf, ()
        complete = False
        try:
            for i, move in enumerate(moves):
                child = game.apply(state, move)
                self.counter.tick()
                mover = game.to_move(child)
                if mover == me:
                    v = value(child, mover, depth - 1, alpha, beta, 1)
                elif self.pvs and i > 0:
                    v = -value(child, mover, depth - 1, -alpha - EPSILON, -alpha, 1)
                    if alpha < v < beta:
                        v = -value(child, mover, depth - 1, -beta, -v, 1)
                else:
                    v = -value(child, mover, depth - 1, -beta, -alpha, 1)
                if v > best or best_move is None:
                    best_move, best, line = move, v, (move,) + self.lines[1]
                    if v > alpha:
                        alpha = v
                        if self.pruning and alpha >= beta:
                            break
            complete = True
        except BudgetExhausted:
            pass
        max_ply = len(self.lines) - 1 if best_move is not None else 0
        return RootResult(best_move, best, complete, line, complete and not self.horizon[0], max_ply)


def _identity(state):
    return state
