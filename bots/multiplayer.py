"""The n-player search family's shared core: what max^n (``bots/maxn.py``), paranoid
(``bots/paranoid.py``) and Best-Reply Search (``bots/brs.py``) have in common.

Each is a depth-limited search deepened one ply at a time (``deepen``) until the node or
time budget runs out, the depth limit (the bot's ``max_depth`` or the budget's ``depth``)
is reached or the game is settled (no leaf was cut off by the depth limit); it plays the
best move of the deepest completed iteration, which searches the previous best move first.
Depth counts plies, each one seat's move. The arena counts every position ``apply`` makes
and raises BudgetExhausted at the budget; the searches only catch it.

Games with any number of seats (``model.players``), constant-sum (``model.total``) or
general-sum (``model.total is None``), deterministic. A leaf is scored by ``utilities`` at
the end of the game, by the heuristic at the horizon: for one seat ``heuristic(state,
seat)``, for every seat the vector ``heuristics(state)`` below. In a constant-sum game the
heuristic vector is expected to sum to ``total`` too (the n-seat form of the two-player
rule that the heuristic be zero-sum); max^n's shallow pruning relies on it.

Optional game methods, looked up once per search (``getattr``), never per node:

``heuristics(state) -> tuple[float, ...]``
    ``heuristic(state, seat)`` for every seat, in seat order, for a non-terminal state:
    one call where the estimate of every seat comes from one computation (max^n's leaves).
    Default: ``tuple(heuristic(state, s) for s in range(players))``.

``pass_to(state, seat) -> State | None``
    The same position with ``seat`` to move, as if every seat between the one to move and
    ``seat`` had passed: a valid state of the game, not terminal, equal to ``state`` when
    ``seat`` is already to move, whose ``legal_moves`` are the moves ``seat`` could make in
    the position; None when ``seat`` has no move there. It must not draw at random or
    change anything but whose turn it is. It is asked only of non-terminal states, and the
    positions it returns are not counted as nodes (only ``apply`` counts). Best-Reply Search
    needs it for games of more than two seats, to let any opponent reply between two moves
    of the root seat; it refuses such a game without it (``suitable``).
"""

from __future__ import annotations

from dataclasses import dataclass

from arena import Bot, Decision, param
from bots.search import effective_depth

#: The optional game method Best-Reply Search needs for games of more than two seats.
PASS_HOOK = "pass_to"
#: The optional game method giving the heuristic of every seat at once.
VECTOR_HOOK = "heuristics"
#: Deepest iteration when neither the bot nor the budget limits the depth and the game never
#: settles (a game whose positions can repeat is never settled).
DEEPEST = 64


@dataclass
class RootResult:
    """What one root search of the family established."""

    move: object
    """Best move among the root moves searched completely (None if none was)."""
    value: float
    """Its value for the root seat (the seat to move at the root)."""
    complete: bool
    """Whether every root move was searched (False when the budget ran out)."""
    pv: tuple
    """Principal variation starting with ``move``: the moves the search expects."""
    exact: bool
    """True when no leaf was cut off by the depth limit: deeper searches cannot change it."""
    vector: tuple | None = None
    """max^n: the root's value for every seat (None for the two-valued searches)."""


def heuristic_vector(game):
    """``heuristics(state)``: the game's own (``VECTOR_HOOK``), else one ``heuristic`` per seat."""
    own = getattr(game, VECTOR_HOOK, None)
    if own is not None:
        return own
    heuristic, seats = game.heuristic, range(game.model.players)

    def heuristics(state):
        return tuple([heuristic(state, seat) for seat in seats])

    return heuristics


def pass_hook(game):
    """The game's ``pass_to`` (``PASS_HOOK``), or None if it offers none."""
    return getattr(game, PASS_HOOK, None)


def prioritiser(game):
    """``order(state, moves)``: ``moves`` by the game's ``move_priorities`` (higher first, ties in
    the given order) if it offers them; None if it does not."""
    priorities = game.search_hooks().move_priorities
    if priorities is None:
        return None

    def order(state, moves):
        if len(moves) < 2:
            return moves
        keys = priorities(state, moves)
        return [moves[i] for i in sorted(range(len(moves)), key=keys.__getitem__, reverse=True)]

    return order


def first_of(moves, first) -> list:
    """``moves`` with ``first`` moved to the front (as they are if it is None or not there)."""
    if first is None or not moves or moves[0] == first or first not in moves:
        return moves
    return [first] + [m for m in moves if m != first]


def deepen(root, cap: int) -> tuple[RootResult | None, int]:
    """Iterative deepening: ``root(depth, first)`` for depth 1, 2, ... up to ``cap``, each with
    the previous best move first. Returns the result of the deepest completed iteration (or a
    partial first one, better than none; None if not even one root move was searched) and that
    depth (0 for a partial first iteration)."""
    best, done = None, 0
    while done < cap:
        result = root(done + 1, best.move if best is not None else None)
        if not result.complete:
            if best is None and result.move is not None:
                best = result
            break
        best, done = result, done + 1
        if result.exact:
            break  # settled: deeper iterations cannot change it
    return best, done


class FamilyBot(Bot):
    """A bot of the n-player search family: ``make_search`` builds one search per move, whose
    ``root(state, depth, first)`` returns a ``RootResult``; ``choose`` deepens it."""

    handles = frozenset({"players", "nonzero-sum"})

    max_depth: int | None = param(None, "deepest iteration (none: until the budget runs out or the game is settled)",
                                  min=1)

    def make_search(self, game, counter, state):
        raise NotImplementedError

    def line(self, pv: tuple) -> tuple:
        """The principal variation to report: a line of the game from the root."""
        return pv

    def choose(self, game, state, budget):
        moves = game.legal_moves(state)
        if len(moves) == 1:
            return Decision(moves[0], depth=0)
        search = self.make_search(game, budget, state)
        cap = effective_depth(self.max_depth, budget.depth) or DEEPEST
        best, done = deepen(lambda depth, first: search.root(state, depth, first), cap)
        if best is None:
            return Decision(moves[0])
        return Decision(best.move, score=best.value, depth=done, pv=self.line(best.pv))
