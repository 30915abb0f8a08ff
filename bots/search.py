"""The negamax core shared by the minimax, alpha-beta, iterative-deepening and solver bots.

Values are always from the point of view of the player to move at a node. A child
whose mover differs from its parent's is negated (with the window mirrored); one whose
mover is the same is searched as is, so games with extra turns work too.

Every position produced by ``game.apply`` is counted with one ``tick`` as it is made,
and the root is counted by the caller: that is the node count the arena records.

Options: alpha-beta pruning; move ordering (the table's move, then the game's own
priorities if it offers ``move_priorities(state, moves)``, else killer moves and the
history heuristic); a window narrowed by the game's ``value_bounds(state, player)`` if
it offers them; a transposition table keyed by ``game.key(state)`` if the game
offers it, else by the state; principal variation search (null windows after the
first move).
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
        self.value_bounds = getattr(game, "value_bounds", None) if pruning else None
        self.killers: list[list] = []
        self.history: dict = {}
        self.horizon = False  # set when a non-terminal leaf is scored by the heuristic
        self.lines: list[tuple] = [()]  # lines[ply]: best line found from that ply

    def order(self, state, moves: list, first, ply: int) -> list:
        """``moves`` best-first: ``first`` (the table's or the caller's move), then by priority."""
        if self.priorities is not None:
            keys = self.priorities(state, moves)
            ranked = sorted(range(len(moves)), key=keys.__getitem__, reverse=True)
            moves = [moves[i] for i in ranked]
        else:
            killers = self.killers[ply] if ply < len(self.killers) else ()
            history = self.history
            if killers or history:
                moves = sorted(moves, key=lambda m: (m in killers, history.get(m, 0)), reverse=True)
        if first is not None and first in moves and moves[0] != first:
            moves.remove(first)
            moves.insert(0, first)
        return moves

    def _cutoff(self, move, depth: int, ply: int) -> None:
        """Remember a move that refuted its sibling position (killers and history)."""
        if self.priorities is not None:
            return
        killers = self.killers
        while len(killers) <= ply:
            killers.append([])
        slot = killers[ply]
        if move not in slot:
            slot.insert(0, move)
            del slot[2:]
        self.history[move] = self.history.get(move, 0) + depth * depth

    def value(self, state, me: int, depth: int, alpha: float, beta: float, ply: int) -> float:
        game = self.game
        lines = self.lines
        lines[ply] = ()
        if game.is_terminal(state):
            return game.utility(state, me)
        if depth <= 0:
            self.horizon = True
            return game.heuristic(state, me)
        if len(lines) <= ply + 1:
            lines.append(())
        if self.value_bounds is not None:
            # the game knows the value cannot leave [floor, ceiling] from here: narrow the window
            floor, ceiling = self.value_bounds(state, me)
            if ceiling < beta:
                beta = ceiling
                if alpha >= beta:
                    return beta
            if floor > alpha:
                alpha = floor
                if alpha >= beta:
                    return alpha
        table = self.table
        first = None
        if table is not None:
            key = self.key(state)
            slot = hash(key) % table.size
            entry = table.slots[slot]
            if entry is not None and entry[0] == key:
                first = entry[4]
                if entry[1] >= depth:
                    bound, v = entry[2], entry[3]
                    if bound == EXACT or (bound == LOWER and v >= beta) or (bound == UPPER and v <= alpha):
                        if entry[1] < SOLVED:
                            self.horizon = True
                        return v
        moves = game.legal_moves(state)
        if self.ordering:
            moves = self.order(state, moves, first, ply)
        apply, to_move, tick = game.apply, game.to_move, self.counter.tick
        pruning, pvs = self.pruning, self.pvs
        outer_horizon, self.horizon = self.horizon, False
        start_alpha = alpha
        best, best_move = -inf, None
        for i, move in enumerate(moves):
            child = apply(state, move)
            tick()
            mover = to_move(child)
            if mover == me:
                v = self.value(child, mover, depth - 1, alpha, beta, ply + 1)
            elif pvs and i > 0:
                v = -self.value(child, mover, depth - 1, -alpha - EPSILON, -alpha, ply + 1)
                if alpha < v < beta:
                    v = -self.value(child, mover, depth - 1, -beta, -v, ply + 1)
            else:
                v = -self.value(child, mover, depth - 1, -beta, -alpha, ply + 1)
            if v > best:
                best, best_move = v, move
                lines[ply] = (move,) + lines[ply + 1]
                if v > alpha:
                    alpha = v
                    if pruning and alpha >= beta:
                        if self.ordering:
                            self._cutoff(move, depth, ply)
                        break
        below_horizon = self.horizon
        self.horizon = outer_horizon or below_horizon
        if table is not None:
            stored = depth if below_horizon else SOLVED
            old = table.slots[slot]
            if old is None or old[5] != table.generation or stored >= old[1]:
                bound = UPPER if best <= start_alpha else LOWER if best >= beta else EXACT
                table.slots[slot] = (key, stored, bound, best, best_move, table.generation)
        return best

    def root(self, state, depth: int | None, alpha: float = -inf, beta: float = inf, first=None) -> RootResult:
        """Search every root move to ``depth`` (None: to the end of the game).

        Stops early, keeping the best completed move, when the counter runs out. The
        root itself must already have been counted. ``first`` is searched first.
        """
        depth = UNLIMITED if depth is None else depth
        game = self.game
        me = game.to_move(state)
        self.horizon = False
        self.lines = [(), ()]
        if self.table is not None:
            self.table.new_search()
        moves = game.legal_moves(state)
        if self.ordering:
            moves = self.order(state, moves, first, 0)
        elif first is not None and first in moves:
            moves = [first] + [m for m in moves if m != first]
        best_move, best, line = None, -inf, ()
        complete = False
        try:
            for i, move in enumerate(moves):
                child = game.apply(state, move)
                self.counter.tick()
                mover = game.to_move(child)
                if mover == me:
                    v = self.value(child, mover, depth - 1, alpha, beta, 1)
                elif self.pvs and i > 0:
                    v = -self.value(child, mover, depth - 1, -alpha - EPSILON, -alpha, 1)
                    if alpha < v < beta:
                        v = -self.value(child, mover, depth - 1, -beta, -v, 1)
                else:
                    v = -self.value(child, mover, depth - 1, -beta, -alpha, 1)
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
        return RootResult(best_move, best, complete, line, complete and not self.horizon, max_ply)


def _identity(state):
    return state
