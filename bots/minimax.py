"""Depth-limited minimax (negamax form) and the shared shape of fixed-depth search bots."""

from math import inf

from arena import Bot, Decision, param
from bots.search import Search, effective_depth


class MinimaxBot(Bot):
    """Searches every line to a fixed depth; with ``depth=none`` it solves the game."""

    name = "minimax"
    description = "depth-limited minimax, no pruning (depth=none solves the game)"

    recorder = None
    """An ``arena.searchtree.Recorder`` that the next searches record into (None: off)."""

    depth: int | None = param(4, "search depth in plies (none: to the end of the game)", min=1)

    def make_search(self, game, counter) -> Search:
        return Search(game, counter, pruning=False, ordering=False, recorder=self.recorder)

    def search_window(self, game) -> tuple[float, float]:
        return -inf, inf

    def choose(self, game, state, budget):
        moves = game.legal_moves(state)
        depth = effective_depth(self.depth, budget.depth)
        result = self.make_search(game, budget).root(state, depth, *self.search_window(game))
        if result.move is None:  # out of budget before any move was searched
            return Decision(moves[0])
        done = result.max_ply if depth is None else depth
        return Decision(result.move, score=result.value, depth=done if result.complete else None, pv=result.pv)
