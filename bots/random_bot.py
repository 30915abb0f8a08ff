"""A bot that plays a uniformly random legal move."""

from arena import Bot

_MASK = (1 << 64) - 1


class RandomBot(Bot):
    """Picks uniformly among the legal moves with a generator seeded per game.

    The generator is a 64-bit linear congruential one (Knuth's MMIX constants), read from
    its high 32 bits: ample for picking among a few moves, and it costs nothing to seed,
    where a ``random.Random`` costs more to seed than a fast game's moves. It returns the
    plain move: there is no search to report.
    """

    name = "random"
    description = "uniformly random legal move (seeded)"
    handles = frozenset({"chance", "players", "nonzero-sum"})  # never asked at a chance node: the referee draws

    _state = 0

    def new_game(self, game, player, seed):
        super().new_game(game, player, seed)
        self._state = seed & _MASK

    def choose(self, game, state, budget):
        moves = game.legal_moves(state)
        x = self._state = (self._state * 6364136223846793005 + 1442695040888963407) & _MASK
        return moves[((x >> 32) * len(moves)) >> 32]
