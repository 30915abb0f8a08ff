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
from bots.negamax import EPSILON, RANKED, negamax, recording_negamax  # noqa: F401 (EPSILON: the solver's too)
from bots.table import Table

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


def effective_depth(own: int | None, limit: int | None) -> int | None:
    """The shallower of a bot's own depth and the budget's (None: no limit)."""
    if own is None:
        return limit
    return own if limit is None else min(own, limit)


def rank(game: Game, child, me: int) -> float:
    """How good ``child`` looks for ``me`` one ply on: wins above and losses below any heuristic
    (a win: more than an even share of the game's total; with no total, more than the middle of ``bounds``)."""
    if game.is_terminal(child):
        low, high = game.bounds
        model = game.model
        u = game.utility(child, me) - (0.0 if model.total == 0.0 else _even_share(game))
        return high + u if u > 0 else low + u if u < 0 else 0.0
    return game.heuristic(child, me)


def _even_share(game: Game) -> float:
    """What every seat would get if all shared alike: the total over the seats, or the middle of the bounds."""
    total = game.model.total
    return total / game.model.players if total is not None else sum(game.bounds) / 2


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
            self.value, self.child_value = negamax(self)
        else:  # the same search, every node recorded (bots.negamax)
            self.value, self.child_value = recording_negamax(self, recorder)

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
