"""Iterative deepening alpha-beta, for time and node budgets."""

from arena import Bot, Decision, param
from bots.search import Search, effective_depth
from bots.table import TableOwner


class IterativeBot(TableOwner, Bot):
    """Deepens one ply at a time until the budget runs out or the game is solved.

    Plays the best move of the deepest completed iteration; each iteration searches the
    previous best move first, then the rest in the search's move order.
    """

    name = "iterative"
    description = "iterative-deepening alpha-beta (PVS, table, ordering) until the time or node budget runs out"

    recorder = None
    """An ``arena.searchtree.Recorder`` that the next searches record into (None: off)."""

    max_depth: int | None = param(None, "deepest iteration (none: until the budget runs out or the game is solved)", min=1)
    table: bool = param(True, "keep a transposition table (for the whole game)")
    table_size: int = param(1 << 18, "transposition table entries", min=1)
    pvs: bool = param(True, "principal variation search: null windows after the first move")

    def choose(self, game, state, budget):
        moves = game.legal_moves(state)
        cap = effective_depth(self.max_depth, budget.depth)
        search = Search(game, budget, pruning=True, ordering=True, table=self.transposition_table(), pvs=self.pvs,
                        recorder=self.recorder)
        low, high = game.bounds
        best, done = None, 0
        while cap is None or done < cap:
            result = search.root(state, done + 1, low, high, first=best.move if best else None)
            if not result.complete:
                if best is None and result.move is not None:
                    best = result  # a partial first iteration still beats no search at all
                break
            best, done = result, done + 1
            if result.exact or result.value >= high or result.value <= low:
                break  # solved: deeper iterations cannot change the value
        if best is None:
            return Decision(moves[0])
        return Decision(best.move, score=best.value, depth=done, pv=best.pv)
