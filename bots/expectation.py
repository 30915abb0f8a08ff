"""The expectation family's search core: expectimax, Star1 and Star2 (Ballard's *-minimax)
for two-player zero-sum games with chance nodes (B. W. Ballard, "The *-minimax search
procedure for trees containing chance nodes", Artificial Intelligence 21(3), 1983; the
fail-soft forms of T. Hauk, M. Buro and J. Schaeffer, "Rediscovering *-Minimax Search",
Computers and Games 2004).

Values are seat 0's: seat 0 maximises, seat 1 minimises, a chance node is worth the
probability-weighted sum of its children. Decision nodes are searched by fail-soft
alpha-beta. At a chance node, ``star`` chooses how:

- 0, expectimax: every child with the full window (the game's bounds): exact, no pruning
  across the chance node;
- 1, Star1: each child with the window that decides the node. What is known of every
  child, a lower and an upper bound (the game's bounds until it is searched), bounds the
  node; once those bounds settle it outside (alpha, beta), the rest are skipped;
- 2, Star2: Star1 after a probing pass, where each child that is a decision node is
  searched through its first move only: a lower bound on a max node's value, an upper
  bound on a min node's, which may settle the chance node before any child is searched
  whole. With a table, a search keeps the leaves it has evaluated (each of the three
  does), so the full search after a probe does not evaluate the probe's leaves again.

Cuts are decided on the sums of what is known of the children written out in order, never
on running sums, and the bound returned is clamped to the window's edge: a rounding cannot
put a bound on the wrong side of the window.

Depth counts plies, chance plies included. The arena counts the nodes (every ``apply``);
``leaves`` counts evaluations (a terminal's utility or the heuristic at the horizon), the
measure of Ballard's tables.
"""

from __future__ import annotations

from math import inf

from arena import CHANCE, BudgetExhausted, Counter, Game
from arena.searchtree import HORIZON, INNER, LEAF, PROBE, TABLE
from bots.table import EXACT, LOWER, UPPER, Table

EXPECTIMAX, STAR1, STAR2 = 0, 1, 2


