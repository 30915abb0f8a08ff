"""Conformance checks for games and bots, for the arena's tests and for plugin authors.

One call checks a game or a bot; a failure raises AssertionError naming what broke::

    from arena.testing import check_game, check_bot
    check_game(MyGame())
    check_bot(MyBot(), MyGame())

``check_game`` also checks the search hooks the game offers (``check_search_hooks``).

or, for everything a plugin registers, ``check_plugin(my_plugin_module)``.
"""

from arena.testing.bots import DEFAULT_BUDGETS, TIME_ATTEMPTS, check_bot, check_plugin
from arena.testing.games import GameReport, check_game
from arena.testing.hooks import HookReport, check_search_hooks
from arena.testing.playout import random_playout
from arena.testing.sampling import SamplingReport, check_sampling

__all__ = [
    "DEFAULT_BUDGETS", "TIME_ATTEMPTS", "GameReport", "HookReport", "SamplingReport", "check_bot", "check_game",
    "check_plugin", "check_sampling", "check_search_hooks", "random_playout",
]
