"""Test plugin: bots of known strength.

``graded:p=0.7`` plays alpha-beta's move (depth 4 by default) with probability p and a
uniformly random legal move otherwise, both drawn from ``self.rng`` (seeded per game), so
games replay exactly and strength rises with p: p=0 is the random bot, p=1 alpha-beta.
"""

from arena import hookimpl, param
from bots.alphabeta import AlphaBetaBot


class GradedBot(AlphaBetaBot):
    name = "graded"
    description = "alpha-beta's move with probability p, a random move otherwise"

    p: float = param(0.5, "chance of playing alpha-beta's move", min=0.0, max=1.0)
    depth: int | None = param(4, "search depth in plies", min=1)

    def choose(self, game, state, budget):
        if self.rng.random() < self.p:
            return super().choose(game, state, budget)
        return self.rng.choice(game.legal_moves(state))


@hookimpl
def register_bots(register):
    register(GradedBot)
