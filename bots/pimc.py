"""Perfect-information Monte Carlo (PIMC): sample the states a seat cannot tell from the true
one, search each as if everything were visible, and play the move of the best mean value
(D. N. L. Levy, "The million pound bridge program", 1989; M. L. Ginsberg's GIB, "GIB: Imperfect
Information in a Computationally Challenging Game", JAIR 14, 2001; J. R. Long et al.,
"Understanding the Success of Perfect Information Monte Carlo Sampling in Game Tree Search",
AAAI 2010, on where it errs: strategy fusion and non-locality).

``samples`` states are drawn with ``game.sample_state(view, rng)``, each in proportion to its
chance probability; equal ones are searched once and weighted by their count. Each is
searched by the expectation family's core (``bots.expectation``: Star2, expectimax's value
with pruning at chance nodes, plain alpha-beta where there is no chance), every root move
with the full window, so that its value is exact to the depth searched. The vote is by mean
value, not by the number of samples a move wins: a move that is best by a little in most
samples and worst by much in the others should lose, and the mean says so. Ties are broken
by the seeded generator.

The depth deepens one ply at a time, every sample searched at each depth, until no leaf is
cut off by the horizon, ``depth`` is reached or the budget runs out: then the last depth at
which every sample was searched decides (a partial first depth, if none was). Two-player,
zero-sum and sequential games only: the search core is.
"""

from __future__ import annotations

from arena import Bot, BudgetExhausted, Decision, param
from bots.expectation import STAR2, ChanceSearch
from bots.ismcts import cannot_sample, seat_and_moves
from bots.search import effective_depth

#: Deepest iteration when neither the bot nor the budget limits the depth and leaves are
#: still cut off by the horizon.
DEEPEST = 64


class PIMCBot(Bot):
    """PIMC: searches sampled states with Star2 and plays the move of the best mean value."""

    name = "pimc"
    description = ("perfect-information Monte Carlo: sampled states searched as if nothing were hidden (Star2, "
                   "iterative deepening), the move of the best mean value")
    handles = frozenset({"chance", "hidden"})

    samples: int = param(20, "states sampled per move (equal ones searched once, weighted by their count)", min=1)
    depth: int | None = param(None, "deepest search of a sample in plies, chance plies included (none: deepen until "
                                    "no leaf is cut off or the budget runs out)", min=1)

    def suitable(self, game):
        return self.unhandled(game) or cannot_sample(game)

    def choose(self, game, view, budget):
        seat, legal, draw = seat_and_moves(game, view)
        if len(legal) == 1:
            return Decision(legal[0], depth=0)
        rng = self.rng
        weights: dict = {}  # sampled state -> how often it was drawn
        try:
            for _ in range(self.samples):
                state = draw(rng)
                weights[state] = weights.get(state, 0) + 1
        except BudgetExhausted:
            pass  # search those drawn so far
        if not weights:
            return Decision(rng.choice(legal), depth=0)
        search = ChanceSearch(game, budget, star=STAR2)
        sign = 1 if seat == 0 else -1  # the search's values are seat 0's
        low, high = game.bounds
        cap = effective_depth(self.depth, budget.depth)
        means, done = None, 0
        for depth in range(1, (cap or DEEPEST) + 1):
            horizons = search.horizons
            totals, counts = [0.0] * len(legal), [0] * len(legal)
            try:
                for state, weight in weights.items():
                    for i, move in enumerate(legal):
                        v = search.value(game.apply(state, move), depth - 1, low, high, move)
                        totals[i] += weight * sign * v
                        counts[i] += weight
            except BudgetExhausted:
                if means is None and any(counts):  # a partial first depth beats no search at all
                    means = [t / n if n else None for t, n in zip(totals, counts)]
                break
            means, done = [t / n for t, n in zip(totals, counts)], depth
            if search.horizons == horizons:
                break  # no leaf cut off by the horizon: deeper searches find the same values
        if means is None:
            return Decision(rng.choice(legal), depth=0)
        top = max(m for m in means if m is not None)
        best = [i for i, m in enumerate(means) if m is not None and m >= top - 1e-12 * (high - low)]
        i = best[0] if len(best) == 1 else rng.choice(best)
        return Decision(legal[i], score=min(max(top, low), high), depth=done or None, pv=(legal[i],))
