"""Alpha-beta: minimax's value at the same depth, with fewer nodes."""

from math import inf

from arena import param
from bots.minimax import MinimaxBot
from bots.search import Search


class AlphaBetaBot(MinimaxBot):
    """Fail-soft alpha-beta over the negamax core, with optional move ordering."""

    name = "alphabeta"
    description = "depth-limited alpha-beta pruning; move ordering switchable"

    depth: int | None = param(6, "search depth in plies (none: to the end of the game)", min=1)
    ordering: bool = param(True, "search wins, then the best-looking moves by heuristic, first")
    window: str = param(
        "bounds", "root window: the game's utility bounds, or infinite", choices=("bounds", "infinite")
    )

    def make_search(self, game, counter) -> Search:
        return Search(game, counter, pruning=True, ordering=self.ordering)

    def search_window(self, game) -> tuple[float, float]:
        return game.bounds if self.window == "bounds" else (-inf, inf)
