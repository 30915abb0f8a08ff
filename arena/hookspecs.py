"""The hooks a plugin implements. Keep these names: third parties write against them."""

import pluggy

hookspec = pluggy.HookspecMarker("arena")
hookimpl = pluggy.HookimplMarker("arena")


@hookspec
def register_games(register):
    """Call ``register(GameClass)`` for each game class this plugin provides."""


@hookspec
def register_bots(register):
    """Call ``register(BotClass)`` for each bot class this plugin provides."""