class ChanceSearch:
    """One search's options and memory: the game, the counter, the table and the history."""

    def __init__(self, game: Game, counter: Counter | None = None, *, star: int = STAR2, table: Table | None = None,
                 ordering: bool = True, recorder=None):
        self.game, self.counter, self.star, self.table, self.ordering = game, counter, star, table, ordering
        self.recorder = recorder
        """An ``arena.searchtree.Recorder`` every node is recorded into (None: nothing is)."""
        if recorder is not None:  # the recording forms, chosen once: a search that records nothing runs as is
            self.value, self.probe = self._recorded_value, self._recorded_probe
            self._root_player, self._ply = 0, 0
            self._probed: dict = {}  # id -> state of the children probed and not yet searched whole
        self.low, self.high = game.bounds
        hooks = game.search_hooks()
        self.key = hooks.key or (lambda state: state)
        self.history: dict = {}
        self.leaf_values: dict | None = None if table is None else {}
        """With a table: key -> (leaf value, whether it is the heuristic's)."""
        self.leaves = 0
        """Evaluations made: terminal utilities and heuristics at the horizon."""
        self.horizons = 0
        """Evaluations by the heuristic (a value that a deeper search could change)."""
        self.hits = 0
        """Values the table settled."""

    # -- the root ------------------------------------------------------------------------

    def root(self, state, depth: int, first=None) -> tuple:
        """``(move, value for the player to move, complete)`` of a search of every root move
        to ``depth``; ``first`` is searched first. Stops at the budget, keeping the best
        move searched completely (None if none was)."""
        game = self.game
        me = game.to_move(state)
        if self.table is not None:
            self.table.new_search()
        moves = self.order(state, list(game.legal_moves(state)), first)
        sign = 1 if me == 0 else -1
        alpha, beta = self.low, self.high
        best_move, best = None, -inf  # ``best`` for the player to move
        recorder = self.recorder
        if recorder is not None:
            self._root_player, self._ply = me, 1
            recorder.begin(state, me, depth, *self._window(alpha, beta, me))
        try:
            for move in moves:
                child = game.apply(state, move)
                if me == 0:
                    v = self.value(child, depth - 1, max(alpha, best if best_move is not None else alpha), beta, move)
                else:
                    v = self.value(child, depth - 1, alpha, min(beta, -best if best_move is not None else beta), move)
                if best_move is None or sign * v > best:
                    best_move, best = move, sign * v
        except BudgetExhausted:
            if recorder is not None:
                recorder.finish(best_move, best, (best_move,) if best_move is not None else (), False, None, ())
            return best_move, best, False
        if recorder is not None:
            recorder.finish(best_move, best, (best_move,), True, None, ())
        return best_move, best, True

    def exact(self, state, depth: int = 1 << 30) -> float:
        """The value for seat 0 of ``state`` to ``depth`` plies, searched with the full window."""
        if self.table is not None:
            self.table.new_search()
        return self.value(state, depth, self.low, self.high)

    # -- every node ----------------------------------------------------------------------

    def value(self, state, depth: int, alpha: float, beta: float, move=None) -> float:
        """Fail-soft value for seat 0: exact when strictly inside (alpha, beta), else a bound
        on the side it falls. ``move``, the one that led here, is for a recording search."""
        game = self.game
        if depth <= 0 or game.is_terminal(state):
            return self.leaf(state, depth)
        table = self.table
        key = move = None
        if table is not None:
            key = self.key(state)
            entry = table.entries.get(key)
            if entry is not None:
                bound, stored, move = entry[1], entry[2], entry[3]
                # only a value of this very depth, so that the three searches find equal values
                if entry[0] == depth and (
                        bound == EXACT or (bound == LOWER and stored >= beta) or (bound == UPPER and stored <= alpha)):
                    if entry[5]:
                        self.horizons += 1  # it rests on a horizon: so does every value above it
                    self.hits += 1
                    return stored
        horizons = self.horizons
        player = game.to_move(state)
        if player == CHANCE:
            v = self.chance(state, depth, alpha, beta)
            best_move = None
        else:
            v, best_move = self.decision(state, player, depth, alpha, beta, move)
        if table is not None:
            bound = UPPER if v <= alpha else LOWER if v >= beta else EXACT
            entries = table.entries
            old = entries.get(key)
            if old is None or old[4] != table.generation or depth >= old[0]:
                if len(entries) >= table.size and old is None:
                    table.make_room()
                # the plan's place holds whether a horizon was reached below
                entries[key] = (depth, bound, v, best_move, table.generation, self.horizons != horizons, state)
        return v

    def leaf(self, state, depth: int) -> float:
        """A terminal's utility or the heuristic at the horizon, for seat 0. With a table the
        search keeps them (as many as the table holds entries), so a leaf is evaluated once:
        the full search after a Star2 probe finds the probe's leaves there."""
        leaves = self.leaf_values
        if leaves is not None:
            key = self.key(state)
            found = leaves.get(key)
            if found is not None:
                if found[1]:
                    self.horizons += 1
                return found[0]
        game = self.game
        self.leaves += 1
        if game.is_terminal(state):
            v, horizon = game.utility(state, 0), False
        else:
            self.horizons += 1
            v, horizon = game.heuristic(state, 0), True
        if leaves is not None:
            if len(leaves) >= self.table.size:
                leaves.clear()
            leaves[key] = (v, horizon)
        return v

    def decision(self, state, player: int, depth: int, alpha: float, beta: float, first) -> tuple:
        """Alpha-beta at a decision node: (fail-soft value, best move)."""
        game = self.game
        moves = self.order(state, list(game.legal_moves(state)), first)
        value = self.value
        best_move = None
        if player == 0:
            best = -inf
            for move in moves:
                v = value(game.apply(state, move), depth - 1, max(alpha, best), beta, move)
                if v > best:
                    best, best_move = v, move
                    if best >= beta:
                        self._cutoff(move, depth)
                        break
        else:
            best = inf
            for move in moves:
                v = value(game.apply(state, move), depth - 1, alpha, min(beta, best), move)
                if v < best:
                    best, best_move = v, move
                    if best <= alpha:
                        self._cutoff(move, depth)
                        break
        return best, best_move

    def chance(self, state, depth: int, alpha: float, beta: float) -> float:
        """A chance node's value, by expectimax, Star1 or Star2."""
        game, value, low, high = self.game, self.value, self.low, self.high
        outcomes = game.chance_outcomes(state)
        if self.star == EXPECTIMAX:
            return sum(float(p) * value(game.apply(state, o), depth - 1, low, high, o) for o, p in outcomes)
        n = len(outcomes)
        probabilities = [float(p) for _, p in outcomes]
        children = [None] * n  # made when first searched: a pruned outcome is never applied (nor counted)
        lows, highs = [low] * n, [high] * n  # what is known of each child's value

        # The node's value lies between these sums. They are summed afresh, in order, for every
        # decision: a running sum's rounding could put a bound on the wrong side of the window.
        def low_sum():
            return sum(q * x for q, x in zip(probabilities, lows))

        def high_sum():
            return sum(q * x for q, x in zip(probabilities, highs))

        if self.star == STAR2 and depth >= 2:
            for i in range(n):
                p = probabilities[i]
                child = children[i] = game.apply(state, outcomes[i][0])
                if game.is_terminal(child):
                    continue
                mover = game.to_move(child)
                if mover == 0:  # a max node is worth at least its first move's value
                    edge = (beta - (low_sum() - p * lows[i])) / p  # at or above: the node fails high
                    w = self.probe(child, mover, depth - 1, lows[i], min(edge, high), outcomes[i][0])
                    if w > lows[i]:
                        lows[i] = min(w, highs[i])
                        if w >= edge:
                            return max(low_sum(), beta)
                elif mover == 1:  # a min node at most its first move's value
                    edge = (alpha - (high_sum() - p * highs[i])) / p  # at or below: it fails low
                    w = self.probe(child, mover, depth - 1, max(edge, low), highs[i], outcomes[i][0])
                    if w < highs[i]:
                        highs[i] = max(w, lows[i])
                        if w <= edge:
                            return min(high_sum(), alpha)
        for i in range(n):
            p, lo, hi = probabilities[i], lows[i], highs[i]
            if lo == hi:
                continue
            child = children[i]
            if child is None:
                child = game.apply(state, outcomes[i][0])
            low_edge = (alpha - (high_sum() - p * hi)) / p  # the child at or below it: the node fails low
            high_edge = (beta - (low_sum() - p * lo)) / p  # at or above it: the node fails high
            a, b = max(low_edge, lo), min(high_edge, hi)
            v = value(child, depth - 1, a, b, outcomes[i][0])
            if v <= a:
                if low_edge >= lo:  # the node fails low: at most alpha (a bound, however the sum rounds)
                    highs[i] = max(min(v, hi), lo)
                    return min(high_sum(), alpha)
                lows[i] = highs[i] = lo  # at most its lowest: exactly that
            elif v >= b:
                if high_edge <= hi:  # the node fails high
                    lows[i] = min(max(v, lo), hi)
                    return max(low_sum(), beta)
                lows[i] = highs[i] = hi
            else:
                lows[i] = highs[i] = v
        # every child exact: summed in order, as expectimax sums
        return low_sum()

    def probe(self, state, player: int, depth: int, alpha: float, beta: float, move=None) -> float:
        """The value of the first move of a decision node (in search order): a bound on the node's."""
        game, table = self.game, self.table
        key = entry = None
        if table is not None:
            key = self.key(state)
            entry = table.entries.get(key)
        first = self.order(state, list(game.legal_moves(state)), entry[3] if entry is not None else None)[0]
        if table is not None and entry is None:
            # the move probed, for the full search to search first (its value found in the
            # table); at depth -1, no value of any depth is taken from it
            table.entries[key] = (-1, EXACT, 0.0, first, table.generation, True, state)
        return self.value(game.apply(state, first), depth - 1, alpha, beta, first)

    # -- ordering ------------------------------------------------------------------------

    def order(self, state, moves: list, first) -> list:
        """The table's move first, then by history (moves that cut off before); with
        ordering off, the game's order."""
        if not self.ordering:
            return moves
        history = self.history
        if history and len(moves) > 1:
            moves = sorted(moves, key=lambda m: history.get(m, 0), reverse=True)
        if first is not None and moves and moves[0] != first and first in moves:
            moves.remove(first)
            moves.insert(0, first)
        return moves

    def _cutoff(self, move, depth: int) -> None:
        if self.ordering:
            try:
                self.history[move] = self.history.get(move, 0) + depth * depth
            except TypeError:  # an unhashable move
                pass

    # -- recording (``arena tree``) --------------------------------------------------------
    # Values and windows are recorded for the player to move, and at a chance node for the
    # root player (arena.searchtree); the search's own are seat 0's.

    def _view(self, value: float, mover: int) -> float:
        seat = self._root_player if mover == CHANCE else mover
        return value if seat == 0 else -value

    def _window(self, alpha: float, beta: float, mover: int) -> tuple[float, float]:
        seat = self._root_player if mover == CHANCE else mover
        return (alpha, beta) if seat == 0 else (-beta, -alpha)

    def _recorded_value(self, state, depth: int, alpha: float, beta: float, move=None) -> float:
        recorder, game = self.recorder, self.game
        terminal = game.is_terminal(state)
        mover = self._root_player if terminal else game.to_move(state)
        again = self._probed.pop(id(state), None) is not None  # probed already: made (and counted) once
        recorder.enter(move, state, mover, self._ply, *self._window(alpha, beta, mover), repeat=again)
        node, hits = recorder.current(), self.hits
        self._ply += 1
        try:
            v = ChanceSearch.value(self, state, depth, alpha, beta, move)
        finally:
            self._ply -= 1
        kind, cut, pruned = INNER, None, ()
        if terminal:
            kind = LEAF
        elif depth <= 0:
            kind = HORIZON
        elif node is not None and not node.children and self.hits > hits:
            kind = TABLE
        elif node is not None:
            nodes = recorder.trees[-1].nodes
            searched = [nodes[c].move for c in node.children if nodes[c].kind != PROBE]
            every = ([o for o, _ in game.chance_outcomes(state)] if mover == CHANCE else list(game.legal_moves(state)))
            if len(searched) < len(every):
                cut, pruned = len(searched), tuple(m for m in every if m not in searched)
        return self._left(v, mover, kind, cut, pruned)

    def _left(self, v: float, mover: int, kind: str, cut, pruned) -> float:
        self.recorder.leave(self._view(v, mover), kind, cut, pruned)
        return v

    def _recorded_probe(self, state, player: int, depth: int, alpha: float, beta: float, move=None) -> float:
        """A Star2 probe, recorded as the child it bounds: kind ``PROBE``, with the move it searched below."""
        self.recorder.enter(move, state, player, self._ply, *self._window(alpha, beta, player))
        self._probed[id(state)] = state  # kept alive, so the id stays its own until the full search
        self._ply += 1
        try:
            w = ChanceSearch.probe(self, state, player, depth, alpha, beta, move)
        finally:
            self._ply -= 1
        return self._left(w, player, PROBE, None, ())
