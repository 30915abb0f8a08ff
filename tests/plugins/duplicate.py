"""Test plugin: registers a bot under a name a built-in already uses."""

from arena import Bot, hookimpl


class AnotherRandom(Bot):
    name = "random"
    description = "clashes with the built-in random bot"

    def choose(self, game, state, budget):
        return game.legal_moves(state)[0]


@hookimpl
def register_bots(register):
    register(AnotherRandom)
