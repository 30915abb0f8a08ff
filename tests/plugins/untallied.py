"""Test plugin: a bot that never ticks its budget and tries every way around the count.

``untallied:via=apply`` calls ``game.apply`` in a loop; ``via=class`` calls the class's
method, ``via=copy`` a copy of the game, ``via=pickle`` a pickle round trip of it. It
answers with the first legal move once the budget stops it (or after ``applies`` calls).
"""

import copy
import pickle

from arena import Bot, BudgetExhausted, Decision, hookimpl, param


class UntalliedBot(Bot):
    name = "untallied"
    description = "searches without ticking: calls apply many times, by one of several routes"

    via: str = param("apply", "how to reach apply", choices=("apply", "class", "copy", "pickle"))
    applies: int = param(20_000, "most apply calls per move", min=1)
    catch: bool = param(True, "catch BudgetExhausted and answer; false lets it escape")

    def choose(self, game, state, budget):
        moves = game.legal_moves(state)
        if self.via == "class":
            apply = lambda s, m: type(game).apply(game, s, m)  # noqa: E731
        elif self.via == "copy":
            apply = copy.copy(game).apply
        elif self.via == "pickle":
            apply = pickle.loads(pickle.dumps(game)).apply
        else:
            apply = game.apply
        try:
            for i in range(self.applies):
                apply(state, moves[i % len(moves)])
        except BudgetExhausted:
            if not self.catch:
                raise
        return Decision(moves[0], depth=1)


@hookimpl
def register_bots(register):
    register(UntalliedBot)
