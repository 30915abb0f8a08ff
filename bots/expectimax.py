"""Expectimax, Star1 and Star2: searches for games with chance (the core is bots.expectation)."""

from arena import Bot, Decision, param
from bots.expectation import EXPECTIMAX, STAR1, STAR2, ChanceSearch
from bots.search import effective_depth
from bots.table import TableOwner

#: Deepest iteration when neither the bot nor the budget limits the depth and the game never
#: settles (where positions repeat, as in Pig, a search is never exact).
DEEPEST = 64


class ExpectimaxBot(TableOwner, Bot):
    """Depth-limited expectiminimax with the heuristic at the horizon, deepened one ply at a
    time until the budget runs out (or to ``depth``)."""

    name = "expectimax"
    description = "expectiminimax: chance nodes worth their children's probability-weighted mean (iterative deepening)"
    handles = frozenset({"chance"})
    star = EXPECTIMAX
    recorder = None
    """An ``arena.searchtree.Recorder`` that the next searches record into (None: off)."""

    depth: int | None = param(None, "search depth in plies, chance plies included (none: deepen until the budget "
                                    "runs out)", min=1)
    ordering: bool = param(True, "table move first, then history, at decision nodes")
    table: bool = param(True, "keep a transposition table (for the whole game)")
    table_size: int = param(1 << 18, "transposition table entries", min=1)

    def choose(self, game, state, budget):
        moves = game.legal_moves(state)
        if len(moves) == 1:
            return Decision(moves[0], depth=0)
        fixed = effective_depth(self.depth, budget.depth)
        search = ChanceSearch(game, budget, star=self.star, table=self.transposition_table(), ordering=self.ordering,
                              recorder=self.recorder)
        start = fixed if fixed is not None else 1
        last = fixed if fixed is not None else DEEPEST
        best, done = None, 0
        for depth in range(start, last + 1):
            horizons = search.horizons
            move, value, complete = search.root(state, depth, first=best[0] if best else None)
            if not complete:
                if best is None and move is not None:
                    best = (move, value)  # a partial first iteration beats no search at all
                break
            best, done = (move, value), depth
            if search.horizons == horizons:
                break  # no horizon reached: deeper iterations cannot change the value
        if best is None:
            return Decision(moves[0])
        return Decision(best[0], score=best[1], depth=done or None, pv=(best[0],))


class Star1Bot(ExpectimaxBot):
    """Ballard's Star1: expectimax's value with pruning at chance nodes, from the game's bounds."""

    name = "star1"
    description = "Ballard's Star1 *-minimax: alpha-beta through chance nodes, from the game's bounds"
    star = STAR1


class Star2Bot(ExpectimaxBot):
    """Ballard's Star2: Star1 after probing one move below each outcome to bound the chance node."""

    name = "star2"
    description = "Ballard's Star2 *-minimax: Star1 after probing one move below each outcome"
    star = STAR2
