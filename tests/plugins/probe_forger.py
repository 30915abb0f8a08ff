"""Test plugin: under --sandbox, it writes a forged answer on the probe's channel as it is
imported there (a bot without its flags), hoping the runner trusts its shape."""

import json
import os
import sys

from arena import Bot, hookimpl

_MAIN = getattr(sys.modules.get("__main__"), "__spec__", None)
if getattr(_MAIN, "name", "") == "arena.execution.sandbox.probe":  # imported by a sandboxed probe: its fd is argv[1]
    os.write(int(sys.argv[1]), json.dumps({"errors": [], "games": [], "bots": {"evil": {}}, "checks": {}}).encode())
    os._exit(0)


class Evil(Bot):
    name = "evil"
    description = "registered as any bot; its probe's answer is the attack"

    def choose(self, game, state, budget):
        return game.legal_moves(state)[0]


@hookimpl
def register_bots(register):
    register(Evil)
