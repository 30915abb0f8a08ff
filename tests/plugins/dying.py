"""Test plugin: a bot that kills the process it plays in, every time.

Only for worker pools without isolation: it kills the worker that runs the referee.
``spare`` names a process it must never kill (the test's own), in case it runs there.
"""

import os
import signal

from arena import Bot, hookimpl, param


class DyingBot(Bot):
    name = "dies"
    description = "kills its own process at its first move (unless that is process `spare`)"

    spare: int = param(0, "a process id it refuses to kill")

    def choose(self, game, state, budget):
        if os.getpid() == self.spare:
            raise RuntimeError("refusing to kill the spared process")
        os.kill(os.getpid(), signal.SIGKILL)


@hookimpl
def register_bots(register):
    register(DyingBot)
