"""What a worker process runs: one scheduled game, from specs to a record.

Kept free of pandas and of the results package so worker processes start fast.
"""

from __future__ import annotations

import importlib
import signal
from functools import lru_cache

from arena.isolation import RemoteBot
from arena.plugins import Registry, get_registry
from arena.records import GameRecord
from arena.referee import play_game
from arena.tournament import ScheduledGame


@lru_cache(maxsize=8)
def registry_for(plugins: tuple[str, ...]) -> Registry:
    """A registry with the entry points plus extra plugin modules, built once per process."""
    return get_registry(plugins=[importlib.import_module(name) for name in plugins])


def play_scheduled(task: ScheduledGame, plugins: tuple[str, ...] = ()) -> tuple[int, GameRecord]:
    """Play one game of a schedule; returns its index and record.

    Isolated bots run in host processes of this process (see arena.isolation); a bot
    that cannot even be built loses the game, like any other fault.
    """
    game = registry_for(plugins).game(task.game)  # fresh: nothing a trusted bot did to the last carries over
    if task.isolate:
        bots = [RemoteBot(spec, plugins, task.limits) for spec in task.specs]
    else:
        registry = registry_for(plugins)
        bots = [_LocalBuild(registry, spec) for spec in task.specs]
    try:
        record = play_game(
            game,
            bots,
            names=task.names,
            budgets=task.budgets,
            seed=task.seed,
            opening=task.opening,
            time_margin=task.limits.time_margin,
        )
    finally:
        for bot in bots:
            bot.release()
    return task.index, record


class _LocalBuild:
    """A bot built in this process when its game starts, so a failing constructor loses that game only."""

    interactive = False

    def __init__(self, registry: Registry, spec: str):
        self.registry, self.spec, self.bot = registry, spec, None

    def new_game(self, game, player, seed):
        self.bot = self.registry.bot(self.spec)
        self.bot.new_game(game, player, seed)

    def choose(self, game, state, budget):
        return self.bot.choose(game, state, budget)

    def release(self):
        self.bot = None


def ignore_interrupts() -> None:
    """Pool initializer: Ctrl-C is the parent's to handle; workers are stopped by it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
