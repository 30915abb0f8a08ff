"""Alpha-beta: minimax's value at the same depth, with fewer nodes."""

from math import inf

from arena import param
from bots.minimax import MinimaxBot
from bots.search import Search
from bots.table import TableOwner


class AlphaBetaBot(TableOwner, MinimaxBot):
    """Fail-soft alpha-beta over the negamax core, with optional move ordering and table."""

    name = "alphabeta"
    description = "depth-limited alpha-beta pruning; move ordering and transposition table switchable"

    depth: int | None = param(6, "search depth in plies (none: to the end of the game)", min=1)
    ordering: bool = param(True, "table move first, then the game's priorities or killers and history")
    table: bool = param(True, "keep a transposition table (for the whole game)")
    table_size: int = param(1 << 18, "transposition table entries", min=1)
    window: str = param(
        "bounds", "root window: the game's utility bounds, or infinite", choices=("bounds", "infinite")
    )

    def make_search(self, game, counter) -> Search:
        return Search(
            game, counter, pruning=True, ordering=self.ordering, table=self.transposition_table(), recorder=self.recorder
        )

    def search_window(self, game) -> tuple[float, float]:
        return game.bounds if self.window == "bounds" else (-inf, inf)
