"""max^n (C. A. Luckhardt and K. B. Irani, "An algorithmic solution of N-person games",
AAAI 1986): every node is worth the value vector (one value per seat) of the child best
for the seat to move there.

Ties: of children whose values for the seat to move are equal, the first in move order is
kept (a later child replaces the best only with a strictly greater value). The search
order is fixed (the previous iteration's best move first at the root, then the game's
``move_priorities`` if it offers them), so the choice is reproducible.

Pruning (R. E. Korf, "Multi-player alpha-beta pruning", Artificial Intelligence 48(1),
1991, 99-111; the bounds as N. R. Sturtevant and R. E. Korf, "On pruning techniques for
multi-player games", AAAI 2000, state them), with ``pruning`` on:

- immediate pruning, in every game: once a child gives the seat to move the most any seat
  can get (``top``: the upper bound of ``game.bounds``, and in a constant-sum game at most
  ``total - (n - 1) * low`` too), no later child can be strictly better for it;
- shallow pruning, only in constant-sum games (``model.total`` T is set): at a node where
  seat p moves, whose parent's mover q != p has already found a child worth ``best_q`` to
  q, once a child gives p at least ``v_p``, every seat but p and q getting at least the
  lower bound ``low``, this node is worth at most ``T - v_p - (n - 2) * low`` to q (with
  ``low`` = 0 this is Korf's ``maxsum - v_p``). When that is ``<= best_q`` the parent will
  not choose this node (ties keep the earlier child), so its remaining children are
  skipped: the cut is ``v_p >= T - (n - 2) * low - best_q``. Only the parent's bound is
  used: deep pruning is unsound in max^n (Korf 1991).

Neither changes the root's value vector or move (tests/test_multiplayer_search.py checks it
on hundreds of random constant-sum trees). Both rest on every leaf vector holding the game's
contract: each value within ``bounds``, and in a constant-sum game summing to ``total``.

Recording (``arena tree``): with a ``recorder`` the search runs ``_recording_node_function``,
the node function's copy that records every node (its vector, and at a cut-off the bound
that made it), chosen once per search: a search that records nothing runs ``_node_function``
untouched. A change to one copy is made to the other; tests/test_tree_seats.py holds them to
the same decisions and nodes.
"""

from __future__ import annotations

from math import inf

from arena import BudgetExhausted, param
from arena.searchtree import HORIZON, INNER, LEAF
from bots.multiplayer import FamilyBot, RootResult, first_of, heuristic_vector, prioritiser


class MaxnSearch:
    """One move's max^n search: the game, the counter (unused: the game counts), the options."""

    def __init__(self, game, counter=None, *, pruning: bool = True, recorder=None):
        self.game = game
        self.counter = counter
        self.pruning = pruning
        self.recorder = recorder
        """An ``arena.searchtree.Recorder`` every node is recorded into (None: nothing is)."""
        players = game.model.players
        low, high = game.bounds
        total = game.model.total
        self.top = high if total is None else min(high, total - (players - 1) * low)
        """The most a seat can get: a child worth it to the mover ends the node (immediate pruning)."""
        self.shallow = None if total is None else total - (players - 2) * low
        """With a constant sum: a node where p moves is cut once p's value reaches ``shallow - best_q``."""
        self.lines: list[tuple] = [()]
        self.horizon = [False]
        self.value = _node_function(self) if recorder is None else _recording_node_function(self, recorder)

    def root(self, state, depth: int, first=None) -> RootResult:
        """Search every root move ``depth`` plies (``first`` first); stops at the budget, keeping
        the best completed move."""
        game, value, lines = self.game, self.value, self.lines
        me = game.to_move(state)
        self.horizon[0] = False
        lines[:] = [(), ()]
        moves = game.legal_moves(state)
        order = prioritiser(game)
        if order is not None and depth > 1:
            moves = order(state, moves)
        moves = first_of(moves, first)
        best_move, best, line, mine = None, None, (), -inf
        complete = False
        recorder = self.recorder
        if recorder is not None:
            recorder.begin(state, me, depth, -inf, inf, "maxn")
        try:
            for move in moves:
                if recorder is None:
                    v = value(game.apply(state, move), depth - 1, me, mine, 1)
                else:
                    v = value(game.apply(state, move), depth - 1, me, mine, 1, move)
                if v[me] > mine:
                    best_move, best, mine, line = move, v, v[me], (move,) + lines[1]
            complete = True
        except BudgetExhausted:
            pass
        if recorder is not None:
            recorder.finish(best_move, mine, line, complete, None, (), vector=best)
        return RootResult(best_move, mine, complete, line, complete and not self.horizon[0], best)


