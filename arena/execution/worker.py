"""What a worker process runs: one game task, from specs to a record.

Kept free of pandas and of the results package so worker processes start fast; what a
record becomes before it leaves the worker (``play_prepared``) is the caller's function.
"""

from __future__ import annotations

import atexit
import signal
from typing import Any, Callable

from arena.execution.isolation import RemoteBot
from arena.execution.specs import bot_class, fresh_game
from arena.execution.task import GameTask
from arena.limits import DEFAULT_LIMITS, Limits
from arena.records import GameRecord
from arena.referee import play_game


def play_scheduled(task: GameTask, plugins: tuple[str, ...] = ()) -> tuple[int, GameRecord]:
    """Play one game of a schedule; returns its index and record.

    Isolated bots run in host processes of this process (see arena.execution.isolation); a bot
    that cannot even be built loses the game, like any other fault.
    """
    entry_points = not task.limits.sandbox  # a sandboxed run loads here only the plugins it names
    game = fresh_game(task.game, plugins, entry_points)
    bots = [_player(task, i, plugins, entry_points) for i in range(len(task.specs))]
    try:
        record = play_game(
            game,
            bots,
            names=task.names,
            budgets=task.budgets,
            seed=task.seed,
            opening=task.opening,
            time_margin=task.limits.time_margin,
            dice=task.dice,
            trusted=task.trusted,
            adjudication=task.adjudication,
        )
    finally:
        for bot in bots:
            bot.release()
    return task.index, record


def play_prepared(task: GameTask, plugins: tuple[str, ...], prepare: Callable) -> tuple[int, Any]:
    """Play one game and return its index and ``prepare(index, pairing, record)``.

    Executors run this where the game is played, so that what the runner needs of a
    record (database rows) is made there, in parallel, and travels back instead of it.
    """
    index, record = play_scheduled(task, plugins)
    return index, prepare(index, task.pairing, record)


def _player(task: GameTask, i: int, plugins: tuple[str, ...], entry_points: bool):
    spec = task.specs[i]
    own = task.hosts[i] if task.hosts is not None else None
    if own is not None:  # a third-party bot of a sandboxed run: only ever in a sandboxed host
        return RemoteBot(spec, own, task.limits)
    if task.isolate and not _external(spec, plugins, entry_points):
        return RemoteBot(spec, plugins, task.limits)
    return _LocalBuild(spec, plugins, task.limits, entry_points)


def _external(spec: str, plugins: tuple[str, ...], entry_points: bool = True) -> bool:
    """True for a bot that runs its own process (``arena.bot.ProgramBot``): isolating it adds nothing."""
    try:
        return bool(bot_class(spec, plugins, entry_points)[0].external)
    except Exception:  # an unknown or broken spec: the game records the fault
        return False


#: Bots of this process that run an engine of their own, idle between games, by spec, plugins
#: and limits: a healthy engine plays this process's next game of that spec, since starting
#: one (Stockfish loads its network) can take longer than a fast game.
_IDLE_EXTERNAL: dict[tuple, list] = {}


def close_idle_engines() -> None:
    """Close the engines kept for later games (at the end of a run, and when a worker stops)."""
    bots = [bot for idle in _IDLE_EXTERNAL.values() for bot in idle]
    _IDLE_EXTERNAL.clear()
    for bot in bots:
        bot.close()


atexit.register(close_idle_engines)


class _LocalBuild:
    """A bot built in this process when its game starts, so a failing constructor loses that game only."""

    interactive = False

    def __init__(self, spec: str, plugins: tuple[str, ...], limits: Limits = DEFAULT_LIMITS, entry_points: bool = True):
        self.spec, self.plugins, self.limits, self.bot = spec, plugins, limits, None
        self.entry_points = entry_points
        self.external = _external(spec, plugins, entry_points)  # runs a program: not in the referee's process
        self.fresh = False  # a game of hidden information: its engine plays no other game

    def new_game(self, game, player, seed):
        cls, params = bot_class(self.spec, self.plugins, self.entry_points)
        idle = _IDLE_EXTERNAL.get(self._key()) if cls.external else None
        self.bot = idle.pop() if idle else cls(**params)
        if cls.external:
            self.bot.limits = self.limits  # it enforces them on its own process
        self.fresh = game.model.hidden
        self.bot.new_game(game, player, seed)
        self.choose = self.bot.choose  # the referee calls the bot itself, not this forwarder
        if getattr(cls, "follows_moves", False):
            self.follows_moves, self.moved = True, self.bot.moved

    def opening(self, moves):
        if hasattr(self.bot, "opening"):
            self.bot.opening(moves)

    def choose(self, game, state, budget):
        return self.bot.choose(game, state, budget)

    def _key(self) -> tuple:
        return (self.spec, self.plugins, self.limits)

    def release(self):
        bot = self.bot
        # a sandboxed bot gets a fresh process every game, so nothing it leaves reaches the next
        if bot is not None and bot.external and not self.limits.sandbox and not self.fresh and bot.reusable():
            _IDLE_EXTERNAL.setdefault(self._key(), []).append(bot)  # its engine plays a later game
        elif getattr(bot, "close", None) is not None:
            bot.close()
        self.bot = None
        for forwarded in ("choose", "follows_moves", "moved"):
            self.__dict__.pop(forwarded, None)


def ignore_interrupts() -> None:
    """Pool initializer: Ctrl-C is the parent's to handle; workers are stopped by it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
