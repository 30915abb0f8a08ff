"""A bot that plays a uniformly random legal move."""

from arena import Bot, Decision


class RandomBot(Bot):
    """Picks uniformly among the legal moves with its seeded generator."""

    name = "random"
    description = "uniformly random legal move (seeded)"

    def choose(self, game, state, budget):
        budget.tick()
        return Decision(self.rng.choice(game.legal_moves(state)), depth=0)
