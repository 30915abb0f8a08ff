"""Games and bots from their specs, built once per process and handed out fresh per game."""

from __future__ import annotations

import copy
import importlib
from functools import lru_cache

from arena.game import Game
from arena.params import parse_spec
from arena.plugins import Registry, get_registry


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
def bot_class(spec: str, plugins: tuple[str, ...]) -> tuple[type, dict]:
    """The class and checked parameters of a bot spec (parsed once per process)."""
    name, text = parse_spec(spec)
    cls = registry_for(plugins).bot_class(name)
    return cls, cls.parse_params(text)
