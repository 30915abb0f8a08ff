"""What a worker process runs: one scheduled game, from specs to a record.

Kept free of pandas and of the results package so worker processes start fast.
"""

from __future__ import annotations

import importlib
import signal
from functools import lru_cache

from arena.game import Game
from arena.plugins import Registry, get_registry
from arena.records import GameRecord
from arena.referee import play_game
from arena.tournament import ScheduledGame


@lru_cache(maxsize=8)
def registry_for(plugins: tuple[str, ...]) -> Registry:
    """A registry with the entry points plus extra plugin modules, built once per process."""
    return get_registry(plugins=[importlib.import_module(name) for name in plugins])


@lru_cache(maxsize=32)
def _game(plugins: tuple[str, ...], spec: str) -> Game:
    return registry_for(plugins).game(spec)


def play_scheduled(task: ScheduledGame, plugins: tuple[str, ...] = ()) -> tuple[int, GameRecord]:
    """Play one game of a schedule; returns its index and record."""
    registry = registry_for(plugins)
    game = _game(plugins, task.game)
    bots = [registry.bot(spec) for spec in task.specs]
    record = play_game(
        game,
        bots,
        names=task.names,
        budgets=task.budgets,
        seed=task.seed,
        opening=task.opening,
        time_margin=task.time_margin,
    )
    return task.index, record


def ignore_interrupts() -> None:
    """Pool initializer: Ctrl-C is the parent's to handle; workers are stopped by it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
