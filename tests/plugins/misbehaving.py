"""Test plugin: bots that break the rules in one way each."""

import time

from arena import Bot, Decision, hookimpl, param


class RaisingBot(Bot):
    name = "raises"
    description = "raises an exception on its first move"

    def choose(self, game, state, budget):
        raise RuntimeError("boom")


class IllegalBot(Bot):
    name = "illegal"
    description = "returns a move that is never legal"

    def choose(self, game, state, budget):
        return Decision(-12345)


class NoneBot(Bot):
    name = "none"
    description = "returns None"

    def choose(self, game, state, budget):
        return None


class SlowBot(Bot):
    name = "slow"
    description = "sleeps, ignoring its budget"

    seconds: float = param(0.3, "how long to sleep per move", min=0)

    def choose(self, game, state, budget):
        time.sleep(self.seconds)
        return game.legal_moves(state)[0]


class BadStartBot(Bot):
    name = "badstart"
    description = "fails when told a new game starts"

    def new_game(self, game, player, seed):
        raise ValueError("no tables today")

    def choose(self, game, state, budget):
        return game.legal_moves(state)[0]


class FloatBot(Bot):
    name = "float"
    description = "returns a legal column as a float that compares equal"

    def choose(self, game, state, budget):
        return float(game.legal_moves(state)[0])


class PickyBot(Bot):
    name = "picky"
    description = "plays only nim"

    def suitable(self, game):
        return None if game.name == "nim" else "it plays only nim"

    def choose(self, game, state, budget):
        return game.legal_moves(state)[0]


@hookimpl
def register_bots(register):
    for cls in (RaisingBot, IllegalBot, NoneBot, SlowBot, BadStartBot, FloatBot, PickyBot):
        register(cls)
