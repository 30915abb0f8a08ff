"""What a worker process runs: one scheduled game, from specs to a record.

Kept free of pandas and of the results package so worker processes start fast; what a
record becomes before it leaves the worker (``play_prepared``) is the caller's function.
"""

from __future__ import annotations

import copy
import importlib
import signal
from functools import lru_cache
from typing import Any, Callable

from arena.game import Game
from arena.isolation import RemoteBot
from arena.params import parse_spec
from arena.plugins import Registry, get_registry
from arena.records import GameRecord
from arena.referee import play_game
from arena.tournament import ScheduledGame


@lru_cache(maxsize=8)
def registry_for(plugins: tuple[str, ...]) -> Registry:
    """A registry with the entry points plus extra plugin modules, built once per process."""
    return get_registry(plugins=[importlib.import_module(name) for name in plugins])


@lru_cache(maxsize=64)
def _pristine_game(spec: str, plugins: tuple[str, ...]) -> Game:
    """The game of ``spec``, built once per process and never handed to a bot."""
    return registry_for(plugins).game(spec)


def fresh_game(spec: str, plugins: tuple[str, ...] = ()) -> Game:
    """A game object for one game: a shallow copy of this process's pristine one.

    Building a game can take longer than playing a fast one (Connect Four precomputes
    its lines), so each is built once per process and copied, which costs about as much
    as one move. A bot that rebinds the game's attributes (its methods, its tables)
    changes only its copy, never the next game's; one that mutates an object the copy
    shares with the pristine game (a table filled on demand) could reach later games,
    which is why only trusted bots play without isolation.
    """
    return copy.copy(_pristine_game(spec, plugins))


@lru_cache(maxsize=256)
def _bot_class(spec: str, plugins: tuple[str, ...]) -> tuple[type, dict]:
    """The class and checked parameters of a bot spec (parsed once per process)."""
    name, text = parse_spec(spec)
    cls = registry_for(plugins).bot_class(name)
    return cls, cls.parse_params(text)


def play_scheduled(task: ScheduledGame, plugins: tuple[str, ...] = ()) -> tuple[int, GameRecord]:
    """Play one game of a schedule; returns its index and record.

    Isolated bots run in host processes of this process (see arena.isolation); a bot
    that cannot even be built loses the game, like any other fault.
    """
    game = fresh_game(task.game, plugins)
    if task.isolate:
        bots = [RemoteBot(spec, plugins, task.limits) for spec in task.specs]
    else:
        bots = [_LocalBuild(spec, plugins) for spec in task.specs]
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


def play_prepared(task: ScheduledGame, plugins: tuple[str, ...], prepare: Callable) -> tuple[int, Any]:
    """Play one game and return its index and ``prepare(index, pairing, record)``.

    Executors run this where the game is played, so that what the runner needs of a
    record (database rows) is made there, in parallel, and travels back instead of it.
    """
    index, record = play_scheduled(task, plugins)
    return index, prepare(index, task.pairing, record)


class _LocalBuild:
    """A bot built in this process when its game starts, so a failing constructor loses that game only."""

    interactive = False

    def __init__(self, spec: str, plugins: tuple[str, ...]):
        self.spec, self.plugins, self.bot = spec, plugins, None

    def new_game(self, game, player, seed):
        cls, params = _bot_class(self.spec, self.plugins)
        self.bot = cls(**params)
        self.bot.new_game(game, player, seed)
        self.choose = self.bot.choose  # the referee calls the bot itself, not this forwarder

    def choose(self, game, state, budget):
        return self.bot.choose(game, state, budget)

    def release(self):
        self.bot = None
        self.__dict__.pop("choose", None)


def ignore_interrupts() -> None:
    """Pool initializer: Ctrl-C is the parent's to handle; workers are stopped by it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
