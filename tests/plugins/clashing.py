"""Test plugin: a game and a bot of its own, and a bot under a name the plugin ``duplicate`` also uses.

Its hooks ask pluggy to run last, which puts them first in pluggy's list: registration
order, not call order, must decide which registration of a name wins.
"""

from arena import Bot, hookimpl
from games.nim import Nim


class FirstMove(Bot):
    name = "first-move"
    description = "always the first legal move"

    def choose(self, game, state, budget):
        return game.legal_moves(state)[0]


class ClashingRandom(FirstMove):
    name = "random"
    description = "clashes with the built-in random bot"


class SmallNim(Nim):
    name = "small-nim"
    description = "nim under a name of its own"


@hookimpl(trylast=True)
def register_bots(register):
    register(ClashingRandom)
    register(FirstMove)


@hookimpl(trylast=True)
def register_games(register):
    register(SmallNim)