def _node_function(search):
    """``value(state, depth, parent_mover, parent_best, ply)``: the max^n value vector of
    ``state`` searched ``depth`` plies, its best line in ``search.lines[ply]``.

    ``parent_mover`` moved at the parent, whose best child so far is worth ``parent_best`` to
    it (-inf before the first): the bound of shallow pruning.
    """
    game = search.game
    is_terminal, utilities, heuristics = game.is_terminal, game.utilities, heuristic_vector(game)
    legal_moves, apply, to_move = game.legal_moves, game.apply, game.to_move
    order = prioritiser(game)
    lines, horizon = search.lines, search.horizon
    pruning, top, shallow = search.pruning, search.top, search.shallow

    def value(state, depth, parent_mover, parent_best, ply):
        if is_terminal(state):
            lines[ply] = ()
            return utilities(state)
        if depth <= 0:
            lines[ply] = ()
            horizon[0] = True
            return heuristics(state)
        me = to_move(state)
        if not pruning:
            cut = inf
        elif shallow is None or me == parent_mover:
            cut = top
        else:
            cut = shallow - parent_best
            if cut > top:
                cut = top
        if len(lines) <= ply + 1:
            lines.append(())
        moves = legal_moves(state)
        if order is not None and depth > 1:
            moves = order(state, moves)
        best, mine, below = None, -inf, ply + 1
        if depth == 1:  # the children are leaves: scored here, not in a call each
            for move in moves:
                child = apply(state, move)
                if is_terminal(child):
                    v = utilities(child)
                else:
                    horizon[0] = True
                    v = heuristics(child)
                if v[me] > mine:
                    best, mine = v, v[me]
                    lines[ply] = (move,)
                    if mine >= cut:
                        break
            return best
        deeper = depth - 1
        for move in moves:
            v = value(apply(state, move), deeper, me, mine, below)
            if v[me] > mine:
                best, mine = v, v[me]
                lines[ply] = (move,) + lines[below]
                if mine >= cut:
                    break
        return best

    return value


def _recording_node_function(search, recorder):
    """``_node_function``'s search, every node recorded into ``recorder``: the same moves in
    the same order, the same cut-offs. ``value`` takes the move that led to ``state`` last.

    A node's ``beta`` is the value for its seat to move at which it is cut off; where the
    shallow bound is the one in force, ``parent_best`` is the parent's best so far (the
    bound is then ``shallow - parent_best``). A leaf at the end of the game is recorded with
    the seat that moved into it, its value that seat's entry.
    """
    game = search.game
    is_terminal, utilities, heuristics = game.is_terminal, game.utilities, heuristic_vector(game)
    legal_moves, apply, to_move = game.legal_moves, game.apply, game.to_move
    order = prioritiser(game)
    lines, horizon = search.lines, search.horizon
    pruning, top, shallow = search.pruning, search.top, search.shallow
    enter, leave, leaf = recorder.enter, recorder.leave, recorder.leaf

    def value(state, depth, parent_mover, parent_best, ply, move):
        if is_terminal(state):
            lines[ply] = ()
            v = utilities(state)
            leaf(move, state, parent_mover, ply, -inf, inf, v[parent_mover], LEAF, v)
            return v
        if depth <= 0:
            lines[ply] = ()
            horizon[0] = True
            v = heuristics(state)
            seat = to_move(state)
            leaf(move, state, seat, ply, -inf, inf, v[seat], HORIZON, v)
            return v
        me = to_move(state)
        bound = None  # the parent's best, where the shallow bound is in force
        if not pruning:
            cut = inf
        elif shallow is None or me == parent_mover:
            cut = top
        else:
            cut = shallow - parent_best
            if cut > top:
                cut = top
            else:
                bound = parent_best
        enter(move, state, me, ply, -inf, cut, parent_best=bound)
        if len(lines) <= ply + 1:
            lines.append(())
        moves = legal_moves(state)
        if order is not None and depth > 1:
            moves = order(state, moves)
        best, mine, below = None, -inf, ply + 1
        if depth == 1:
            for i, m in enumerate(moves):
                child = apply(state, m)
                if is_terminal(child):
                    v, seat, kind = utilities(child), me, LEAF
                else:
                    horizon[0] = True
                    v, seat, kind = heuristics(child), to_move(child), HORIZON
                leaf(m, child, seat, below, -inf, inf, v[seat], kind, v)
                if v[me] > mine:
                    best, mine = v, v[me]
                    lines[ply] = (m,)
                    if mine >= cut:
                        leave(mine, INNER, i + 1, moves[i + 1:], vector=best)
                        return best
            leave(mine, INNER, vector=best)
            return best
        deeper = depth - 1
        for i, m in enumerate(moves):
            v = value(apply(state, m), deeper, me, mine, below, m)
            if v[me] > mine:
                best, mine = v, v[me]
                lines[ply] = (m,) + lines[below]
                if mine >= cut:
                    leave(mine, INNER, i + 1, moves[i + 1:], vector=best)
                    return best
        leave(mine, INNER, vector=best)
        return best

    return value


class MaxnBot(FamilyBot):
    """max^n with iterative deepening; shallow pruning in constant-sum games."""

    name = "maxn"
    description = ("max^n for n seats: each seat maximises its own value (iterative deepening; "
                   "Korf's shallow pruning in constant-sum games)")

    pruning: bool = param(True, "immediate pruning, and shallow pruning in constant-sum games")

    recorder = None
    """An ``arena.searchtree.Recorder`` that the next searches record into (None: off)."""

    def make_search(self, game, counter, state):
        return MaxnSearch(game, counter, pruning=self.pruning, recorder=self.recorder)
