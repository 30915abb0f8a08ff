"""A bot that plays every legal move with the same probability, in any game, and says so."""

from arena import Bot, View


class UniformBot(Bot):
    """Uniformly random over the legal moves: of its view in games of hidden information or
    simultaneous moves, of ``legal_moves`` elsewhere. Its ``policy`` (``bots.policy``) is
    exact, so ``arena exploit`` computes its exploitability (Kuhn poker: 11/24)."""

    name = "uniform"
    description = "uniformly random legal move in any game (seeded); says its strategy (policy)"
    handles = frozenset({"chance", "players", "nonzero-sum", "simultaneous", "hidden"})

    def policy(self, game, view):
        share = 1.0 / len(view.legal)
        return [(move, share) for move in view.legal]

    def choose(self, game, state, budget):
        moves = state.legal if isinstance(state, View) else game.legal_moves(state)
        return moves[self.rng.randrange(len(moves))]
