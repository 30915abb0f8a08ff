"""The negamax core shared by the minimax, alpha-beta and iterative-deepening bots.

Values are always from the point of view of the player to move at a node. A child
whose mover differs from its parent's is negated (with the window mirrored); one whose
mover is the same is searched as is, so games with extra turns work too.

Every position produced by ``game.apply`` is counted with one ``tick`` as it is made,
and the root is counted by the caller: that is the node count the arena records.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import inf

from arena import BudgetExhausted, Counter, Game

#: Stands for "no depth limit": deeper than any game here can go.
UNLIMITED = 1 << 30


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


def rank(game: Game, child, me: int) -> float:
    """How good ``child`` looks for ``me`` one ply on: wins above and losses below any heuristic."""
    if game.is_terminal(child):
        u = game.utility(child, me)
        low, high = game.bounds
        return high + u if u > 0 else low + u if u < 0 else 0.0
    return game.heuristic(child, me)


class Search:
    """One search: a game, a counter, and the options of the negamax core."""

    def __init__(self, game: Game, counter: Counter, *, pruning: bool = True, ordering: bool = False):
        self.game = game
        self.counter = counter
        self.pruning = pruning
        self.ordering = ordering
        self.horizon = False  # set when a non-terminal leaf is scored by the heuristic
        self.lines: list[tuple] = [()]  # lines[ply]: best line found from that ply

    # The recursive search. Locals bind the game's methods once per call tree level;
    # see the module docstring for the sign convention.
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
        apply = game.apply
        to_move = game.to_move
        tick = self.counter.tick
        pruning = self.pruning
        best = -inf
        if self.ordering and depth > 1:
            children = self.ordered_children(state, me)
        else:
            children = None
        for i, move in enumerate(children if children is not None else game.legal_moves(state)):
            if children is None:
                child = apply(state, move)
                tick()
            else:
                move, child = move
            mover = to_move(child)
            if mover == me:
                v = self.value(child, mover, depth - 1, alpha, beta, ply + 1)
            else:
                v = -self.value(child, mover, depth - 1, -beta, -alpha, ply + 1)
            if v > best:
                best = v
                lines[ply] = (move,) + lines[ply + 1]
                if v > alpha:
                    alpha = v
                    if pruning and alpha >= beta:
                        break
        return best

    def ordered_children(self, state, me: int, first=None) -> list:
        """(move, child) pairs, each child counted once, best-looking first for ``me``.

        Wins come first and losses last; the rest go by the heuristic. ``first``, if
        given and legal, goes before everything (the previous iteration's best move).
        """
        game = self.game
        apply, tick = game.apply, self.counter.tick
        scored = []
        for move in game.legal_moves(state):
            child = apply(state, move)
            tick()
            key = rank(game, child, me)
            if move == first:
                key = inf
            scored.append((key, len(scored), move, child))
        scored.sort(key=lambda item: (-item[0], item[1]))
        return [(move, child) for _, _, move, child in scored]

    def root(self, state, depth: int | None, alpha: float = -inf, beta: float = inf, first=None) -> RootResult:
        """Search every root move to ``depth`` (None: to the end of the game).

        Stops early, keeping the best completed move, when the counter runs out. The
        root itself must already have been counted.
        """
        depth = UNLIMITED if depth is None else depth
        game = self.game
        me = game.to_move(state)
        self.horizon = False
        self.lines = [(), ()]
        best_move, best, line = None, -inf, ()
        complete = False
        try:
            if self.ordering or first is not None:
                children_iter = self.ordered_children(state, me, first)
            else:
                children_iter = None
            moves = children_iter if children_iter is not None else game.legal_moves(state)
            for item in moves:
                if children_iter is None:
                    move = item
                    child = game.apply(state, move)
                    self.counter.tick()
                else:
                    move, child = item
                mover = game.to_move(child)
                if mover == me:
                    v = self.value(child, mover, depth - 1, alpha, beta, 1)
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
