"""Test plugin: bots that break the rules in one way each.

Most of these are only safe to run isolated (the default in tournaments): they hang,
crash their process, eat memory or flood their output.
"""

import ctypes
import os
import signal
import sys
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


class HangBot(Bot):
    name = "hang"
    description = "loops forever, never ticking its counter"

    def choose(self, game, state, budget):
        while True:
            pass


class SleepBot(Bot):
    name = "sleeper"
    description = "sleeps for a very long time"

    def choose(self, game, state, budget):
        time.sleep(10_000)


class BlockBot(Bot):
    name = "cblock"
    description = "blocks inside a C call that never returns to the interpreter"

    def choose(self, game, state, budget):
        ctypes.CDLL(None).pause()


class ExitBot(Bot):
    name = "exit"
    description = "ends its own process with os._exit(3)"

    def choose(self, game, state, budget):
        os._exit(3)


class SegfaultBot(Bot):
    name = "segfault"
    description = "dereferences a null pointer"

    def choose(self, game, state, budget):
        ctypes.string_at(0)


class HogBot(Bot):
    name = "hog"
    description = "allocates far more memory than any limit allows"

    mib: int = param(4096, "how many MiB to allocate", min=1)

    def choose(self, game, state, budget):
        hoard = bytearray(self.mib * 1024 * 1024)
        return game.legal_moves(state)[len(hoard) % 1]


class ChatterBot(Bot):
    name = "chatter"
    description = "writes megabytes to stdout and stderr"

    def choose(self, game, state, budget):
        line = "chatter " * 128 + "\n"
        for _ in range(4096):
            sys.stdout.write(line)
            sys.stderr.write(line)
        return game.legal_moves(state)[0]


class BadInitBot(Bot):
    name = "badinit"
    description = "fails in its constructor"

    def __init__(self, **params):
        super().__init__(**params)
        raise RuntimeError("cannot build me")

    def choose(self, game, state, budget):
        return game.legal_moves(state)[0]


class SlowStartBot(Bot):
    name = "slowstart"
    description = "takes a long time in its new-game hook"

    seconds: float = param(30.0, "seconds to sleep when a game starts", min=0)

    def new_game(self, game, player, seed):
        time.sleep(self.seconds)

    def choose(self, game, state, budget):
        return game.legal_moves(state)[0]


class VandalBot(Bot):
    name = "vandal"
    description = "tries to change the game and the state it was handed, then plays legally"

    def new_game(self, game, player, seed):
        self.mine = type(game)(**game.params)  # a pristine copy to play with

    def choose(self, game, state, budget):
        move = self.mine.legal_moves(state)[-1]
        for attr in list(vars(game)):
            try:
                setattr(game, attr, None)
            except Exception:
                pass
        game.apply = lambda s, m: s
        game.legal_moves = lambda s: []
        try:
            state[0] = 0
        except TypeError:
            pass
        return move


class WorkerKillerBot(Bot):
    name = "workerkiller"
    description = "kills the process that runs its referee, once (a marker file records it)"

    marker: str = param("", "file that says the kill was done")

    def choose(self, game, state, budget):
        if self.marker and not os.path.exists(self.marker):
            with open(self.marker, "w") as f:
                f.write(str(os.getppid()))
            os.kill(os.getppid(), signal.SIGKILL)
            time.sleep(10)
        return game.legal_moves(state)[0]


@hookimpl
def register_bots(register):
    for cls in (
        RaisingBot, IllegalBot, NoneBot, SlowBot, BadStartBot, FloatBot, PickyBot, HangBot, SleepBot, BlockBot,
        ExitBot, SegfaultBot, HogBot, ChatterBot, BadInitBot, SlowStartBot, VandalBot, WorkerKillerBot,
    ):
        register(cls)


# every misbehaviour is tried in games of any kind: with chance, with more seats, not zero-sum
for _cls in [c for c in list(globals().values()) if isinstance(c, type) and issubclass(c, Bot) and c is not Bot]:
    _cls.handles = frozenset({"chance", "players", "nonzero-sum"})
