"""A solver: the exact game value from any position, as fast as the search core allows."""

from arena import Bot, Decision, param
from bots.minimax import TableOwner
from bots.search import EPSILON, Search, count_root


class SolverBot(TableOwner, Bot):
    """Alpha-beta to the end of the game with the tightest window the utility bounds allow.

    Finds the value by bisection with null-window searches (as MTD does), keeping one
    transposition table (with the game's symmetry-reduced key if it has one) across them,
    and orders moves by the game's priorities (e.g. wins, then blocks). ``weak`` asks only
    for the sign (win, draw or loss): one window around 0.
    """

    name = "solver"
    description = "exact game value: full-depth alpha-beta with table, ordering and the tightest window"

    weak: bool = param(False, "find only win, draw or loss (a window around 0)")
    table: bool = param(True, "keep a transposition table (for the whole game)")
    table_size: int = param(1 << 20, "transposition table slots", min=1)

    def choose(self, game, state, budget):
        moves = game.legal_moves(state)
        if not count_root(budget):
            return Decision(moves[0])
        search = Search(game, budget, pruning=True, ordering=True, table=self.transposition_table(), pvs=True)
        low, high = (-EPSILON, EPSILON) if self.weak else game.bounds
        move, pv, max_ply = None, (), 0
        # Bisect the value with null-window searches: each answers "at least m?" cheaply,
        # and the table carries what one search learned into the next.
        while low < high:
            guess = (low + high) / 2
            if guess <= 0 and low / 2 < guess:
                guess = low / 2  # try the draw side first: proofs near 0 are cheaper
            elif guess >= 0 and high / 2 > guess:
                guess = high / 2
            result = search.root(state, None, guess, guess + EPSILON)
            if not result.complete:
                break
            max_ply = max(max_ply, result.max_ply)
            if result.value <= guess:
                high = result.value  # an upper bound
            else:
                low = result.value  # a lower bound, reached by result.move
                move, pv = result.move, result.pv
            if move is None:
                move, pv = result.move, result.pv
        if move is None:
            return Decision(moves[0])
        complete = low >= high
        return Decision(move, score=low if complete else None, depth=max_ply if complete else None, pv=pv)
