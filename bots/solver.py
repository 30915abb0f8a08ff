"""A solver: the exact game value from any position, as fast as the search core allows."""

from arena import Bot, BudgetExhausted, Decision, param
from bots.search import EPSILON, Search
from bots.table import TableOwner


class SolverBot(TableOwner, Bot):
    """Alpha-beta to the end of the game with the tightest window the utility bounds allow.

    Finds the value by bisection with null-window searches (as MTD does), keeping one
    transposition table (with the game's symmetry-reduced key if it has one) across them,
    and orders moves by the game's priorities (e.g. wins, then blocks), using the game's
    ``tactics`` where it has them. ``weak`` asks only for the sign (win, draw or loss):
    windows around 0, and the score is 1, 0 or -1.

    A game with chance is solved by value iteration over every state reachable from the
    position (``bots.chance_values``), once a game: later moves look the policy up. The
    solve is counted as any search is, so it needs a budget that covers it (``@none``; Pig
    to 30 has 57,652 states, to 100 about 2.1 million, a minute's work); without one the
    bot plays its first legal move.
    """

    name = "solver"
    description = "exact game value: full-depth alpha-beta with table, ordering and the tightest window; value iteration with chance"
    handles = frozenset({"chance"})
    _solved = None  # a chance game's values, solved this game

    recorder = None
    """An ``arena.searchtree.Recorder`` that the next searches record into (None: off)."""

    weak: bool = param(False, "find only win, draw or loss (a window around 0)")
    table: bool = param(True, "keep a transposition table (for the whole game)")
    table_size: int = param(1 << 20, "transposition table entries", min=1)

    def new_game(self, game, player, seed):
        super().new_game(game, player, seed)
        self._solved = None

    def choose(self, game, state, budget):
        moves = game.legal_moves(state)
        if game.model.chance:
            return self._policy(game, state, moves)
        search = Search(game, budget, pruning=True, ordering=True, table=self.transposition_table(), pvs=True,
                        recorder=self.recorder)
        low, high = game.bounds
        value_bounds = search.value_bounds  # the game's hook, if it offers one
        if value_bounds is not None and not game.is_terminal(state):
            floor, ceiling = value_bounds(state, game.to_move(state))
            low, high = max(low, floor), min(high, ceiling)
        # Integer values (most games) are bisected as Pascal Pons's solver does, with windows
        # (m, m + 1); others with null windows of width EPSILON.
        integral = all(float(b).is_integer() for b in (low, high))
        if self.weak:
            low, high = (max(low, -1), min(high, 1)) if integral else (-EPSILON, EPSILON)
        move, pv, max_ply = None, (), 0
        # Bisect the value with null-window searches: each answers "more than m?" cheaply,
        # and the table carries what one search learned into the next. A guess on one side
        # of 0 moves to halfway between 0 and that side's bound, as in Pascal Pons's solver
        # (http://blog.gamesolver.org/solving-connect-four/10-iterative-deepening/).
        if integral:
            half, width = (lambda x: int(x / 2)), 1  # rounded towards 0, as the tutorial's C++ does
        else:
            half, width = (lambda x: x / 2), EPSILON
        while low < high:
            guess = int(low + (high - low) // 2) if integral else (low + high) / 2
            if guess <= 0 and half(low) < guess:
                guess = half(low)
            elif guess >= 0 and half(high) > guess:
                guess = half(high)
            result = search.root(state, None, guess, guess + width, first=move)
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
        if complete and self.weak:
            low = (low > 0) - (low < 0)  # the search proved the sign, not the score
        return Decision(move, score=low if complete else None, depth=max_ply if complete else None, pv=pv)

    def _policy(self, game, state, moves) -> Decision:
        """The solved policy's move and value in a game with chance, solving first if need be."""
        if self._solved is None or state not in self._solved.index:
            try:
                from bots.chance_values import solve  # numpy: imported by a chance game's first solve only

                self._solved = solve(game, state)  # every position made is counted, as in any search
            except BudgetExhausted:
                return Decision(moves[0])
        values = self._solved
        move = values.best[state]
        value = values.of(state)
        return Decision(move, score=value if game.to_move(state) == 0 else -value, pv=(move,))
